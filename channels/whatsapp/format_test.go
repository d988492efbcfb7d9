package whatsapp

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/channels/channelstest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/format")

// TestFormatGolden renders each testdata/format/NAME.md and compares it with
// NAME.txt. Run with -update to rewrite the expected files, then review
// the diff.
func TestFormatGolden(t *testing.T) {
	channelstest.GoldenCases(t, filepath.Join("testdata", "format"), 10, func(t *testing.T, base, src string) {
		got := ToWhatsApp(src)
		if err := checkFences(got); err != nil {
			t.Errorf("%v\n%s", err, got)
		}
		channelstest.Golden(t, base+".txt", got, *updateGolden)
	})
}

func TestToWhatsApp(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"bold", "**a**", "*a*"},
		{"italic star", "*a*", "_a_"},
		{"italic underscore", "_a_", "_a_"},
		{"bold italic", "***a***", "_*a*_"},
		{"strike", "~~a~~", "~a~"},
		{"inline code kept", "run `ls -l`", "run `ls -l`"},
		{"no double bold in heading", "# **x**", "*x*"},
		{"link", "[docs](https://a.test)", "docs (https://a.test)"},
		{"autolink once", "<https://a.test>", "https://a.test"},
		{"unsafe link is text", "[x](javascript:alert(1))", "x"},
		{"bullet", "- a\n- b", "• a\n• b"},
		{"ordered start", "3. a\n4. b", "3. a\n4. b"},
		{"code block", "```\nx := 1\n```", "```\nx := 1\n```"},
		{"empty code block dropped", "```\n```", ""},
		{"markers side by side", "*a* **b**", "_a_ *b*"},
		{"nul replaced", "a\x00b", "a\uFFFDb"},
		{"sentinel in input", "a\uE000b", "a\uFFFDb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ToWhatsApp(tt.in); got != tt.want {
				t.Errorf("ToWhatsApp(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzToWhatsApp(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "format", "*.md"))
	for _, in := range inputs {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("**a *b [c](https://d) `e`* ~~f~~**\n\n> > g\n\n| h | i |\n|---|---|\n| j | *k* |")
	f.Add("``` `` ```` \\`\\`\\` <b>&amp;</b> &#0; \\<")
	f.Add("- ```\n  x\n  ```\n- `` ` ``")
	f.Fuzz(func(t *testing.T, md string) {
		out := ToWhatsApp(md)
		if err := checkFences(out); err != nil {
			t.Fatalf("ToWhatsApp(%q) = %q: %v", md, out, err)
		}
		if utf8.ValidString(md) && !utf8.ValidString(out) {
			t.Fatalf("ToWhatsApp(%q) = %q: invalid UTF-8", md, out)
		}
	})
}

// checkFences reports code fences that do not pair up: an odd number of
// ``` would leave the rest of the message monospace.
func checkFences(s string) error {
	if n := strings.Count(s, "```"); n%2 != 0 {
		return fmt.Errorf("unbalanced code fences: %d ```", n)
	}
	return nil
}
