package slack

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels/channelstest"
)

var updateFormat = flag.Bool("update", false, "rewrite the golden files in testdata/format")

// TestFormatGolden renders each testdata/format/NAME.md with ToMrkdwn and
// compares it with NAME.mrkdwn. Run with -update to rewrite the expected
// files, then review the diff.
func TestFormatGolden(t *testing.T) {
	channelstest.GoldenCases(t, filepath.Join("testdata", "format"), 12, func(t *testing.T, base, src string) {
		got := ToMrkdwn(src)
		if err := checkMrkdwn(got); err != nil {
			t.Errorf("ToMrkdwn output is unsafe: %v\n%s", err, got)
		}
		channelstest.Golden(t, base+".mrkdwn", got, *updateFormat)
	})
}

func TestToMrkdwn(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"bold", "**a**", "*a*"},
		{"italic", "_a_ and *b*", "_a_ and _b_"},
		{"strike", "~~a~~", "~a~"},
		{"bold spaces outside", "** a **", "** a **"},
		{"escape three", `a & b < c > d "e"`, `a &amp; b &lt; c &gt; d "e"`},
		{"link", "[x](https://a.test/p?q=1&r=2)", "<https://a.test/p?q=1&amp;r=2|x>"},
		{"link label markup flattened", "[**x** _y_](https://a.test)", "<https://a.test|x y>"},
		{"empty link label", "[](https://a.test)", "<https://a.test|https://a.test>"},
		{"unsafe link", "[x](javascript:alert(1))", "x"},
		{"relative link", "[x](/a)", "x"},
		{"heading", "# Hi", "*Hi*"},
		{"channel ping", "<!channel>", "&lt;!channel&gt;"},
		{"here word", "@here now", "@\u2060here now"},
		{"user markup", "<@U1>", "&lt;@U1&gt;"},
		{"code span escaped", "`a<b>`", "`a&lt;b&gt;`"},
		{"fence drops language", "```python\nx = 1\n```", "```\nx = 1\n```"},
		{"hard break", "a  \nb", "a\nb"},
		{"nul replaced", "a\x00b", "a\uFFFDb"},
		{"intraword star", "2*3*4 and foo**bar**", "2*3*4 and foo**bar**"},
		{"ordered start", "Steps:\n\n7. a\n8. b", "Steps:\n\n7. a\n8. b"},
		{"thematic break", "a\n\n---\n\nb", "a\n\n———\n\nb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ToMrkdwn(tt.in); got != tt.want {
				t.Errorf("ToMrkdwn(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzToMrkdwn: any Markdown converts without panicking into mrkdwn that
// cannot ping a channel or smuggle Slack markup.
func FuzzToMrkdwn(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "format", "*.md"))
	for _, in := range inputs {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("[<!here>](https://a|b>c) <!channel|x> <@U1|y> `<!here>`")
	f.Add("**a *b [c](https://d) `e`* ~~f~~**\n\n> > g\n\n| h | i |\n|---|---|\n| j | *k* |")
	f.Fuzz(func(t *testing.T, md string) {
		if err := checkMrkdwn(ToMrkdwn(md)); err != nil {
			t.Fatalf("ToMrkdwn(%q): %v", md, err)
		}
	})
}

// checkMrkdwn checks that every "<" in s starts a link the converter
// made (<http…|…>, <mailto:…|…>, <tel:…|…>), never <!…>, <@…> or <#…>.
func checkMrkdwn(s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		rest := s[i+1:]
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return fmt.Errorf("unclosed < at %d", i)
		}
		tok := rest[:end]
		lower := strings.ToLower(tok)
		if !(strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") ||
			strings.HasPrefix(lower, "mailto:") || strings.HasPrefix(lower, "tel:")) {
			return fmt.Errorf("markup <%s> at %d", tok, i)
		}
		if !strings.Contains(tok, "|") {
			return fmt.Errorf("link without label <%s>", tok)
		}
		i += end + 1
	}
	return nil
}
