package pdfrender

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/docextract"

	"golang.org/x/image/font/gofont/goregular"
)

const sample = `# Quarterly Report

Intro with **bold**, *italic* and ` + "`inline code`" + ` plus a [link](https://example.com).

## Items

- apple
- banana

1. first
2. second

| Name | Value |
|------|-------|
| alpha | 42 |
| beta | a long cell that should wrap across several lines in its column |

` + "```go\nfunc main() {}\n```" + `

---

Closing paragraph.
`

type recorder struct {
	mu   sync.Mutex
	rels []string
	fail error
}

func (p *recorder) publish(ctx context.Context, who tools.Who, rel string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rels = append(p.rels, rel)
	if p.fail != nil {
		return "", p.fail
	}
	return "https://dl.example/" + rel, nil
}

func newTool(t *testing.T, dir string, pub tools.Publisher, font string) tools.Tool {
	t.Helper()
	ts := Tools(Config{Workspace: func(tools.Who) (string, error) { return dir, nil }, Publish: pub, FontPath: font})
	if len(ts) != 1 {
		t.Fatalf("Tools returned %d tools", len(ts))
	}
	return ts[0]
}

func call(t *testing.T, tool tools.Tool, args map[string]any) (result, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Call(context.Background(), tools.Call{Name: "PdfRenderTool", Args: raw, Who: tools.Who{AgentID: "a1"}})
	if err != nil {
		return result{}, err
	}
	var r result
	if err := json.Unmarshal([]byte(res.Text), &r); err != nil {
		t.Fatalf("result is not JSON: %q: %v", res.Text, err)
	}
	return r, nil
}

// extract reads the PDF back with DocumentExtractTool, as a user's agent would.
func extract(t *testing.T, dir, rel string) string {
	t.Helper()
	de := docextract.Tools(func(tools.Who) (string, error) { return dir, nil })[0]
	raw, _ := json.Marshal(map[string]any{"path": rel})
	res, err := de.Call(context.Background(), tools.Call{Args: raw})
	if err != nil {
		t.Fatalf("extract %s: %v", rel, err)
	}
	return res.Text
}

var mediaBox = regexp.MustCompile(`/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]`)

func TestRender(t *testing.T) {
	font := "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
	cases := []struct {
		name      string
		args      map[string]any
		font      string
		wantWords []string
		noWords   []string
		pages     int // 0: don't check
		box       [2]string
		fileRe    string
		noteHas   string
		rawHas    string // in the PDF bytes
	}{
		{name: "default", args: map[string]any{"markdown": sample},
			wantWords: []string{"Quarterly", "bold", "italic", "inline", "apple", "banana", "alpha", "42", "func", "Closing", "Page 1 of 1"},
			pages:     1, box: [2]string{"595.28", "841.89"}, fileRe: `^exports/quarterly-report-[0-9a-f]{6}\.pdf$`},
		{name: "no page numbers", args: map[string]any{"markdown": sample, "pageNumbers": false},
			wantWords: []string{"Quarterly"}, noWords: []string{"Page 1"}, pages: 1},
		{name: "cover", args: map[string]any{"markdown": sample, "cover": true, "title": "Board Pack", "filename": "board"},
			wantWords: []string{"Board Pack", "Page 1 of 2", "Page 2 of 2"}, pages: 2, fileRe: `^exports/board\.pdf$`},
		{name: "letter", args: map[string]any{"markdown": "hello", "pageSize": "Letter", "margins": 10},
			wantWords: []string{"hello"}, box: [2]string{"612.00", "792.00"}},
		{name: "many pages", args: map[string]any{"markdown": strings.Repeat("Lorem ipsum dolor sit amet.\n\n", 200)},
			wantWords: []string{"Page 2 of"}},
		{name: "sanitized filename", args: map[string]any{"markdown": "x", "filename": "../../etc/passwd.pdf"},
			fileRe: `^exports/passwd\.pdf$`},
		{name: "non-cp1252 without font", args: map[string]any{"markdown": "Hello 世界 café"},
			wantWords: []string{"Hello ??", "caf"}, noteHas: "tools.pdfFont"},
		// ledongthuc/pdf does not map fpdf's Identity-H glyph ids back to
		// text, so the Cyrillic is checked by the embedded font and the
		// absence of replacements rather than by extraction.
		{name: "non-cp1252 with font", font: font, args: map[string]any{"markdown": "Hello Привет"},
			wantWords: []string{"Hello"}, noWords: []string{"?"}, rawHas: "/CIDFontType2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.font != "" {
				if _, err := os.Stat(tc.font); err != nil {
					t.Skipf("font %s not present", tc.font)
				}
			}
			dir := t.TempDir()
			pub := &recorder{}
			r, err := call(t, newTool(t, dir, pub.publish, tc.font), tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if tc.fileRe != "" && !regexp.MustCompile(tc.fileRe).MatchString(r.Path) {
				t.Errorf("path %q does not match %s", r.Path, tc.fileRe)
			}
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Path)))
			if err != nil {
				t.Fatal(err)
			}
			if len(data) != r.Bytes || !strings.HasPrefix(string(data), "%PDF-") {
				t.Errorf("file has %d bytes (result says %d) or is not a PDF", len(data), r.Bytes)
			}
			if r.URL != "https://dl.example/"+r.Path || len(pub.rels) != 1 || pub.rels[0] != r.Path {
				t.Errorf("publish: url %q, calls %v", r.URL, pub.rels)
			}
			if tc.pages != 0 && r.pages() != tc.pages {
				t.Errorf("pages = %d, want %d", r.Pages, tc.pages)
			}
			txt := extract(t, dir, r.Path)
			norm := strings.Join(strings.Fields(txt), " ")
			for _, w := range tc.wantWords {
				if !strings.Contains(norm, w) && !strings.Contains(txt, w) {
					t.Errorf("extracted text lacks %q:\n%s", w, txt)
				}
			}
			for _, w := range tc.noWords {
				if strings.Contains(norm, w) {
					t.Errorf("extracted text has %q:\n%s", w, txt)
				}
			}
			if tc.pages != 0 && !strings.Contains(txt, "pages: "+itoa(tc.pages)) {
				t.Errorf("docextract page count differs from %d:\n%s", tc.pages, txt)
			}
			if tc.box[0] != "" {
				m := mediaBox.FindStringSubmatch(string(data))
				if m == nil || m[1] != tc.box[0] || m[2] != tc.box[1] {
					t.Errorf("MediaBox %v, want %v", m, tc.box)
				}
			}
			if tc.rawHas != "" && !strings.Contains(string(data), tc.rawHas) {
				t.Errorf("PDF bytes lack %q", tc.rawHas)
			}
			if tc.noteHas != "" && !strings.Contains(r.Note, tc.noteHas) {
				t.Errorf("note %q lacks %q", r.Note, tc.noteHas)
			}
			if tc.noteHas == "" && r.Note != "" {
				t.Errorf("unexpected note %q", r.Note)
			}
		})
	}
}

func (r result) pages() int { return r.Pages }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestMarginsChangeLayout(t *testing.T) {
	dir := t.TempDir()
	tool := newTool(t, dir, nil, "")
	long := strings.Repeat("word ", 3000)
	narrow, err := call(t, tool, map[string]any{"markdown": long, "margins": 5, "filename": "narrow"})
	if err != nil {
		t.Fatal(err)
	}
	wide, err := call(t, tool, map[string]any{"markdown": long, "margins": 50, "filename": "wide"})
	if err != nil {
		t.Fatal(err)
	}
	if wide.Pages <= narrow.Pages {
		t.Errorf("50 mm margins gave %d pages, 5 mm gave %d: margins had no effect", wide.Pages, narrow.Pages)
	}
}

func TestNoOverwrite(t *testing.T) {
	dir := t.TempDir()
	tool := newTool(t, dir, nil, "")
	if err := os.MkdirAll(filepath.Join(dir, "exports"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "exports", "report.pdf"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := call(t, tool, map[string]any{"markdown": "# hi", "filename": "report.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != "exports/report-2.pdf" {
		t.Errorf("path %q, want exports/report-2.pdf", r.Path)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "exports", "report.pdf")); string(b) != "keep" {
		t.Errorf("existing file was overwritten")
	}
	if !strings.Contains(r.Note, "publishing is not configured") || r.URL != "" {
		t.Errorf("nil publisher: note %q url %q", r.Note, r.URL)
	}
}

func TestPublishFailure(t *testing.T) {
	dir := t.TempDir()
	pub := &recorder{fail: errors.New("link service down")}
	r, err := call(t, newTool(t, dir, pub.publish, ""), map[string]any{"markdown": "# hi", "filename": "x"})
	if err != nil {
		t.Fatalf("publish failure must not be an error: %v", err)
	}
	if r.URL != "" || !strings.Contains(r.Note, "link service down") || r.Path != "exports/x.pdf" {
		t.Errorf("result %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "exports", "x.pdf")); err != nil {
		t.Errorf("file missing after publish failure: %v", err)
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	tool := newTool(t, dir, nil, "")
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"too large", map[string]any{"markdown": strings.Repeat("a", MaxMarkdownBytes+1)}, "limit"},
		{"empty", map[string]any{"markdown": "  "}, "empty"},
		{"bad size", map[string]any{"markdown": "x", "pageSize": "A3"}, "A3"},
		{"bad margins", map[string]any{"markdown": "x", "margins": -1}, "margins"},
		{"bad font", map[string]any{"markdown": "x"}, ""},
	}
	for _, tc := range cases {
		if tc.want == "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(t, tool, tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	_, err := call(t, newTool(t, dir, nil, filepath.Join(dir, "missing.ttf")), map[string]any{"markdown": "x"})
	if err == nil || !strings.Contains(err.Error(), "font") {
		t.Errorf("missing font: err = %v", err)
	}
}

func TestSpec(t *testing.T) {
	s := newTool(t, t.TempDir(), nil, "").Spec()
	if s.Name != "PdfRenderTool" || s.Tier != tools.TierCore || s.Source != tools.SourceCore || s.Dangerous ||
		s.Timeout != tools.TimeoutFast || len(s.Groups) != 1 || s.Groups[0] != "group:fs" {
		t.Errorf("spec %+v", s)
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{sample, "", "|a|\n|-|\n|b|", "- a\n  - b\n    1. c", "> q\n> > r", "```\n\x00\n", "世界 **x*", "<div>x</div>", "![i](u)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		// A hang is as bad as a panic for the gateway: fpdf loops forever
		// when text cannot fit, so the call is bounded here.
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = render([]byte(md), options{margin: 20, pageNumbers: true, size: "A4"})
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("render did not finish in 5s for %q", md)
		}
	})
}

// TestCJKWithDiscoveredFont: with no font configured, FindFont picks the
// system's CJK-capable TrueType font and Chinese text is embedded, not
// replaced. The test needs Debian's fonts-droid-fallback (.ci/run installs
// it).
func TestCJKWithDiscoveredFont(t *testing.T) {
	font := FindFont("")
	if filepath.Base(font) != "DroidSansFallbackFull.ttf" {
		t.Fatalf("FindFont found %q; install a CJK TrueType font: apt-get install -y fonts-droid-fallback", font)
	}
	if got := FindFont("/my/font.ttf"); got != "/my/font.ttf" {
		t.Errorf("a configured font is not used: %q", got)
	}
	dir := t.TempDir()
	r, err := call(t, newTool(t, dir, nil, font), map[string]any{"markdown": "# 报告\n\n你好，世界。日本語もテスト。"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Note != "" && strings.Contains(r.Note, "printed as '?'") {
		t.Errorf("CJK text was replaced: %s", r.Note)
	}
	raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Path)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte("/CIDFontType2")) {
		t.Errorf("the PDF does not embed a Unicode font; base fonts: %q", regexp.MustCompile(`/BaseFont\s*/\S+`).FindAll(raw, -1))
	}
}

// TestCJKWithALatinFont: a Unicode font without CJK glyphs (the Go font
// here; NotoSans-Regular.ttf or DejaVuSans.ttf on a system) prints CJK
// blank, and the result says so instead of handing back a garbled PDF
// as if all were well. Latin text alone gets no such note.
func TestCJKWithALatinFont(t *testing.T) {
	font := filepath.Join(t.TempDir(), "Go-Regular.ttf")
	if err := os.WriteFile(font, goregular.TTF, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, markdown, wantNote string
	}{
		{"CJK is named as missing", "# 报告\n\nHello, 世界。", `have no glyph in the font Go-Regular.ttf`},
		{"Latin needs no note", "# Report\n\nHello, world: café.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := call(t, newTool(t, t.TempDir(), nil, font), map[string]any{"markdown": tt.markdown})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantNote == "" && strings.Contains(r.Note, "glyph") {
				t.Fatalf("note %q for text the font covers", r.Note)
			}
			if tt.wantNote != "" && (!strings.Contains(r.Note, tt.wantNote) || !strings.Contains(r.Note, "报") || !strings.Contains(r.Note, "tools.pdfFont")) {
				t.Fatalf("note %q, want it to name the missing characters and tools.pdfFont", r.Note)
			}
		})
	}
}

// TestFindFontPrefersCJK: with a Latin Unicode font and a CJK one in the
// font folders, FindFont takes the CJK one, wherever it lies.
func TestFindFontPrefersCJK(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/NotoSans-Regular.ttf", "a/DejaVuSans.ttf", "z/noto/NotoSansSC-Regular.ttf"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), goregular.TTF, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := fontDirs
	fontDirs = []string{dir}
	defer func() { fontDirs = old }()
	if got := FindFont(""); filepath.Base(got) != "NotoSansSC-Regular.ttf" {
		t.Fatalf("FindFont = %q, want the CJK font", got)
	}
}
