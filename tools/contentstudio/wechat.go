package contentstudio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/openclaw-go/openclaw/tools"
)

// WeChatHost is the one host wechat_article_extract fetches from.
const WeChatHost = "mp.weixin.qq.com"

const (
	maxArticleBytes = 8 << 20
	maxArticleBody  = 100_000 // characters of body text kept
	maxImages       = 200
)

// Article is an extracted WeChat article.
type Article struct {
	URL    string   `json:"url"`
	Title  string   `json:"title"`
	Author string   `json:"author"`
	Time   string   `json:"time"`
	Body   string   `json:"body"`
	Images []string `json:"images"`
}

// ExtractArgs are wechat_article_extract's arguments.
type ExtractArgs struct {
	URL string `json:"url" jsonschema:"description=An article address on mp.weixin.qq.com"`
}

// checkArticleURL allows https://mp.weixin.qq.com/… only: the tool is
// not a general fetcher a prompt-injected model could turn on the
// gateway's network.
func checkArticleURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", raw, err)
	}
	if u.Scheme != "https" || !strings.EqualFold(u.Hostname(), WeChatHost) || u.Port() != "" || u.User != nil {
		return nil, fmt.Errorf("url %q: only https://%s/ articles are read", raw, WeChatHost)
	}
	return u, nil
}

// extractor fetches and cleans articles.
type extractor struct {
	client *http.Client
}

func newExtractor(rt http.RoundTripper) *extractor {
	return &extractor{client: &http.Client{
		Transport: rt,
		Timeout:   30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			// A redirect off the host is refused like a first request.
			_, err := checkArticleURL(req.URL.String())
			return err
		},
	}}
}

func (e *extractor) fetch(ctx context.Context, raw string) (Article, error) {
	u, err := checkArticleURL(raw)
	if err != nil {
		return Article{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Article{}, err
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; openclaw-go)")
	res, err := e.client.Do(req)
	if err != nil {
		return Article{}, fmt.Errorf("fetch the article: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Article{}, fmt.Errorf("fetch the article: HTTP %d", res.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxArticleBytes+1))
	if err != nil {
		return Article{}, fmt.Errorf("read the article: %w", err)
	}
	if len(body) > maxArticleBytes {
		return Article{}, errors.New("the article page is over 8 MB")
	}
	a, err := ParseArticle(body)
	if err != nil {
		return Article{}, err
	}
	a.URL = u.String()
	return a, nil
}

var (
	publishTime = regexp.MustCompile(`var\s+(?:ct|publish_time)\s*=\s*"(\d{9,11})"`)
	spaces      = regexp.MustCompile(`[ \t\x{00a0}\x{3000}]+`)
	blankLines  = regexp.MustCompile(`\n{3,}`)
)

// ParseArticle reads a WeChat article page: the title (#activity-name or
// og:title), the account (#js_name or the author meta), the publish time
// (the page script's ct), the text of #js_content and its images
// (data-src, then src).
func ParseArticle(page []byte) (Article, error) {
	doc, err := html.Parse(strings.NewReader(string(page)))
	if err != nil {
		return Article{}, fmt.Errorf("parse the article: %w", err)
	}
	a := Article{Images: []string{}}
	var content *html.Node
	var meta = map[string]string{}
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if depth > 512 {
			return // a page nested this deep is not an article
		}
		if n.Type == html.ElementNode {
			switch n.Data {
			case "meta":
				k := attr(n, "property")
				if k == "" {
					k = attr(n, "name")
				}
				if k != "" {
					meta[k] = attr(n, "content")
				}
			}
			switch attr(n, "id") {
			case "activity-name":
				a.Title = textOf(n)
			case "js_name":
				a.Author = textOf(n)
			case "js_content":
				if content == nil {
					content = n
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	if a.Title == "" {
		a.Title = meta["og:title"]
	}
	if a.Author == "" {
		a.Author = meta["author"]
	}
	if m := publishTime.FindSubmatch(page); m != nil {
		var sec int64
		fmt.Sscan(string(m[1]), &sec)
		a.Time = time.Unix(sec, 0).UTC().Format(time.RFC3339)
	}
	if content == nil {
		return Article{}, errors.New("no article body (#js_content) on the page: not a WeChat article, or it was taken down")
	}
	var b strings.Builder
	var body func(n *html.Node, depth int)
	body = func(n *html.Node, depth int) {
		if depth > 512 || b.Len() > maxArticleBody*4 {
			return
		}
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
		case html.ElementNode:
			switch n.Data {
			case "script", "style":
				return
			case "img":
				src := attr(n, "data-src")
				if src == "" {
					src = attr(n, "src")
				}
				if (strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://")) && len(a.Images) < maxImages {
					a.Images = append(a.Images, src)
				}
			case "br":
				b.WriteByte('\n')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			body(c, depth+1)
		}
		if n.Type == html.ElementNode {
			switch n.Data {
			case "p", "section", "div", "h1", "h2", "h3", "h4", "li", "blockquote":
				b.WriteByte('\n')
			}
		}
	}
	body(content, 0)
	text := spaces.ReplaceAllString(b.String(), " ")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	text = strings.TrimSpace(blankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
	if r := []rune(text); len(r) > maxArticleBody {
		text = string(r[:maxArticleBody]) + "\n[cut at 100,000 characters]"
	}
	a.Body = text
	return a, nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return strings.TrimSpace(spaces.ReplaceAllString(b.String(), " "))
}

func extractTool(e *extractor) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "wechat_article_extract", Label: "WeChat article",
		Description: "Read a WeChat Official Account article (https://mp.weixin.qq.com/…) into {title, author, time, body, images}. Other hosts are refused.",
		Source:      tools.SourceCore, Groups: []string{"group:mateclaw"}, Timeout: tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a ExtractArgs) (tools.Result, error) {
		art, err := e.fetch(ctx, a.URL)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: tools.EncodeJSON(art)}, nil
	})
}
