package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ddgProvider reads DuckDuckGo's HTML results page; it needs no key.
// DuckDuckGo answers a suspected bot with 202 and a challenge page,
// which counts as a failure so that the chain moves on.
type ddgProvider struct {
	h        httpDoer
	endpoint string
	region   string // kl when the call names no region of its own
}

func (p *ddgProvider) Name() string { return ProviderDuckDuckGo }

func (p *ddgProvider) Search(ctx context.Context, q Query) (Found, error) {
	form := url.Values{"q": {q.Text}}
	if q.Freshness != "" {
		form.Set("df", q.Freshness[:1])
	}
	// DuckDuckGo takes a region-language pair ("de-de", "us-en"); a bare
	// language code has no region to pair with and is left out, and the
	// configured region stands in.
	if strings.Contains(q.Language, "-") {
		form.Set("kl", q.Language)
	} else if p.region != "" {
		form.Set("kl", p.region)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Found{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	body, err := p.h.do(req)
	if err != nil {
		return Found{}, err
	}
	hits, err := parseDDG(body, q, p.Name())
	if err != nil {
		return Found{}, fmt.Errorf("read results page: %w", err)
	}
	return Found{Hits: hits}, nil
}

// parseDDG picks the organic results (div.result, ads excluded) from a
// DuckDuckGo HTML results page.
func parseDDG(page []byte, q Query, source string) ([]Hit, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, err
	}
	l := hitList{q: q, source: source}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && hasClass(n, "result") {
			if !hasClass(n, "result--ad") {
				if a := findClass(n, "result__a"); a != nil {
					snippet := ""
					if s := findClass(n, "result__snippet"); s != nil {
						snippet = textOf(s)
					}
					l.add(textOf(a), ddgTarget(attr(a, "href")), snippet)
				}
			}
			return
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(doc)
	return l.hits, nil
}

// ddgTarget undoes DuckDuckGo's click-through redirect
// (//duckduckgo.com/l/?uddg=<target>&rut=…).
func ddgTarget(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if strings.HasPrefix(u.Path, "/l/") {
		if t := u.Query().Get("uddg"); t != "" {
			return t
		}
	}
	return href
}

func hasClass(n *html.Node, class string) bool {
	return slices.Contains(strings.Fields(attr(n, "class")), class)
}

func findClass(n *html.Node, class string) *html.Node {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type != html.ElementNode || ch.DataAtom == atom.Script {
			continue
		}
		if hasClass(ch, class) {
			return ch
		}
		if f := findClass(ch, class); f != nil {
			return f
		}
	}
	return nil
}
