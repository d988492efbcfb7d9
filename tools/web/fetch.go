// Package web holds the web tools: web_fetch reads a URL as markdown or
// text through the SSRF guard in tools/netguard, and web_search asks a
// chain of search providers, falling through to the next on failure.
package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// FetchConfig configures web_fetch (tools.web.fetch).
type FetchConfig struct {
	// MaxCharsCap is the most characters one call returns, whatever
	// maxChars asks for. Default: 50000.
	MaxCharsCap int
	// Timeout bounds one fetch, redirects included. Default: 30s.
	Timeout time.Duration
	// MaxBodyBytes is how much of a response body is read; the rest is
	// dropped with a note. Default: 5 MiB.
	MaxBodyBytes int64
	// CacheTTL is how long a page is reused for the same URL and mode.
	// Default: 15m; negative turns the cache off.
	CacheTTL time.Duration
	// UserAgent is sent with each request. Default: "openclaw-go web_fetch".
	UserAgent string
	// Network says which internal addresses may be fetched. Default:
	// none (loopback, private, link-local, metadata etc. are refused).
	Network netguard.Policy
	// DefaultMaxChars is what a call that names no maxChars gets; at
	// most MaxCharsCap. Default: MaxCharsCap.
	DefaultMaxChars int
	// MaxRedirects is how many redirects one fetch follows; negative
	// follows none. Default (0): DefaultMaxRedirects.
	MaxRedirects int
	// Headers are extra request headers (tools.web.fetch.headers), sent
	// to the URL asked for; unusable entries are dropped (see
	// operatorHeaders). Their values are secrets: never logged.
	Headers map[string]string
	// Logger reports dropped headers, by name. Default: discard.
	Logger *slog.Logger
	// Resolver looks host names up for the guard. Default: the system's.
	Resolver netguard.Resolver
}

// Defaults of FetchConfig.
const (
	DefaultMaxCharsCap  = 50000
	DefaultFetchTimeout = 30 * time.Second
	DefaultMaxBodyBytes = 5 << 20
	DefaultCacheTTL     = 15 * time.Minute
	DefaultUserAgent    = "openclaw-go web_fetch"
	// DefaultMaxRedirects is OpenClaw's tools.web.fetch.maxRedirects.
	DefaultMaxRedirects = 3
	// minMaxChars is the fewest characters a call may ask for, as in
	// OpenClaw: a smaller maxChars is raised to it.
	minMaxChars     = 100
	maxCacheEntries = 128
)

func (c FetchConfig) withDefaults() FetchConfig {
	if c.MaxCharsCap <= 0 {
		c.MaxCharsCap = DefaultMaxCharsCap
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultFetchTimeout
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.CacheTTL == 0 {
		c.CacheTTL = DefaultCacheTTL
	}
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.DefaultMaxChars <= 0 || c.DefaultMaxChars > c.MaxCharsCap {
		c.DefaultMaxChars = c.MaxCharsCap
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

type fetchArgs struct {
	URL         string `json:"url" jsonschema:"description=The http or https URL to read."`
	ExtractMode string `json:"extractMode,omitempty" jsonschema:"enum=markdown,enum=text,description=How to render HTML: markdown (default) keeps headings and links; text keeps only the words."`
	MaxChars    int    `json:"maxChars,omitempty" jsonschema:"minimum=1,description=Most characters to return; capped by the configured limit."`
}

// FetchTool returns the web_fetch tool. It may be called concurrently;
// its cache is shared by all calls of the returned tool.
func FetchTool(cfg FetchConfig) tools.Tool {
	t, _ := newFetchTool(cfg)
	return t
}

func newFetchTool(cfg FetchConfig) (tools.Tool, *fetcher) {
	cfg = cfg.withDefaults()
	f := &fetcher{
		cfg:     cfg,
		client:  netguard.NewClient(netguard.Options{Policy: cfg.Network, Resolver: cfg.Resolver, Timeout: cfg.Timeout, MaxRedirects: cfg.MaxRedirects}),
		cache:   newTTLCache[page](cfg.CacheTTL),
		headers: operatorHeaders(cfg.Headers, cfg.Logger),
	}
	if len(f.headers) > 0 {
		guarded := f.client.CheckRedirect
		f.client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if err := guarded(req, via); err != nil {
				return err
			}
			// The client copies the first request's headers onto every
			// hop, so once any hop has left the first origin, the rest
			// of the chain goes without them.
			first := netguard.Origin(via[0].URL)
			crossed := netguard.Origin(req.URL) != first
			for _, v := range via {
				crossed = crossed || netguard.Origin(v.URL) != first
			}
			if crossed {
				for name := range f.headers {
					if !slices.Contains(crossOriginSafeHeaders, name) {
						req.Header.Del(name)
					}
				}
			}
			return nil
		}
	}
	return tools.NewTyped(tools.Spec{
		Name:  "web_fetch",
		Label: "Web Fetch",
		Description: fmt.Sprintf("Fetch a web page or document by URL and return its readable content as markdown or plain text "+
			"(HTML is reduced to its main text; plain text and JSON pass through). At most %d characters; "+
			"results are cached for %s. %s", cfg.MaxCharsCap, cfg.CacheTTL, networkNote(cfg.Network)),
		Tier:    tools.TierCore,
		Source:  tools.SourceCore,
		Groups:  []string{"group:web"},
		Timeout: tools.TimeoutFast,
	}, f.call), f
}

// networkNote tells the model which addresses it may not fetch, as the
// configured policy has it.
func networkNote(p netguard.Policy) string {
	if len(p.Allow) > 0 || len(p.AllowHosts) > 0 {
		return "Internal addresses are refused except those the operator allowed."
	}
	return "Internal and private network addresses are refused."
}

type page struct {
	url, contentType, title, text string
	bodyCut                       bool
}

type fetcher struct {
	cfg     FetchConfig
	client  *http.Client
	cache   *ttlCache[page]
	headers http.Header // the usable tools.web.fetch.headers
}

func (f *fetcher) call(ctx context.Context, c tools.Call, a fetchArgs) (tools.Result, error) {
	mode := a.ExtractMode
	switch mode {
	case "":
		mode = ModeMarkdown
	case ModeMarkdown, ModeText:
	default:
		return tools.Result{}, fmt.Errorf("extractMode %q: want markdown or text", a.ExtractMode)
	}
	if a.MaxChars < 0 {
		return tools.Result{}, fmt.Errorf("maxChars %d: must be positive", a.MaxChars)
	}
	maxChars := f.cfg.DefaultMaxChars
	if a.MaxChars > 0 {
		maxChars = min(max(minMaxChars, a.MaxChars), f.cfg.MaxCharsCap)
	}
	u, err := url.Parse(strings.TrimSpace(a.URL))
	if err != nil {
		return tools.Result{}, fmt.Errorf("parse url: %w", err)
	}
	if err := f.cfg.Network.CheckURL(u); err != nil {
		return tools.Result{}, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	if u.User != nil {
		return tools.Result{}, fmt.Errorf("fetch %s: credentials in URLs are not sent", u.Redacted())
	}
	u.Fragment = ""

	key := u.String() + "\x00" + mode + headerCacheKey(f.headers)
	p, cached := f.cache.get(key)
	if !cached {
		p, err = f.fetch(ctx, u, mode)
		if err != nil {
			return tools.Result{}, err
		}
		f.cache.put(key, p)
	}
	return tools.Result{Text: renderWithin(p, maxChars, f.cfg, cached, c.MaxChars)}, nil
}

// renderWithin renders p in at most limit characters (0: no limit): the
// page text gives up what the frame and notes need, and the note names
// the most one answer can show, so it survives the runner's cap.
func renderWithin(p page, maxChars int, cfg FetchConfig, cached bool, limit int) string {
	text := render(p, maxChars, cfg, cached)
	for range 4 {
		over := utf8.RuneCountInString(text) - limit
		if limit <= 0 || over <= 0 || maxChars == 0 {
			break
		}
		maxChars = max(0, maxChars-over-16) // the note's numbers may grow
		cfg.MaxCharsCap = min(cfg.MaxCharsCap, maxChars)
		text = render(p, maxChars, cfg, cached)
	}
	return text
}

func (f *fetcher) fetch(ctx context.Context, u *url.URL, mode string) (page, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return page{}, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	for name := range f.headers {
		req.Header.Set(name, f.headers.Get(name)) // a copy: requests run concurrently
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return page{}, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return page{}, fmt.Errorf("fetch %s: HTTP %s", final.Redacted(), resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBodyBytes+1))
	if err != nil {
		return page{}, fmt.Errorf("fetch %s: read body: %w", final.Redacted(), err)
	}
	p := page{url: final.Redacted()}
	if int64(len(body)) > f.cfg.MaxBodyBytes {
		body, p.bodyCut = body[:f.cfg.MaxBodyBytes], true
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	p.contentType = mt
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		title, text, err := extractHTML(bytes.NewReader(body), final, mode)
		if err != nil {
			return page{}, fmt.Errorf("fetch %s: read HTML: %w", final.Redacted(), err)
		}
		p.title, p.text = title, text
	case isText(mt):
		p.text = strings.TrimSpace(stripControl(strings.ToValidUTF8(string(body), "\uFFFD")))
	default:
		return page{}, fmt.Errorf("fetch %s: content type %s is binary (%d bytes read); web_fetch reads HTML, text and JSON only",
			final.Redacted(), mt, len(body))
	}
	return p, nil
}

func isText(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"),
		mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/x-ndjson", mt == "application/javascript",
		mt == "application/yaml", mt == "application/x-yaml", mt == "application/toml":
		return true
	}
	return false
}

// render states where the page came from, truncates it to maxChars and
// wraps it as untrusted content.
func render(p page, maxChars int, cfg FetchConfig, cached bool) string {
	text := p.text
	total := utf8.RuneCountInString(text)
	truncated := total > maxChars
	if truncated {
		text = truncateRunes(text, maxChars)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nContent-Type: %s\n", defuse(p.url), p.contentType)
	if cached {
		b.WriteString("Cached: yes\n")
	}
	if p.title != "" { // the title is the page's words too: inside the frame
		text = "Title: " + collapse(p.title) + "\n\n" + text
	}
	b.WriteString(wrapUntrusted(p.url, text))
	if truncated {
		fmt.Fprintf(&b, "\n[Truncated: showing the first %d of %d characters; maxChars can go up to %d.]", maxChars, total, cfg.MaxCharsCap)
	}
	if p.bodyCut {
		fmt.Fprintf(&b, "\n[The response was larger than %d bytes; only the first %d bytes were read.]", cfg.MaxBodyBytes, cfg.MaxBodyBytes)
	}
	return b.String()
}

func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
