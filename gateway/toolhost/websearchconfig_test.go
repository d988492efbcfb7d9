package toolhost

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools/web"
)

// TestWebSearchProviderConfig: a provider's key in
// plugins.entries.<provider>.config.webSearch beats its environment
// variable, and draws no "not implemented" warning.
func TestWebSearchProviderConfig(t *testing.T) {
	env := map[string]string{"BRAVE_API_KEY": "env-brave", "TAVILY_API_KEY": "env-tavily", "SERPER_API_KEY": "env-serper", "MY_TAVILY": "ref-tavily"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name    string
		src     string
		keys    map[string]string
		searxng string
	}{
		{name: "environment only", src: `{}`,
			keys: map[string]string{web.ProviderBrave: "env-brave", web.ProviderTavily: "env-tavily", web.ProviderSerper: "env-serper"}},
		{name: "config key beats the environment",
			src:  `{plugins: {entries: {brave: {config: {webSearch: {apiKey: "cfg-brave"}}}}}}`,
			keys: map[string]string{web.ProviderBrave: "cfg-brave", web.ProviderTavily: "env-tavily", web.ProviderSerper: "env-serper"}},
		{name: "SecretRef key",
			src:  `{plugins: {entries: {tavily: {config: {webSearch: {apiKey: {source: "env", provider: "default", id: "MY_TAVILY"}}}}}}}`,
			keys: map[string]string{web.ProviderBrave: "env-brave", web.ProviderTavily: "ref-tavily", web.ProviderSerper: "env-serper"}},
		{name: "searxng base URL",
			src:     `{plugins: {entries: {searxng: {config: {webSearch: {baseUrl: "https://searx.example.org"}}}}}}`,
			keys:    map[string]string{web.ProviderBrave: "env-brave", web.ProviderTavily: "env-tavily", web.ProviderSerper: "env-serper"},
			searxng: "https://searx.example.org"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := parseWebSnapshot(t, tc.src, getenv)
			for _, w := range snap.Warnings {
				if strings.Contains(w.Path, "webSearch") {
					t.Errorf("warning %s: %s", w.Path, w.Message)
				}
			}
			got := searchConfig(snap.Config.Tools.Web.Search, snap.Config.Plugins.Entries, getenv)
			for p, want := range tc.keys {
				if got.Keys[p] != want {
					t.Errorf("key of %s = %q, want %q", p, got.Keys[p], want)
				}
			}
			if got.SearXNGURL != tc.searxng {
				t.Errorf("searxng URL %q, want %q", got.SearXNGURL, tc.searxng)
			}
		})
	}
}

// TestWebSearchProviderWeDoNotHave: a provider OpenClaw has and we do not
// (the config loads it with a warning) leaves the whole chain in use,
// rather than a chain of one provider that cannot answer.
func TestWebSearchProviderWeDoNotHave(t *testing.T) {
	for _, p := range []string{"perplexity", "exa", "ollama"} {
		c := searchConfig(config.ToolWebSearch{Provider: p}, nil, func(string) string { return "" })
		if c.Providers != nil {
			t.Errorf("provider %q: chain = %v, want the default chain", p, c.Providers)
		}
	}
	if c := searchConfig(config.ToolWebSearch{Provider: "tavily"}, nil, func(string) string { return "" }); len(c.Providers) != 1 || c.Providers[0] != "tavily" {
		t.Errorf("tavily: chain = %v", c.Providers)
	}
}
