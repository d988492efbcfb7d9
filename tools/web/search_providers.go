package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// Public endpoints of the providers.
const (
	braveEndpoint  = "https://api.search.brave.com/res/v1/web/search"
	tavilyEndpoint = "https://api.tavily.com/search"
	serperEndpoint = "https://google.serper.dev/search"
	ddgEndpoint    = "https://html.duckduckgo.com/html/"
)

var (
	_ searchProvider = (*braveProvider)(nil)
	_ searchProvider = (*tavilyProvider)(nil)
	_ searchProvider = (*serperProvider)(nil)
	_ searchProvider = (*searxngProvider)(nil)
	_ searchProvider = (*ddgProvider)(nil)
)

// httpDoer sends provider requests and reads their answers. Its errors
// carry the status but never the request's headers or the response
// body, so that keys and remote text stay out of them.
type httpDoer struct{ client *http.Client }

func (h httpDoer) do(req *http.Request) ([]byte, error) {
	req.Header.Set("User-Agent", searchUserAgent)
	resp, err := h.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("request: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, fmt.Errorf("HTTP %s: %w", resp.Status, errRateLimited)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchBodyBytes))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	return body, nil
}

func (h httpDoer) json(req *http.Request, out any) error {
	req.Header.Set("Accept", "application/json")
	body, err := h.do(req)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

func postJSON(ctx context.Context, endpoint string, v any) (*http.Request, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// hits gathers cleaned results up to q.Count, dropping those without a
// web URL or a title.
type hitList struct {
	q      Query
	source string
	hits   []Hit
}

func (l *hitList) add(title, link, snippet string) {
	if len(l.hits) >= l.q.Count {
		return
	}
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	title = truncateRunes(plainText(title), 200)
	if title == "" {
		title = u.Host
	}
	l.hits = append(l.hits, Hit{
		Title:   title,
		URL:     u.String(),
		Snippet: truncateRunes(plainText(snippet), 500),
		Source:  l.source,
	})
}

// plainText drops HTML tags (providers mark matches with <b> or
// <strong>), decodes entities and folds white space.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return collapse(stripControl(s))
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return collapse(stripControl(b.String()))
		case html.TextToken:
			b.Write(z.Text())
		}
	}
}

// braveProvider asks the Brave Search API.
type braveProvider struct {
	h             httpDoer
	key, endpoint string
}

func (p *braveProvider) Name() string { return ProviderBrave }

func (p *braveProvider) Search(ctx context.Context, q Query) (Found, error) {
	v := url.Values{"q": {q.Text}, "count": {strconv.Itoa(q.Count)}}
	if f := map[string]string{"day": "pd", "week": "pw", "month": "pm", "year": "py"}[q.Freshness]; f != "" {
		v.Set("freshness", f)
	}
	if q.Language != "" {
		v.Set("search_lang", q.Language)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.endpoint+"?"+v.Encode(), nil)
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("X-Subscription-Token", p.key)
	var ans struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Web.Results {
		l.add(r.Title, r.URL, r.Description)
	}
	return Found{Hits: l.hits}, nil
}

// tavilyProvider asks the Tavily search API.
type tavilyProvider struct {
	h             httpDoer
	key, endpoint string
}

func (p *tavilyProvider) Name() string { return ProviderTavily }

func (p *tavilyProvider) Search(ctx context.Context, q Query) (Found, error) {
	body := map[string]any{"query": q.Text, "max_results": q.Count, "search_depth": "basic"}
	if q.Freshness != "" {
		body["time_range"] = q.Freshness
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
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Results {
		l.add(r.Title, r.URL, r.Content)
	}
	return Found{Hits: l.hits}, nil
}

// serperProvider asks Google through the Serper API.
type serperProvider struct {
	h             httpDoer
	key, endpoint string
}

func (p *serperProvider) Name() string { return ProviderSerper }

func (p *serperProvider) Search(ctx context.Context, q Query) (Found, error) {
	body := map[string]any{"q": q.Text, "num": q.Count}
	if q.Freshness != "" {
		body["tbs"] = "qdr:" + q.Freshness[:1]
	}
	if q.Language != "" {
		body["hl"] = q.Language
	}
	req, err := postJSON(ctx, p.endpoint, body)
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("X-API-KEY", p.key)
	var ans struct {
		Organic []struct {
			Title   string `json:"title"`
			Link    string `json:"link"`
			Snippet string `json:"snippet"`
		} `json:"organic"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Organic {
		l.add(r.Title, r.Link, r.Snippet)
	}
	return Found{Hits: l.hits}, nil
}

// searxngProvider asks a SearXNG instance through its JSON output
// (which the instance must have enabled in its search.formats).
type searxngProvider struct {
	h    httpDoer
	base string
}

func (p *searxngProvider) Name() string { return ProviderSearXNG }

func (p *searxngProvider) Search(ctx context.Context, q Query) (Found, error) {
	v := url.Values{"q": {q.Text}, "format": {"json"}, "pageno": {"1"}}
	if q.Freshness != "" {
		v.Set("time_range", q.Freshness)
	}
	if q.Language != "" {
		v.Set("language", q.Language)
	}
	endpoint := strings.TrimRight(p.base, "/") + "/search?" + v.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return Found{}, err
	}
	var ans struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := p.h.json(req, &ans); err != nil {
		return Found{}, err
	}
	l := hitList{q: q, source: p.Name()}
	for _, r := range ans.Results {
		l.add(r.Title, r.URL, r.Content)
	}
	return Found{Hits: l.hits}, nil
}
