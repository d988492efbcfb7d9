package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// SearchConfig configures web_search (tools.web.search).
type SearchConfig struct {
	// Providers is the order in which providers are tried; the next one
	// is used when one fails, is rate limited or finds nothing. Names:
	// brave, tavily, serper, searxng, duckduckgo, perplexity, exa,
	// firecrawl, ollama, gemini, grok, kimi, minimax. Default: DefaultProviders.
	Providers []string
	// Keys holds API keys by provider name. A provider that needs a key
	// and has none is skipped; ollama's key is optional and only ever
	// sent to Ollama's hosted API. Default (nil): read from the
	// environment variables in KeyEnv.
	Keys map[string]string
	// Models names the model of the providers that answer through one:
	// perplexity's chat path, gemini, grok and kimi. Default: DefaultModels.
	Models map[string]string
	// PerplexityChat sends perplexity searches to its chat completions
	// (Sonar, or OpenRouter's) instead of its Search API, as OpenClaw
	// does when the plugin sets a baseUrl or model. An OpenRouter key
	// (sk-or-...) does the same on its own. Default: false.
	PerplexityChat bool
	// DuckDuckGoRegion is the region code (kl) duckduckgo searches in
	// when a call's language names none, e.g. "us-en". Default: none.
	DuckDuckGoRegion string
	// SearXNGURL is the base URL of a SearXNG instance, e.g.
	// "https://searx.example.org". Default: none (searxng is skipped).
	SearXNGURL string
	// BaseURLs overrides a provider's endpoint by name. For brave,
	// tavily and serper it is the full URL of the search API; for
	// duckduckgo, of its HTML search page; for searxng, the instance's
	// base URL when SearXNGURL is empty. For perplexity, exa, firecrawl,
	// ollama, gemini, grok, kimi and minimax it is the API's base URL,
	// to which the provider adds its own path (/search, /v2/search,
	// /api/web_search, /models/<model>:generateContent, /responses,
	// /v1/coding_plan/search, /chat/completions for kimi and
	// perplexity's chat path), as OpenClaw's plugin baseUrl is. Only configuration
	// sets these, never a tool call. Default: each provider's public
	// endpoint (ollama: the local daemon, http://127.0.0.1:11434).
	BaseURLs map[string]string
	// HTTPClient sends all provider requests. Default: a netguard client
	// that reaches only public addresses, or those Network allows.
	HTTPClient *http.Client
	// Network says which internal addresses the default client may reach,
	// e.g. a SearXNG instance on the LAN. Unused when HTTPClient is set.
	// Default: none.
	Network netguard.Policy
	// ProviderTimeout bounds one provider's attempt, so that a slow one
	// leaves time for the next. Default: 10s.
	ProviderTimeout time.Duration
	// DefaultCount is how many results a call that names no count gets
	// (tools.web.search.maxResults), 1 to MaxSearchCount. Default: 5.
	DefaultCount int
	// CacheTTL is how long results are reused for the same query, count,
	// freshness and language. Default: 15m; negative turns the cache off.
	CacheTTL time.Duration
}

// Provider names.
const (
	ProviderBrave      = "brave"
	ProviderTavily     = "tavily"
	ProviderSerper     = "serper"
	ProviderSearXNG    = "searxng"
	ProviderDuckDuckGo = "duckduckgo"
	ProviderPerplexity = "perplexity"
	ProviderExa        = "exa"
	ProviderFirecrawl  = "firecrawl"
	ProviderOllama     = "ollama"
	ProviderGemini     = "gemini"
	ProviderGrok       = "grok"
	ProviderKimi       = "kimi"
	ProviderMiniMax    = "minimax"
)

// DefaultProviders is the provider order unless SearchConfig.Providers
// says otherwise: keyed APIs first (a missing key skips one at no
// cost), then the keyless ones. Ollama is left out, as OpenClaw never
// picks it on its own: it needs a daemon signed in to Ollama's cloud.
var DefaultProviders = []string{ProviderBrave, ProviderMiniMax, ProviderGemini, ProviderGrok, ProviderKimi, ProviderPerplexity, ProviderFirecrawl, ProviderExa,
	ProviderTavily, ProviderSerper, ProviderSearXNG, ProviderDuckDuckGo}

// KeyEnv names the environment variables each keyed provider reads,
// first set wins, when SearchConfig.Keys is nil.
var KeyEnv = map[string][]string{
	ProviderBrave:      {"BRAVE_API_KEY"},
	ProviderTavily:     {"TAVILY_API_KEY"},
	ProviderSerper:     {"SERPER_API_KEY"},
	ProviderPerplexity: {"PERPLEXITY_API_KEY", "OPENROUTER_API_KEY"},
	ProviderExa:        {"EXA_API_KEY"},
	ProviderFirecrawl:  {"FIRECRAWL_API_KEY"},
	ProviderGemini:     {"GEMINI_API_KEY"},
	ProviderOllama:     {"OLLAMA_API_KEY"},
	ProviderGrok:       {"XAI_API_KEY"},
	ProviderKimi:       {"KIMI_API_KEY", "MOONSHOT_API_KEY"},
	ProviderMiniMax:    {"MINIMAX_CODE_PLAN_KEY", "MINIMAX_CODING_API_KEY", "MINIMAX_OAUTH_TOKEN", "MINIMAX_API_KEY"},
}

// keyOptional lists the providers that run without a key.
var keyOptional = map[string]bool{ProviderOllama: true}

// DefaultModels are the models of the providers that answer through
// one, unless SearchConfig.Models says otherwise.
var DefaultModels = map[string]string{
	ProviderPerplexity: "sonar-pro",
	ProviderGemini:     "gemini-3.6-flash",
	ProviderGrok:       "grok-4.3",
	ProviderKimi:       "kimi-k2.6",
}

// Defaults of SearchConfig and the tool's arguments.
const (
	DefaultProviderTimeout = 10 * time.Second
	DefaultSearchCount     = 5
	MaxSearchCount         = 10
	maxSearchBodyBytes     = 2 << 20
	searchUserAgent        = "openclaw-go web_search"
)

// Query is one search as a provider sees it: Count is 1 to
// MaxSearchCount, Freshness is "" or day, week, month or year, Language
// is "" or a code such as "en" or "de-de".
type Query struct {
	Text      string
	Count     int
	Freshness string
	Language  string
}

// Found is what one provider answered: result rows, and for providers
// whose model writes an answer (perplexity's chat path, gemini), that
// answer with the pages it cites as Hits.
type Found struct {
	Hits   []Hit
	Answer string
	// Source names the provider that wrote Answer; rows carry their own.
	Source string
}

func (f Found) empty() bool { return len(f.Hits) == 0 && f.Answer == "" }

// Hit is one search result. Source names the provider that found it.
type Hit struct {
	Title   string
	URL     string
	Snippet string
	Source  string
}

// searchProvider is one search backend. Search may be called
// concurrently; it returns at most q.Count hits, and an error for
// anything but a successful answer, so that the chain moves on.
type searchProvider interface {
	Name() string
	Search(ctx context.Context, q Query) (Found, error)
}

// errRateLimited is wrapped when a provider answers 429; the chain
// moves on to the next provider.
var errRateLimited = errors.New("rate limited")

type searchArgs struct {
	Query     string `json:"query" jsonschema:"description=What to search the web for."`
	Count     int    `json:"count,omitempty" jsonschema:"minimum=1,maximum=10,description=How many results to return (1-10; default 5)."`
	Freshness string `json:"freshness,omitempty" jsonschema:"enum=day,enum=week,enum=month,enum=year,description=Only results published within this period."`
	Language  string `json:"language,omitempty" jsonschema:"description=Language of results as a code such as en or de (a region form like de-de also works)."`
}

// SearchTool returns the web_search tool. It may be called concurrently;
// its cache is shared by all calls of the returned tool.
func SearchTool(cfg SearchConfig) tools.Tool {
	t, _ := newSearchTool(cfg)
	return t
}

// link is one place in the provider chain: a provider, or the reason
// the configured name cannot be used.
type link struct {
	name    string
	p       searchProvider // nil when skipped
	skipped string
}

type searcher struct {
	cfg   SearchConfig
	chain []link
	cache *ttlCache[Found]
}

func newSearchTool(cfg SearchConfig) (tools.Tool, *searcher) {
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.ProviderTimeout <= 0 {
		cfg.ProviderTimeout = DefaultProviderTimeout
	}
	if cfg.DefaultCount < 1 || cfg.DefaultCount > MaxSearchCount {
		cfg.DefaultCount = DefaultSearchCount
	}
	defaultClient := cfg.HTTPClient == nil
	if defaultClient {
		cfg.HTTPClient = netguard.NewClient(netguard.Options{Policy: cfg.Network})
	}
	keys := map[string]string{}
	for name, envs := range KeyEnv {
		v := cfg.Keys[name]
		for _, env := range envs {
			if cfg.Keys == nil && strings.TrimSpace(v) == "" {
				v = os.Getenv(env)
			}
		}
		if v = strings.TrimSpace(v); v != "" {
			keys[name] = v
		}
	}
	cfg.Keys = keys
	s := &searcher{cfg: cfg, chain: buildChain(cfg, defaultClient), cache: newTTLCache[Found](cfg.CacheTTL)}
	return tools.NewTyped(tools.Spec{
		Name:  "web_search",
		Label: "Web Search",
		Description: fmt.Sprintf("Search the web and return titles, URLs and snippets of the top results "+
			"(%d by default, at most %d). Results are cached for %s. Use web_fetch to read a result in full.",
			cfg.DefaultCount, MaxSearchCount, cfg.CacheTTL),
		Tier:    tools.TierCore,
		Source:  tools.SourceCore,
		Groups:  []string{"group:web"},
		Timeout: tools.TimeoutFast,
	}, s.call), s
}

// buildChain turns the configured names into providers, keeping the
// skipped ones with their reason so that a failed search can say why.
func buildChain(cfg SearchConfig, defaultClient bool) []link {
	names := cfg.Providers
	if len(names) == 0 {
		names = DefaultProviders
	}
	h := httpDoer{client: cfg.HTTPClient}
	endpoint := func(name, def string) string {
		if u := cfg.BaseURLs[name]; u != "" {
			return u
		}
		return def
	}
	model := func(name string) string {
		if m := strings.TrimSpace(cfg.Models[name]); m != "" {
			return m
		}
		return DefaultModels[name]
	}
	var chain []link
	for _, raw := range names {
		name := strings.ToLower(strings.TrimSpace(raw))
		l := link{name: name}
		key := cfg.Keys[name]
		if envs, keyed := KeyEnv[name]; keyed && key == "" && !keyOptional[name] {
			l.skipped = "no API key (" + strings.Join(envs, " or ") + ")"
			chain = append(chain, l)
			continue
		}
		switch name {
		case ProviderBrave:
			l.p = &braveProvider{h: h, key: key, endpoint: endpoint(name, braveEndpoint)}
		case ProviderTavily:
			l.p = &tavilyProvider{h: h, key: key, endpoint: endpoint(name, tavilyEndpoint)}
		case ProviderSerper:
			l.p = &serperProvider{h: h, key: key, endpoint: endpoint(name, serperEndpoint)}
		case ProviderSearXNG:
			base := cfg.SearXNGURL
			if base == "" {
				base = cfg.BaseURLs[name]
			}
			if base == "" {
				l.skipped = "no SearXNG URL configured"
			} else {
				l.p = &searxngProvider{h: h, base: base}
			}
		case ProviderDuckDuckGo:
			l.p = &ddgProvider{h: h, endpoint: endpoint(name, ddgEndpoint), region: strings.ToLower(strings.TrimSpace(cfg.DuckDuckGoRegion))}
		case ProviderPerplexity:
			l.p = newPerplexity(h, key, cfg.BaseURLs[name], cfg.Models[name], cfg.PerplexityChat)
		case ProviderExa:
			l.p = &exaProvider{h: h, key: key, endpoint: joinEndpoint(endpoint(name, exaBase), "/search")}
		case ProviderFirecrawl:
			p, err := newFirecrawl(h, key, cfg.BaseURLs[name], defaultClient, cfg.Network)
			if err != nil {
				l.skipped = err.Error()
			} else {
				l.p = p
			}
		case ProviderOllama:
			p, err := newOllama(h, key, endpoint(name, ollamaLocalBase), defaultClient, cfg.Network)
			if err != nil {
				l.skipped = err.Error()
			} else {
				l.p = p
			}
		case ProviderGemini:
			l.p = &geminiProvider{h: h, key: key, base: strings.TrimRight(endpoint(name, geminiBase), "/"), model: model(name)}
		case ProviderGrok:
			l.p = &grokProvider{h: h, key: key, endpoint: joinEndpoint(endpoint(name, grokBase), "/responses"), model: model(name)}
		case ProviderMiniMax:
			l.p = &minimaxProvider{h: h, key: key, endpoint: joinEndpoint(endpoint(name, minimaxGlobalBase), "/v1/coding_plan/search")}
		case ProviderKimi:
			l.p = &kimiProvider{h: h, key: key, endpoint: joinEndpoint(endpoint(name, kimiBase), "/chat/completions"), model: model(name)}
		default:
			l.skipped = "unknown provider"
		}
		chain = append(chain, l)
	}
	return chain
}

func (s *searcher) call(ctx context.Context, _ tools.Call, a searchArgs) (tools.Result, error) {
	q := Query{
		Text:      strings.Join(strings.Fields(a.Query), " "),
		Count:     a.Count,
		Freshness: strings.ToLower(strings.TrimSpace(a.Freshness)),
		Language:  strings.ToLower(strings.TrimSpace(a.Language)),
	}
	if q.Text == "" {
		return tools.Result{}, errors.New("query is empty")
	}
	if q.Count == 0 {
		q.Count = s.cfg.DefaultCount
	}
	if q.Count < 1 || q.Count > MaxSearchCount {
		return tools.Result{}, fmt.Errorf("count %d: must be 1 to %d", a.Count, MaxSearchCount)
	}
	switch q.Freshness {
	case "", "day", "week", "month", "year":
	default:
		return tools.Result{}, fmt.Errorf("freshness %q: want day, week, month or year", a.Freshness)
	}
	key := strings.Join([]string{q.Text, fmt.Sprint(q.Count), q.Freshness, q.Language}, "\x00")
	found, cached := s.cache.get(key)
	if !cached {
		var err error
		found, err = s.search(ctx, q)
		if err != nil {
			return tools.Result{}, err
		}
		if !found.empty() { // an empty answer is not kept: the next call tries again
			s.cache.put(key, found)
		}
	}
	return tools.Result{Text: renderFound(q, found, cached)}, nil
}

// search tries each provider in turn. It returns the first non-empty
// answer, no hits (and no error) when every provider that answered found
// nothing, and an error naming each provider's trouble when none did.
func (s *searcher) search(ctx context.Context, q Query) (Found, error) {
	var why []string
	answered := false
	for _, l := range s.chain {
		if l.p == nil {
			why = append(why, l.name+": skipped, "+l.skipped)
			continue
		}
		if err := ctx.Err(); err != nil {
			return Found{}, fmt.Errorf("search %q: %w", q.Text, err)
		}
		pctx, cancel := context.WithTimeout(ctx, s.cfg.ProviderTimeout)
		found, err := l.p.Search(pctx, q)
		cancel()
		switch {
		case err != nil:
			why = append(why, l.name+": "+err.Error())
		case found.empty():
			answered = true
			why = append(why, l.name+": no results")
		default:
			return found, nil
		}
	}
	if answered {
		return Found{}, nil
	}
	return Found{}, fmt.Errorf("search %q: no provider answered (%s)", q.Text, strings.Join(why, "; "))
}

// renderFound lists the results, wrapped as untrusted content: titles
// and snippets are the words of remote pages, and a provider's answer
// is its model's summary of them, labeled so the model does not take it
// for a quote.
func renderFound(q Query, f Found, cached bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Query: %s\n", defuse(q.Text))
	if f.empty() {
		b.WriteString("No results found.")
		return b.String()
	}
	source := f.source()
	fmt.Fprintf(&b, "Provider: %s\nResults: %d\n", source, len(f.Hits))
	if cached {
		b.WriteString("Cached: yes\n")
	}
	var body strings.Builder
	if f.Answer != "" {
		fmt.Fprintf(&body, "Answer (written by %s's model from its search, not a quote of any page):\n%s\n", source, f.Answer)
		if len(f.Hits) > 0 {
			body.WriteString("\nSources cited:\n")
		}
	}
	for i, h := range f.Hits {
		fmt.Fprintf(&body, "%d. %s\n   URL: %s\n", i+1, h.Title, h.URL)
		if h.Snippet != "" {
			fmt.Fprintf(&body, "   %s\n", h.Snippet)
		}
	}
	b.WriteString(wrapUntrusted(source+" web search", body.String()))
	return b.String()
}

// source names the provider that answered.
func (f Found) source() string {
	if f.Source != "" || len(f.Hits) == 0 {
		return f.Source
	}
	return f.Hits[0].Source
}
