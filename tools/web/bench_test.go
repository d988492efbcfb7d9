package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// onePageMB is an article of about 1 MB: headings, paragraphs with links,
// a list and a table, repeated, inside the navigation and scripts that
// extraction must drop.
func onePageMB() []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Big page</title><script>var x = 1;</script></head><body><nav><a href=\"/\">Home</a></nav><article>")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "<h2>Section %d</h2><p>Paragraph %d with <a href=\"/p/%d\">a link</a> and <b>bold</b> words that go on for a while to look like prose.</p>", i, i, i)
		fmt.Fprintf(&b, "<ul><li>first %d</li><li>second</li></ul><table><tr><th>k</th><th>v</th></tr><tr><td>%d</td><td>x</td></tr></table>", i, i)
	}
	b.WriteString("</article><footer>bye</footer></body></html>")
	return []byte(b.String())
}

// BenchmarkFetch1MB fetches and extracts a 1 MB local page through the
// network guard, with the cache off so every iteration does the work.
// Run: go test -run '^$' -bench Fetch1MB ./tools/web/
func BenchmarkFetch1MB(b *testing.B) {
	page := onePageMB()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	for _, mode := range []string{"markdown", "text"} {
		b.Run(mode, func(b *testing.B) {
			tool := FetchTool(FetchConfig{Network: loopbackOK, CacheTTL: -1, MaxBodyBytes: 2 << 20})
			args, _ := json.Marshal(fetchArgs{URL: srv.URL + "/big", ExtractMode: mode})
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				res, err := tool.Call(context.Background(), tools.Call{Name: "web_fetch", Args: args})
				if err != nil {
					b.Fatal(err)
				}
				if !strings.Contains(res.Text, "Section 1") {
					b.Fatalf("extracted text lacks the article: %.200s", res.Text)
				}
			}
		})
	}
}
