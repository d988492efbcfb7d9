package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/tools/netguard"
)

// Public base URLs of the providers added after the first five; each
// provider adds its own path, as OpenClaw's plugin baseUrl does.
const (
	perplexityBase  = "https://api.perplexity.ai"
	openRouterBase  = "https://openrouter.ai/api/v1"
	exaBase         = "https://api.exa.ai"
	firecrawlBase   = "https://api.firecrawl.dev"
	ollamaLocalBase = "http://127.0.0.1:11434"
	ollamaCloudBase = "https://ollama.com"
	geminiBase      = "https://generativelanguage.googleapis.com/v1beta"
	grokBase        = "https://api.x.ai/v1"
	kimiBase        = "https://api.moonshot.ai/v1"
	// MiniMax serves its search from one host per region.
	minimaxGlobalBase = "https://api.minimax.io"
	MiniMaxCNBase     = "https://api.minimaxi.com"
	// geminiRedirectHost serves the redirect links Gemini grounding
	// cites instead of the pages themselves.
	geminiRedirectHost = "vertexaisearch.cloud.google.com"
	// maxAnswerRunes bounds the answer a provider's model writes.
	maxAnswerRunes = 6000
)

var (
	_ searchProvider = (*perplexityProvider)(nil)
	_ searchProvider = (*exaProvider)(nil)
	_ searchProvider = (*firecrawlProvider)(nil)
	_ searchProvider = (*ollamaProvider)(nil)
	_ searchProvider = (*geminiProvider)(nil)
	_ searchProvider = (*grokProvider)(nil)
	_ searchProvider = (*kimiProvider)(nil)
	_ searchProvider = (*minimaxProvider)(nil)
)

// joinEndpoint adds path to a configured base URL: a bare host gets
// https://, a trailing slash is dropped, and a base that already ends
// in path is kept, so that both "https://api.exa.ai" and
// "https://api.exa.ai/search" work.
func joinEndpoint(base, path string) string {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	if !strings.Contains(base, "://") {
		base = "https://" + base
	}
	if strings.HasSuffix(base, path) {
		return base
	}
	return base + path
}

// since is the start of a freshness period before now, "" for none.
func since(freshness string, now time.Time) time.Time {
	switch freshness {
	case "day":
		return now.AddDate(0, 0, -1)
	case "week":
		return now.AddDate(0, 0, -7)
	case "month":
		return now.AddDate(0, -1, 0)
	case "year":
		return now.AddDate(-1, 0, 0)
	}
	return time.Time{}
}

// cleanAnswer keeps a model's answer readable (line breaks stay) but
// drops control characters and bounds its length.
func cleanAnswer(s string) string {
	return truncateRunes(strings.TrimSpace(stripControl(s)), maxAnswerRunes)
}

// perplexityProvider asks Perplexity: its Search API for result rows,
// or, on the chat path (Sonar directly or through OpenRouter), a chat
// completion whose answer comes with the pages it cites.
type perplexityProvider struct {
	h        httpDoer
	key      string
	endpoint string
	chat     bool
	model    string
	direct   bool // Perplexity's own API, which takes its search filters on the chat path too
}

func newPerplexity(h httpDoer, key, base, model string, chat bool) *perplexityProvider {
	openRouter := strings.HasPrefix(key, "sk-or-")
	p := &perplexityProvider{h: h, key: key, chat: chat || openRouter || model != ""}
	if !p.chat {
		if base == "" {
			base = perplexityBase
		}
		p.endpoint = joinEndpoint(base, "/search")
		return p
	}
	if base == "" {
		base = perplexityBase
		if openRouter {
			base = openRouterBase
		}
	}
	p.direct = !openRouter && !strings.Contains(base, "openrouter")
	p.model = model
	if p.model == "" {
		p.model = DefaultModels[ProviderPerplexity]
		if !p.direct {
			// OpenRouter names models by vendor.
			p.model = "perplexity/" + p.model
		}
	}
	p.endpoint = joinEndpoint(base, "/chat/completions")
	return p
}

func (p *perplexityProvider) Name() string { return ProviderPerplexity }

func (p *perplexityProvider) Search(ctx context.Context, q Query) (Found, error) {
	if p.chat {
		return p.ask(ctx, q)
	}
	body := map[string]any{"query": q.Text, "max_results": q.Count}
	if q.Freshness != "" {
		body["search_recency_filter"] = q.Freshness
	}
	if lang, _, _ := strings.Cut(q.Language, "-"); lang != "" {
		body["search_language_filter"] = []string{lang}
	}
	req, err := postJSON(ctx, p.endpoint, body)
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	var ans struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Results {
		l.add(r.Title, r.URL, r.Snippet)
	}
	return Found{Hits: l.hits}, nil
}

func (p *perplexityProvider) ask(ctx context.Context, q Query) (Found, error) {
	body := map[string]any{
		"model":    p.model,
		"messages": []map[string]string{{"role": "user", "content": q.Text}},
	}
	if p.direct && q.Freshness != "" {
		body["search_recency_filter"] = q.Freshness
	}
	req, err := postJSON(ctx, p.endpoint, body)
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	var ans struct {
		Choices []struct {
			Message struct {
				Content     string `json:"content"`
				Annotations []struct {
					Type        string `json:"type"`
					URLCitation struct {
						URL     string `json:"url"`
						Title   string `json:"title"`
						Content string `json:"content"`
					} `json:"url_citation"`
				} `json:"annotations"`
			} `json:"message"`
		} `json:"choices"`
		Citations     []string `json:"citations"`
		SearchResults []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Snippet string `json:"snippet"`
		} `json:"search_results"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	if len(ans.Choices) == 0 {
		return Found{}, errors.New("answer has no choices")
	}
	msg := ans.Choices[0].Message
	// Perplexity lists its sources in search_results (with titles) and
	// citations (bare URLs); OpenRouter in the message's annotations.
	l := citedList{hitList: hitList{q: q, source: p.Name()}}
	for _, r := range ans.SearchResults {
		l.cite(r.Title, r.URL, r.Snippet)
	}
	for _, u := range ans.Citations {
		l.cite("", u, "")
	}
	for _, a := range msg.Annotations {
		if a.Type == "url_citation" {
			l.cite(a.URLCitation.Title, a.URLCitation.URL, a.URLCitation.Content)
		}
	}
	return Found{Hits: l.hits, Answer: cleanAnswer(msg.Content), Source: p.Name()}, nil
}

// citedList is a hitList that lists each cited URL once.
type citedList struct {
	hitList
	seen map[string]bool
}

func (l *citedList) cite(title, link, snippet string) {
	link = strings.TrimSpace(link)
	if l.seen[link] {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[link] = true
	l.add(title, link, snippet)
}

// exaProvider asks the Exa search API, with highlights as snippets.
type exaProvider struct {
	h             httpDoer
	key, endpoint string
}

func (p *exaProvider) Name() string { return ProviderExa }

func (p *exaProvider) Search(ctx context.Context, q Query) (Found, error) {
	body := map[string]any{
		"query":      q.Text,
		"numResults": q.Count,
		"type":       "auto",
		"contents":   map[string]any{"highlights": true},
	}
	if t := since(q.Freshness, time.Now()); !t.IsZero() {
		body["startPublishedDate"] = t.UTC().Format(time.RFC3339)
	}
	req, err := postJSON(ctx, p.endpoint, body)
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("x-api-key", p.key)
	var ans struct {
		Results []struct {
			Title      string   `json:"title"`
			URL        string   `json:"url"`
			Highlights []string `json:"highlights"`
			Summary    string   `json:"summary"`
			Text       string   `json:"text"`
		} `json:"results"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Results {
		// The first of highlights, summary and text that Exa sent.
		snippet := strings.Join(r.Highlights, " … ")
		if snippet == "" {
			snippet = r.Summary
		}
		if snippet == "" {
			snippet = r.Text
		}
		l.add(r.Title, r.URL, snippet)
	}
	return Found{Hits: l.hits}, nil
}

// firecrawlProvider asks Firecrawl's v2 search API for web results.
type firecrawlProvider struct {
	h             httpDoer
	key, endpoint string
}

// newFirecrawl takes base, the hosted API's or a self-hosted
// instance's URL. As in OpenClaw, a self-hosted one must be on a
// private or local host, so that a misconfigured baseUrl does not hand
// the key to some public server.
func newFirecrawl(h httpDoer, key, base string, defaultClient bool, network netguard.Policy) (*firecrawlProvider, error) {
	if base == "" {
		base = firecrawlBase
	}
	endpoint := joinEndpoint(base, "/v2/search")
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("firecrawl base URL %q is not an http(s) URL", base)
	}
	p := &firecrawlProvider{h: h, key: key, endpoint: endpoint}
	if strings.EqualFold(u.Hostname(), "api.firecrawl.dev") {
		if u.Scheme != "https" {
			return nil, fmt.Errorf("firecrawl base URL %q: the hosted API takes https only", base)
		}
		return p, nil
	}
	if !localHost(u.Hostname()) {
		return nil, fmt.Errorf("firecrawl base URL %q: a self-hosted Firecrawl must be on a private or local host", base)
	}
	if defaultClient {
		p.h = admitting(u.Hostname(), network)
	}
	return p, nil
}

func (p *firecrawlProvider) Name() string { return ProviderFirecrawl }

func (p *firecrawlProvider) Search(ctx context.Context, q Query) (Found, error) {
	body := map[string]any{"query": q.Text, "limit": q.Count}
	if q.Freshness != "" {
		body["tbs"] = "qdr:" + q.Freshness[:1]
	}
	req, err := postJSON(ctx, p.endpoint, body)
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	var ans struct {
		Success bool `json:"success"`
		Data    struct {
			Web []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"web"`
		} `json:"data"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	if !ans.Success {
		return Found{}, errors.New("answer says success: false")
	}
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Data.Web {
		l.add(r.Title, r.URL, r.Description)
	}
	return Found{Hits: l.hits}, nil
}

// ollamaProvider asks Ollama's web search: a local daemon signs the
// request for Ollama's cloud, or the hosted API takes the key itself.
type ollamaProvider struct {
	local httpDoer // reaches the configured host, internal or not
	cloud httpDoer // the guarded client, public addresses only
	key   string
	// endpoints are tried in turn: on a local daemon its experimental
	// proxy path, then the plain one.
	endpoints []string
	hosted    bool
	// cloudEndpoint is the hosted API the key is tried against when the
	// local daemon fails; the key never goes to the local host.
	cloudEndpoint string
}

// newOllama reads base, the daemon's (or the hosted API's) URL. The
// operator chose that host, so the default client may reach it even
// when it is internal; nothing a model says can change it.
func newOllama(h httpDoer, key, base string, defaultClient bool, network netguard.Policy) (*ollamaProvider, error) {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("ollama base URL %q is not an http(s) URL", base)
	}
	p := &ollamaProvider{local: h, cloud: h, key: key, cloudEndpoint: ollamaCloudBase + "/api/web_search"}
	if strings.EqualFold(u.Hostname(), "ollama.com") {
		if key == "" {
			return nil, errors.New("no API key (OLLAMA_API_KEY) for Ollama's hosted search")
		}
		p.hosted = true
		p.endpoints = []string{base + "/api/web_search"}
		return p, nil
	}
	p.endpoints = []string{base + "/api/experimental/web_search", base + "/api/web_search"}
	if defaultClient {
		p.local = admitting(u.Hostname(), network)
	}
	return p, nil
}

// admitting is a guarded client that may also reach host, internal or
// not: the operator configured it, and no tool argument can change it.
func admitting(host string, network netguard.Policy) httpDoer {
	pol := network
	pol.Allow = append([]netip.Prefix(nil), network.Allow...)
	pol.AllowHosts = append([]string(nil), network.AllowHosts...)
	if a, err := netip.ParseAddr(host); err == nil {
		pol.Allow = append(pol.Allow, netip.PrefixFrom(a, a.BitLen()))
	} else {
		pol.AllowHosts = append(pol.AllowHosts, host)
	}
	return httpDoer{client: netguard.NewClient(netguard.Options{Policy: pol})}
}

// localHost reports whether host names a private or local machine by
// its form alone: a private or loopback address, localhost, or a name
// under .local, .internal or .localhost.
func localHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if a, err := netip.ParseAddr(host); err == nil {
		return a.IsPrivate() || a.IsLoopback()
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") || strings.HasSuffix(host, ".internal")
}

func (p *ollamaProvider) Name() string { return ProviderOllama }

func (p *ollamaProvider) Search(ctx context.Context, q Query) (Found, error) {
	var errs []string
	for _, ep := range p.endpoints {
		f, err := p.ask(ctx, q, ep, p.hosted)
		if err == nil {
			return f, nil
		}
		errs = append(errs, err.Error())
	}
	if !p.hosted && p.key != "" {
		f, err := p.ask(ctx, q, p.cloudEndpoint, true)
		if err == nil {
			return f, nil
		}
		errs = append(errs, "hosted: "+err.Error())
	}
	return Found{}, errors.New(strings.Join(errs, "; then "))
}

func (p *ollamaProvider) ask(ctx context.Context, q Query, endpoint string, hosted bool) (Found, error) {
	req, err := postJSON(ctx, endpoint, map[string]any{"query": q.Text, "max_results": q.Count})
	if err != nil {
		return Found{}, err
	}
	h := p.local
	if hosted {
		h = p.cloud
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	var ans struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := h.json(req, &ans); err != nil {
		return Found{}, err
	}
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Results {
		l.add(r.Title, r.URL, r.Content)
	}
	return Found{Hits: l.hits}, nil
}

// geminiProvider asks a Gemini model grounded in Google Search; its
// answer comes with the pages it drew on.
type geminiProvider struct {
	h                httpDoer
	key, base, model string
}

func (p *geminiProvider) Name() string { return ProviderGemini }

func (p *geminiProvider) Search(ctx context.Context, q Query) (Found, error) {
	base := p.base
	if base == "https://generativelanguage.googleapis.com" {
		base += "/v1beta"
	}
	model := strings.TrimPrefix(p.model, "models/")
	endpoint := joinEndpoint(base, "/models/"+url.PathEscape(model)+":generateContent")
	prompt := q.Text
	search := map[string]any{}
	switch q.Freshness {
	case "":
	case "day":
		// Grounding's time filter is too coarse for a day; ask instead.
		prompt += "\n\nOnly use sources published in the last 24 hours."
	default:
		now := time.Now().UTC()
		search["timeRangeFilter"] = map[string]string{
			"startTime": since(q.Freshness, now).Format(time.RFC3339),
			"endTime":   now.Format(time.RFC3339),
		}
	}
	body := map[string]any{
		"contents": []map[string]any{{"role": "user", "parts": []map[string]string{{"text": prompt}}}},
		"tools":    []map[string]any{{"googleSearch": search}},
	}
	req, err := postJSON(ctx, endpoint, body)
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("x-goog-api-key", p.key)
	var ans struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
			GroundingMetadata struct {
				GroundingChunks []struct {
					Web struct {
						URI   string `json:"uri"`
						Title string `json:"title"`
					} `json:"web"`
				} `json:"groundingChunks"`
			} `json:"groundingMetadata"`
		} `json:"candidates"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	if len(ans.Candidates) == 0 {
		return Found{}, errors.New("answer has no candidates")
	}
	c := ans.Candidates[0]
	var text strings.Builder
	for _, part := range c.Content.Parts {
		text.WriteString(part.Text)
	}
	chunks := c.GroundingMetadata.GroundingChunks
	links := make([]string, len(chunks))
	var wg sync.WaitGroup
	for i, ch := range chunks {
		if i >= q.Count {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			links[i] = p.resolve(ctx, ch.Web.URI)
		}()
	}
	wg.Wait()
	l := citedList{hitList: hitList{q: q, source: p.Name()}}
	for i, ch := range chunks {
		// Grounding titles are usually the site's domain; still better
		// than none.
		l.cite(ch.Web.Title, links[i], "")
	}
	return Found{Hits: l.hits, Answer: cleanAnswer(text.String()), Source: p.Name()}, nil
}

// resolve turns a grounding redirect link into the page it points to,
// reading the redirect's Location without following it, so that the
// model gets a URL it can fetch and cite. Other links, and redirects
// that fail, are kept as they are.
func (p *geminiProvider) resolve(ctx context.Context, link string) string {
	u, err := url.Parse(link)
	if err != nil || !strings.EqualFold(u.Hostname(), geminiRedirectHost) {
		return link
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, link, nil)
	if err != nil {
		return link
	}
	req.Header.Set("User-Agent", searchUserAgent)
	c := *p.h.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return link
	}
	resp.Body.Close()
	if loc, err := resp.Location(); err == nil && (loc.Scheme == "https" || loc.Scheme == "http") {
		return loc.String()
	}
	return link
}

// grokProvider asks a Grok model through xAI's Responses API with its
// server-side web search; the answer's url_citation annotations and the
// response's citations list are the pages it drew on.
type grokProvider struct {
	h                    httpDoer
	key, endpoint, model string
}

func (p *grokProvider) Name() string { return ProviderGrok }

func (p *grokProvider) Search(ctx context.Context, q Query) (Found, error) {
	body := map[string]any{
		"model": p.model,
		"input": []map[string]string{{"role": "user", "content": q.Text}},
		"tools": []map[string]string{{"type": "web_search"}},
	}
	req, err := postJSON(ctx, p.endpoint, body)
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	var ans struct {
		Output []struct {
			Type    string `json:"type"`
			Content []struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				Annotations []struct {
					Type  string `json:"type"`
					URL   string `json:"url"`
					Title string `json:"title"`
				} `json:"annotations"`
			} `json:"content"`
		} `json:"output"`
		Citations []string `json:"citations"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	var text strings.Builder
	l := citedList{hitList: hitList{q: q, source: p.Name()}}
	// Annotations come first: they carry titles and point at what the
	// answer says; citations add what the search saw besides.
	for _, o := range ans.Output {
		if o.Type != "message" {
			continue // the search calls themselves
		}
		for _, c := range o.Content {
			if c.Type != "output_text" {
				continue
			}
			text.WriteString(c.Text)
			for _, a := range c.Annotations {
				if a.Type == "url_citation" {
					l.cite(a.Title, a.URL, "")
				}
			}
		}
	}
	for _, u := range ans.Citations {
		l.cite("", u, "")
	}
	if text.Len() == 0 {
		return Found{}, errors.New("answer has no output text")
	}
	return Found{Hits: l.hits, Answer: cleanAnswer(text.String()), Source: p.Name()}, nil
}

// kimiProvider asks a Kimi model through Moonshot's chat completions
// with its built-in $web_search: the model first calls the tool, the
// caller hands the call's arguments back as the tool's result (Moonshot
// runs the search on its side), and the model then answers.
type kimiProvider struct {
	h                    httpDoer
	key, endpoint, model string
}

// kimiMaxRounds bounds the tool-call exchange; Moonshot's model usually
// searches once or twice before it answers.
const kimiMaxRounds = 4

// errKimiUngrounded is returned when Kimi answers without searching:
// such text is the model's memory, not a search result.
var errKimiUngrounded = errors.New("kimi answered without searching the web")

func (p *kimiProvider) Name() string { return ProviderKimi }

type kimiMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []kimiToolCall `json:"tool_calls,omitempty"`
}

type kimiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (p *kimiProvider) Search(ctx context.Context, q Query) (Found, error) {
	messages := []kimiMessage{{Role: "user", Content: q.Text}}
	searched := false
	for range kimiMaxRounds {
		req, err := postJSON(ctx, p.endpoint, map[string]any{
			"model":    p.model,
			"messages": messages,
			"tools":    []map[string]any{{"type": "builtin_function", "function": map[string]string{"name": "$web_search"}}},
		})
		if err != nil {
			return Found{}, err
		}
		req.Header.Set("Authorization", "Bearer "+p.key)
		var ans struct {
			Choices []struct {
				FinishReason string      `json:"finish_reason"`
				Message      kimiMessage `json:"message"`
			} `json:"choices"`
			SearchResults []struct {
				Title   string `json:"title"`
				URL     string `json:"url"`
				Snippet string `json:"snippet"`
			} `json:"search_results"`
		}
		if err := p.h.json(req, &ans); err != nil {
			return Found{}, err
		}
		if len(ans.Choices) == 0 {
			return Found{}, errors.New("answer has no choices")
		}
		c := ans.Choices[0]
		if c.FinishReason == "tool_calls" && len(c.Message.ToolCalls) > 0 {
			messages = append(messages, c.Message)
			for _, tc := range c.Message.ToolCalls {
				if tc.Function.Name != "$web_search" {
					return Found{}, fmt.Errorf("model called %q, not $web_search", tc.Function.Name)
				}
				searched = true
				messages = append(messages, kimiMessage{Role: "tool", ToolCallID: tc.ID, Name: tc.Function.Name, Content: tc.Function.Arguments})
			}
			continue
		}
		l := citedList{hitList: hitList{q: q, source: p.Name()}}
		for _, r := range ans.SearchResults {
			l.cite(r.Title, r.URL, r.Snippet)
		}
		// Moonshot cites inline, as links in the answer's text.
		for _, u := range linksIn(c.Message.Content) {
			l.cite("", u, "")
		}
		if !searched && len(l.hits) == 0 {
			return Found{}, errKimiUngrounded
		}
		return Found{Hits: l.hits, Answer: cleanAnswer(c.Message.Content), Source: p.Name()}, nil
	}
	return Found{}, fmt.Errorf("no answer after %d rounds of searching", kimiMaxRounds)
}

// linksIn lists the http(s) URLs in text, in order, trimmed of the
// punctuation and brackets that surround a link in prose or Markdown.
func linksIn(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\n' || r == '\t' || r == '(' || r == ')' || r == '<' || r == '>' || r == '[' || r == ']' || r == '"'
	}) {
		if i := strings.Index(f, "http"); i >= 0 {
			u := strings.TrimRight(f[i:], ".,;:!?'")
			if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
				out = append(out, u)
			}
		}
	}
	return out
}

// minimaxProvider asks MiniMax's Token Plan search API.
type minimaxProvider struct {
	h             httpDoer
	key, endpoint string
}

func (p *minimaxProvider) Name() string { return ProviderMiniMax }

func (p *minimaxProvider) Search(ctx context.Context, q Query) (Found, error) {
	req, err := postJSON(ctx, p.endpoint, map[string]any{"q": q.Text})
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	var ans struct {
		Organic []struct {
			Title   string `json:"title"`
			Link    string `json:"link"`
			Snippet string `json:"snippet"`
		} `json:"organic"`
		BaseResp struct {
			StatusCode int    `json:"status_code"`
			StatusMsg  string `json:"status_msg"`
		} `json:"base_resp"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	// MiniMax reports failures such as a bad key inside a 200 answer.
	if ans.BaseResp.StatusCode != 0 {
		// The message is the remote's words; should it quote the key
		// back, the key must still not reach the model.
		msg := strings.ReplaceAll(ans.BaseResp.StatusMsg, p.key, "[key]")
		return Found{}, fmt.Errorf("MiniMax status %d: %s", ans.BaseResp.StatusCode, truncateRunes(plainText(msg), 200))
	}
	// The API takes no count; the list is cut to the one asked for.
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Organic {
		l.add(r.Title, r.Link, r.Snippet)
	}
	return Found{Hits: l.hits}, nil
}
