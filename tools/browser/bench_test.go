package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// The browser benchmarks answer the two in-process questions with
// a real headless Chromium: how long the tool's snapshot of a
// 2,000-element page takes, and how long one act round trip takes. Both
// go through the Tool's Call, as the gateway calls it. The gateway's RSS
// with a browser open is measured from outside by bench/browser.sh. See
// bench/README.md, "Browser", for the commands and what they gave.
// They are skipped with -short and when no Chromium is found.

// benchSections × (benchListItems interactive + benchListItems text
// elements) is the 2,000-element page.
const (
	benchSections  = 50
	benchListItems = 20
)

// bigPage is 50 sections, each a heading, a list of 20 items holding a
// link, a button or a text input (1,000 interactive elements), and 20
// text blocks (1,000 divs and paragraphs) nested in cards, plus a
// counter button and a textbox for the act benchmark.
func bigPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Big page</title></head><body>
<header><h1>Catalogue</h1><nav><button id="inc" onclick="document.getElementById('out').textContent = 'clicked ' + (window.n = (window.n || 0) + 1)">Increment</button>
<p id="out">none</p><label>Search <input id="q" type="text"></label></nav></header><main>
`)
	for s := range benchSections {
		fmt.Fprintf(&b, "<section><h2>Section %d</h2><ul>\n", s)
		for i := range benchListItems {
			k := s*benchListItems + i
			switch k % 3 {
			case 0:
				fmt.Fprintf(&b, `<li><a href="/item/%d">Item %d details</a></li>`, k, k)
			case 1:
				fmt.Fprintf(&b, `<li><button type="button">Add item %d</button></li>`, k)
			default:
				fmt.Fprintf(&b, `<li><input type="text" aria-label="Quantity %d" value="1"></li>`, k)
			}
			b.WriteByte('\n')
		}
		b.WriteString("</ul><div class=\"cards\">\n")
		for i := range benchListItems {
			k := s*benchListItems + i
			if i%2 == 0 {
				fmt.Fprintf(&b, `<div class="card">Card %d: a short description of the item, its price and stock.</div>`, k)
			} else {
				fmt.Fprintf(&b, `<p>Paragraph %d with some body text that a reader would skim.</p>`, k)
			}
			b.WriteByte('\n')
		}
		b.WriteString("</div></section>\n")
	}
	b.WriteString("</main></body></html>")
	return b.String()
}

// benchHarness is a Manager with one tab on the big page.
type benchHarness struct {
	m    *Manager
	tool tools.Tool
}

func newBenchHarness(b *testing.B) *benchHarness {
	b.Helper()
	if testing.Short() {
		b.Skip("starts Chromium; skipped with -short")
	}
	exe, err := FindChromium()
	if err != nil {
		if _, serr := os.Stat("/usr/bin/chromium"); serr != nil {
			b.Skip("no chromium binary found (install chromium to run the browser benchmarks)")
		}
		exe = "/usr/bin/chromium"
	}
	page := bigPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	b.Cleanup(srv.Close)
	ws := b.TempDir()
	m := NewManager(Config{
		Workspace: func(tools.Who) (string, error) { return ws, nil },
		StateDir:  b.TempDir(),
		ExecPath:  exe,
		Policy:    func() netguard.Policy { return loopback },
	})
	b.Cleanup(func() { m.Close() })
	h := &benchHarness{m: m, tool: m.Tool()}
	h.call(b, map[string]any{"action": "open", "url": srv.URL + "/"})
	if n, _ := strconv.Atoi(h.call(b, map[string]any{"action": "act", "kind": "evaluate", "fn": "() => document.querySelectorAll('main *').length"})); n < 2*benchSections*benchListItems {
		b.Fatalf("the page has %d elements in main, want at least %d", n, 2*benchSections*benchListItems)
	}
	return h
}

// call runs the tool as the gateway does and fails b on an error result.
func (h *benchHarness) call(b *testing.B, args map[string]any) string {
	b.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := h.tool.Call(ctx, tools.Call{Name: "browser", Args: raw})
	if err == nil && res.IsError {
		err = errString(res.Text)
	}
	if err != nil {
		b.Fatalf("browser %v: %v", args, err)
	}
	return res.Text
}

// BenchmarkSnapshot is the snapshot action on the 2,000-element page:
// the full tree with the default maxChars (50,000, so truncated), the
// full tree untruncated, and interactive elements only. Then the parts
// of one snapshot: "axtree" is the Accessibility.getFullAXTree call alone
// (Chromium builds the tree, sends it, chromedp decodes it), "decode" is
// the decoding of that reply in Go as chromedp does it, "render" is fromAX and
// renderSnapshot of the decoded tree. Metrics: the text's bytes and refs,
// the tree's nodes and its JSON size.
func BenchmarkSnapshot(b *testing.B) {
	h := newBenchHarness(b)
	cases := []struct {
		name string
		args map[string]any
	}{
		{"full", map[string]any{"action": "snapshot"}},
		{"full-untruncated", map[string]any{"action": "snapshot", "maxChars": 1 << 22}},
		{"interactive", map[string]any{"action": "snapshot", "interactive": true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var text string
			b.ReportAllocs()
			for b.Loop() {
				text = h.call(b, c.args)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			b.ReportMetric(float64(len(text)), "bytes")
			b.ReportMetric(float64(len(refPattern.FindAllString(text, -1))), "refs")
		})
	}
	t, err := h.m.running(h.m.settings().DefaultProfile).activeTab(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := t.bound(context.Background(), 30*time.Second)
	defer cancel()
	res, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := jsonv2.Marshal(res, chromedp.DefaultMarshalOptions)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("axtree", func(b *testing.B) {
		for b.Loop() {
			if _, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r accessibility.GetFullAXTreeResult
			if err := jsonv2.Unmarshal(raw, &r, chromedp.DefaultUnmarshalOptions); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	})
	b.Run("render", func(b *testing.B) {
		var text string
		b.ReportAllocs()
		for b.Loop() {
			nodes, root := fromAX(res.Nodes)
			text, _ = renderSnapshot(nodes, root, snapshotOptions{MaxChars: 1 << 22})
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		b.ReportMetric(float64(len(res.Nodes)), "axnodes")
		b.ReportMetric(float64(len(raw)), "axjson-bytes")
		b.ReportMetric(float64(len(text)), "bytes")
	})
}

// BenchmarkActRoundTrip is one act through the tool on the 2,000-element
// page: a click on a button whose handler rewrites a paragraph (the
// count is checked after the loop), and typing a short text into a
// textbox (the value is checked).
func BenchmarkActRoundTrip(b *testing.B) {
	h := newBenchHarness(b)
	snap := h.call(b, map[string]any{"action": "snapshot", "interactive": true})
	refFor := func(want string) string {
		for _, line := range strings.Split(snap, "\n") {
			if strings.Contains(line, want) {
				if m := refPattern.FindStringSubmatch(line); m != nil {
					return m[1]
				}
			}
		}
		b.Fatalf("no ref for %q", want)
		return ""
	}
	inc, q := refFor(`button "Increment"`), refFor(`textbox "Search"`)
	eval := func(fn string) string {
		return h.call(b, map[string]any{"action": "act", "kind": "evaluate", "fn": fn})
	}

	b.Run("click", func(b *testing.B) {
		before, _ := strconv.Atoi(eval("() => window.n || 0"))
		for b.Loop() {
			h.call(b, map[string]any{"action": "act", "kind": "click", "ref": inc})
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		if got := eval("() => document.getElementById('out').textContent"); got != strconv.Quote(fmt.Sprintf("clicked %d", before+b.N)) {
			b.Fatalf("after %d clicks the page says %s", b.N, got)
		}
	})
	b.Run("type", func(b *testing.B) {
		for b.Loop() {
			h.call(b, map[string]any{"action": "act", "kind": "type", "ref": q, "text": "blue running shoes"})
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		if got := eval("() => document.getElementById('q').value"); got != `"blue running shoes"` {
			b.Fatalf("the textbox holds %s", got)
		}
	})
}
