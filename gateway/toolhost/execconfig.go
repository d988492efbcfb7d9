package toolhost

import (
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
	"github.com/openclaw-go/openclaw/tools/netguard"
	"github.com/openclaw-go/openclaw/tools/shell"
	"github.com/openclaw-go/openclaw/tools/web"
)

// configuredExec is what tools.exec says about exec policy, for the exec
// approvals file to tighten. Only the config file sets it: neither a
// model's exec arguments (they can only tighten, see shell) nor the
// gateway tool without a person's approval can change it.
func configuredExec(e config.ToolExec) execapprovals.Configured {
	sec, ask := e.Policy()
	c := execapprovals.Configured{Security: sec, Ask: ask, SafeBins: e.SafeBins, TrustedDirs: e.SafeBinTrustedDirs}
	if len(e.SafeBinProfiles) > 0 {
		c.Profiles = map[string]execpolicy.BinProfile{}
		for name, p := range e.SafeBinProfiles {
			bp := execpolicy.BinProfile{MinPositional: p.MinPositional, MaxPositional: -1,
				ValueFlags: slices.Clone(p.AllowedValueFlags), DeniedFlags: slices.Clone(p.DeniedFlags)}
			if p.MaxPositional.Set {
				bp.MaxPositional = p.MaxPositional.N
			}
			c.Profiles[strings.ToLower(name)] = bp
		}
	}
	return c
}

// execSettings are tools.exec's run settings.
func execSettings(e config.ToolExec) shell.Settings {
	set := shell.Settings{
		Timeout:      time.Duration(e.TimeoutSeconds) * time.Second,
		Yield:        time.Duration(e.BackgroundMs) * time.Millisecond,
		NotifyOnExit: e.NotifyOnExit == nil || *e.NotifyOnExit,
		Keep:         time.Duration(e.CleanupMs) * time.Millisecond,
	}
	home, _ := os.UserHomeDir()
	for _, d := range e.PathPrepend {
		if rest, ok := strings.CutPrefix(d, "~"); ok && home != "" && (rest == "" || strings.HasPrefix(rest, "/")) {
			d = filepath.Join(home, rest)
		}
		set.PathPrepend = append(set.PathPrepend, d)
	}
	return set
}

// fetchConfig and searchConfig carry tools.web into the web tools.
func fetchConfig(f config.ToolWebFetch, log *slog.Logger) web.FetchConfig {
	ttl := time.Duration(f.CacheTTLMinutes) * time.Minute
	if f.CacheTTLMinutes == 0 {
		ttl = -1 // 0 turns the cache off
	}
	redirects := f.MaxRedirects
	if redirects == 0 {
		redirects = -1 // 0 follows none
	}
	return web.FetchConfig{MaxCharsCap: f.MaxCharsCap, DefaultMaxChars: f.MaxChars, Timeout: time.Duration(f.TimeoutSeconds) * time.Second,
		MaxBodyBytes: int64(f.MaxResponseBytes), CacheTTL: ttl, UserAgent: f.UserAgent, MaxRedirects: redirects,
		Headers: f.Headers, Network: fetchPolicy(f.SSRFPolicy), Logger: log}
}

// fetchPolicy is the SSRF policy of web_fetch, from
// tools.web.fetch.ssrfPolicy: public addresses only unless it allows more.
func fetchPolicy(sp config.ToolWebFetchSSRFPolicy) netguard.Policy {
	var p netguard.Policy
	if sp.DangerouslyAllowPrivateNetwork {
		p.Allow = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	} else if sp.AllowIPv6UniqueLocalRange {
		p.Allow = []netip.Prefix{netip.MustParsePrefix("fc00::/7")}
	}
	p.AllowHosts = sp.AllowedHostnames
	p.BlockHosts = sp.BlockedHostnames
	p.AllowFakeIP = sp.AllowRfc2544BenchmarkRange
	return p
}

// searchPlugins maps web_search providers to the OpenClaw plugin whose
// config.webSearch holds their settings.
var searchPlugins = map[string]string{
	web.ProviderBrave: "brave", web.ProviderTavily: "tavily", web.ProviderSerper: "serper", web.ProviderSearXNG: "searxng",
	web.ProviderPerplexity: "perplexity", web.ProviderExa: "exa", web.ProviderFirecrawl: "firecrawl",
	web.ProviderOllama: "ollama", web.ProviderGemini: "google", web.ProviderGrok: "xai",
	web.ProviderKimi: "moonshot", web.ProviderMiniMax: "minimax",
}

// searchModelProviders maps the providers that fall back on a model
// provider's key and base URL (models.providers.<name>) to its name.
var searchModelProviders = map[string]string{web.ProviderGemini: "google", web.ProviderOllama: "ollama", web.ProviderKimi: "moonshot"}

// searchModelKeyless lists the providers that take only the model
// provider's host, not its key: a Moonshot chat key on the China host
// must send Kimi's searches there too, but OpenClaw reads Kimi's key
// from its own places only.
var searchModelKeyless = map[string]bool{web.ProviderKimi: true}

// searchConfig also reads the providers' own settings, where OpenClaw
// keeps them: plugins.entries.<plugin>.config.webSearch (apiKey beats
// the provider's environment variables, which beat the model
// provider's apiKey; baseUrl beats FIRECRAWL_BASE_URL and the model
// provider's baseUrl; model). A perplexity baseUrl or model turns to
// its chat path, as in OpenClaw.
func searchConfig(sc config.ToolWebSearch, plugins map[string]config.PluginEntry, models map[string]config.ModelProvider, getenv func(string) string) web.SearchConfig {
	ttl := time.Duration(sc.CacheTTLMinutes) * time.Minute
	if sc.CacheTTLMinutes == 0 {
		ttl = -1
	}
	c := web.SearchConfig{DefaultCount: sc.MaxResults, ProviderTimeout: time.Duration(sc.TimeoutSeconds) * time.Second, CacheTTL: ttl}
	c.Keys, c.BaseURLs, c.Models = map[string]string{}, map[string]string{}, map[string]string{}
	for provider, plugin := range searchPlugins {
		ws := plugins[plugin].Config.WebSearch
		mp := models[searchModelProviders[provider]]
		key := ws.APIKey.Value
		for _, env := range web.KeyEnv[provider] {
			if key == "" {
				key = getenv(env)
			}
		}
		if key == "" && searchModelProviders[provider] != "" && !searchModelKeyless[provider] {
			key = mp.APIKey.Value
		}
		if key != "" {
			c.Keys[provider] = key
		}
		base := ws.BaseURL
		if base == "" && provider == web.ProviderFirecrawl {
			base = getenv("FIRECRAWL_BASE_URL")
		}
		if base == "" && searchModelProviders[provider] != "" {
			base = mp.BaseURL
			if provider == web.ProviderOllama {
				// An OpenAI-style Ollama host ends in /v1; web search
				// lives on the native API beside it.
				base = strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
			}
		}
		// A brave, tavily or serper baseUrl is not read by OpenClaw
		// either; searxng's is the instance, below.
		switch provider {
		case web.ProviderBrave, web.ProviderTavily, web.ProviderSerper, web.ProviderSearXNG, web.ProviderMiniMax:
		default:
			if base != "" {
				c.BaseURLs[provider] = base
			}
		}
		if ws.Model != "" {
			c.Models[provider] = ws.Model
		}
	}
	if minimaxCN(plugins["minimax"].Config.WebSearch.Region, getenv("MINIMAX_API_HOST"), models) {
		c.BaseURLs[web.ProviderMiniMax] = web.MiniMaxCNBase
	}
	c.DuckDuckGoRegion = plugins["duckduckgo"].Config.WebSearch.Region
	pp := plugins["perplexity"].Config.WebSearch
	c.PerplexityChat = pp.BaseURL != "" || pp.Model != ""
	c.SearXNGURL = plugins[web.ProviderSearXNG].Config.WebSearch.BaseURL
	if sc.Provider != "" && config.SearchProviderImplemented(sc.Provider) {
		c.Providers = []string{sc.Provider}
	}
	return c
}

// minimaxCN reports whether MiniMax searches go to its China host: the
// plugin's region says so, or else MINIMAX_API_HOST or the MiniMax
// model provider's base URL is a minimaxi.com host, so that a China
// account's key is not sent to the global host that refuses it.
func minimaxCN(region, apiHost string, models map[string]config.ModelProvider) bool {
	switch strings.ToLower(strings.TrimSpace(region)) {
	case "cn":
		return true
	case "global":
		return false
	}
	for _, u := range []string{apiHost, models["minimax"].BaseURL, models["minimax-portal"].BaseURL} {
		if strings.Contains(strings.ToLower(u), "minimaxi.com") {
			return true
		}
	}
	return false
}

// configGate refuses the tools the config switched off or kept from this
// model: tools.exec.applyPatch.enabled and allowModels,
// tools.web.fetch.enabled, tools.web.search.enabled.
func configGate(cfg *config.Config, who tools.Who, name string) (ok bool, reason string) {
	off := func(b *bool) bool { return b != nil && !*b }
	switch name {
	case "apply_patch":
		ap := cfg.Tools.Exec.ApplyPatch
		if off(ap.Enabled) {
			return false, "tools.exec.applyPatch.enabled is false"
		}
		if len(ap.AllowModels) > 0 && !slices.ContainsFunc(ap.AllowModels, func(m string) bool {
			return strings.EqualFold(m, who.Model) || strings.EqualFold(m, who.Provider+"/"+who.Model)
		}) {
			return false, "this model is not in tools.exec.applyPatch.allowModels"
		}
	case "web_fetch":
		if off(cfg.Tools.Web.Fetch.Enabled) {
			return false, "tools.web.fetch.enabled is false"
		}
	case "web_search":
		if off(cfg.Tools.Web.Search.Enabled) {
			return false, "tools.web.search.enabled is false"
		}
	}
	return true, ""
}
