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
			got := searchConfig(snap.Config.Tools.Web.Search, snap.Config.Plugins.Entries, snap.Config.Models.Providers, getenv)
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
	for _, p := range []string{"parallel"} {
		c := searchConfig(config.ToolWebSearch{Provider: p}, nil, nil, func(string) string { return "" })
		if c.Providers != nil {
			t.Errorf("provider %q: chain = %v, want the default chain", p, c.Providers)
		}
	}
	if c := searchConfig(config.ToolWebSearch{Provider: "tavily"}, nil, nil, func(string) string { return "" }); len(c.Providers) != 1 || c.Providers[0] != "tavily" {
		t.Errorf("tavily: chain = %v", c.Providers)
	}
}

// TestWebSearchNewProviderConfig checks where the providers added after
// the first five find their keys, base URLs and models.
func TestWebSearchNewProviderConfig(t *testing.T) {
	env := map[string]string{"OPENROUTER_API_KEY": "sk-or-env", "EXA_API_KEY": "env-exa", "GEMINI_API_KEY": "env-gemini",
		"FIRECRAWL_API_KEY": "env-fc", "FIRECRAWL_BASE_URL": "http://fc.lan:3002"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name   string
		src    string
		env    map[string]string // overrides
		keys   map[string]string
		bases  map[string]string
		models map[string]string
		chat   bool
	}{
		{name: "environment", src: `{}`,
			keys:  map[string]string{web.ProviderPerplexity: "sk-or-env", web.ProviderExa: "env-exa", web.ProviderGemini: "env-gemini", web.ProviderFirecrawl: "env-fc"},
			bases: map[string]string{web.ProviderFirecrawl: "http://fc.lan:3002"}},
		{name: "plugin settings win",
			src: `{plugins: {entries: {
				perplexity: {config: {webSearch: {apiKey: "pplx-cfg", baseUrl: "https://openrouter.ai/api/v1", model: "perplexity/sonar"}}},
				exa: {config: {webSearch: {apiKey: "exa-cfg", baseUrl: "https://exa-proxy.example"}}},
				firecrawl: {config: {webSearch: {baseUrl: "http://fc.internal:3002"}}},
				google: {config: {webSearch: {apiKey: "g-cfg", model: "gemini-2.5-flash"}}},
				ollama: {config: {webSearch: {baseUrl: "http://ollama-host:11434"}}},
				xai: {config: {webSearch: {apiKey: "xai-cfg", baseUrl: "https://xai-proxy.example/v1", model: "grok-4.7"}}}}},
				models: {providers: {google: {baseUrl: "https://gemini-proxy.example/v1beta", apiKey: "g-model"},
					ollama: {baseUrl: "http://other:11434", apiKey: "ollama-model"}}}}`,
			keys: map[string]string{web.ProviderPerplexity: "pplx-cfg", web.ProviderExa: "exa-cfg", web.ProviderGemini: "g-cfg",
				web.ProviderOllama: "ollama-model", web.ProviderGrok: "xai-cfg"},
			bases: map[string]string{web.ProviderPerplexity: "https://openrouter.ai/api/v1", web.ProviderExa: "https://exa-proxy.example",
				web.ProviderFirecrawl: "http://fc.internal:3002", web.ProviderGemini: "https://gemini-proxy.example/v1beta",
				web.ProviderOllama: "http://ollama-host:11434", web.ProviderGrok: "https://xai-proxy.example/v1"},
			models: map[string]string{web.ProviderPerplexity: "perplexity/sonar", web.ProviderGemini: "gemini-2.5-flash", web.ProviderGrok: "grok-4.7"},
			chat:   true},
		{name: "kimi takes the moonshot host but not its key",
			src:   `{models: {providers: {moonshot: {baseUrl: "https://api.moonshot.cn/v1", apiKey: "moonshot-chat"}}}}`,
			env:   map[string]string{"MOONSHOT_API_KEY": "env-moonshot"},
			keys:  map[string]string{web.ProviderKimi: "env-moonshot"},
			bases: map[string]string{web.ProviderKimi: "https://api.moonshot.cn/v1"}},
		{name: "kimi without a key of its own", src: `{models: {providers: {moonshot: {apiKey: "moonshot-chat"}}}}`,
			keys: map[string]string{web.ProviderKimi: ""}},
		{name: "minimax China host from the plugin region",
			src:   `{plugins: {entries: {minimax: {config: {webSearch: {apiKey: "sk-cp-cfg", region: "cn"}}}}}}`,
			keys:  map[string]string{web.ProviderMiniMax: "sk-cp-cfg"},
			bases: map[string]string{web.ProviderMiniMax: web.MiniMaxCNBase}},
		{name: "minimax China host from the model provider",
			src:   `{models: {providers: {"minimax-portal": {baseUrl: "https://api.minimaxi.com/anthropic"}}}}`,
			env:   map[string]string{"MINIMAX_OAUTH_TOKEN": "oauth-mm"},
			keys:  map[string]string{web.ProviderMiniMax: "oauth-mm"},
			bases: map[string]string{web.ProviderMiniMax: web.MiniMaxCNBase}},
		{name: "minimax global region beats the China hint",
			src:   `{plugins: {entries: {minimax: {config: {webSearch: {region: "global"}}}}}}`,
			env:   map[string]string{"MINIMAX_API_HOST": "https://api.minimaxi.com"},
			bases: map[string]string{web.ProviderMiniMax: ""}},
		{name: "ollama host from an OpenAI-style model provider URL",
			src:   `{models: {providers: {ollama: {baseUrl: "http://gpu-box:11434/v1/"}}}}`,
			bases: map[string]string{web.ProviderOllama: "http://gpu-box:11434"}},
		{name: "gemini falls back on the model provider's key",
			src:  `{models: {providers: {google: {apiKey: "g-model"}}}}`,
			env:  map[string]string{"GEMINI_API_KEY": ""},
			keys: map[string]string{web.ProviderGemini: "g-model"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			get := func(k string) string {
				if v, ok := tc.env[k]; ok {
					return v
				}
				return getenv(k)
			}
			snap := parseWebSnapshot(t, tc.src, get)
			for _, w := range snap.Warnings {
				if strings.Contains(w.Path, "webSearch") {
					t.Errorf("warning %s: %s", w.Path, w.Message)
				}
			}
			got := searchConfig(snap.Config.Tools.Web.Search, snap.Config.Plugins.Entries, snap.Config.Models.Providers, get)
			for p, want := range tc.keys {
				if got.Keys[p] != want {
					t.Errorf("key of %s = %q, want %q", p, got.Keys[p], want)
				}
			}
			for p, want := range tc.bases {
				if got.BaseURLs[p] != want {
					t.Errorf("base URL of %s = %q, want %q", p, got.BaseURLs[p], want)
				}
			}
			for p, want := range tc.models {
				if got.Models[p] != want {
					t.Errorf("model of %s = %q, want %q", p, got.Models[p], want)
				}
			}
			if got.PerplexityChat != tc.chat {
				t.Errorf("perplexity chat = %v, want %v", got.PerplexityChat, tc.chat)
			}
		})
	}
}

func TestWebSearchProviderNamed(t *testing.T) {
	for _, p := range []string{"perplexity", "exa", "firecrawl", "ollama", "gemini", "grok", "kimi", "minimax"} {
		c := searchConfig(config.ToolWebSearch{Provider: p}, nil, nil, func(string) string { return "" })
		if len(c.Providers) != 1 || c.Providers[0] != p {
			t.Errorf("provider %q: chain = %v", p, c.Providers)
		}
	}
}
