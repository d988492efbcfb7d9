package telegram

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels/channelstest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/format")

// TestFormatGolden renders each testdata/format/NAME.md and compares it with
// NAME.html (FormatHTML) and NAME.txt (PlainText). Run with -update to
// rewrite the expected files, then review the diff.
func TestFormatGolden(t *testing.T) {
	channelstest.GoldenCases(t, filepath.Join("testdata", "format"), 12, func(t *testing.T, base, src string) {
		html := FormatHTML(src)
		if err := checkTelegramHTML(html); err != nil {
			t.Errorf("FormatHTML output is not valid Telegram HTML: %v\n%s", err, html)
		}
		channelstest.Golden(t, base+".html", html, *updateGolden)
		channelstest.Golden(t, base+".txt", PlainText(src), *updateGolden)
	})
}

func TestFormatHTML(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"escape only three", `a & b < c > d "e" 'f'`, `a &amp; b &lt; c &gt; d "e" 'f'`},
		{"href quote", `[x](https://a.test/"q")`, `<a href="https://a.test/%22q%22">x</a>`},
		{"intraword underscores", "foo_bar_baz", "foo_bar_baz"},
		{"intraword star is emphasis", "foo*bar*baz", "foo<i>bar</i>baz"},
		{"no double bold in heading", "# **x**", "<b>x</b>"},
		{"unsafe link text kept", "[a *b*](javascript:x)", "a <i>b</i>"},
		{"relative link is text", "[here](./x.md)", "here"},
		{"empty link text shows url", "[](https://a.test)", `<a href="https://a.test">https://a.test</a>`},
		{"raw inline html escaped", "<i>x</i>", "&lt;i&gt;x&lt;/i&gt;"},
		{"ordered start", "7. a\n8. b", "7. a\n8. b"},
		{"list item starting with sublist", "- - x", "•\n  • x"},
		{"nul replaced", "a\x00b", "a\uFFFDb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatHTML(tt.in); got != tt.want {
				t.Errorf("FormatHTML(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestPlainText(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"link shows url", "[docs](https://a.test)", "docs (https://a.test)"},
		{"autolink once", "<https://a.test>", "https://a.test"},
		{"email once", "<me@a.test>", "me@a.test"},
		{"no escaping", "a < b && `c > d`", "a < b && c > d"},
		{"quote", "> a\n>\n> b", "> a\n>\n> b"},
		{"unsafe link", "[x](javascript:alert(1))", "x"},
		{"code keeps indentation", "```\n  x\n```", "  x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlainText(tt.in); got != tt.want {
				t.Errorf("PlainText(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzFormatHTML(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "format", "*.md"))
	for _, in := range inputs {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("**a *b [c](https://d) `e`* ~~f~~**\n\n> > g\n\n| h | i |\n|---|---|\n| j | *k* |")
	f.Add("[![x](https://a)](https://b) <b>&amp;</b> &#0; \\<")
	f.Fuzz(func(t *testing.T, md string) {
		html := FormatHTML(md)
		if err := checkTelegramHTML(html); err != nil {
			t.Fatalf("FormatHTML(%q) = %q: %v", md, html, err)
		}
		_ = PlainText(md)
	})
}

var (
	tgHrefAttr  = regexp.MustCompile(`^a href="[^"<>]*"$`)
	tgCodeClass = regexp.MustCompile(`^code class="language-[^"<>]*"$`)
	entityRef   = regexp.MustCompile(`^&(amp|lt|gt|quot);`)
)

// checkTelegramHTML is a tiny validator of the HTML Telegram accepts: only
// the allowed tags and attributes, every tag closed in order, entities only
// from the escaped set, and Telegram's own nesting rules (nothing inside
// code, only code inside pre, no link in a link, no quote in a quote, pre
// only at the top or in a quote).
func checkTelegramHTML(s string) error {
	var stack []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '>':
			return fmt.Errorf("raw '>' at %d", i)
		case '&':
			if !entityRef.MatchString(s[i:]) {
				return fmt.Errorf("bad entityRef at %d: %.10q", i, s[i:])
			}
		case '<':
			j := strings.IndexByte(s[i:], '>')
			if j < 0 {
				return fmt.Errorf("unterminated tag at %d", i)
			}
			tag := s[i+1 : i+j]
			i += j
			if name, ok := strings.CutPrefix(tag, "/"); ok {
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return fmt.Errorf("</%s> closes %v", name, stack)
				}
				stack = stack[:len(stack)-1]
				continue
			}
			name, _, _ := strings.Cut(tag, " ")
			switch {
			case name == "a" && tgHrefAttr.MatchString(tag):
			case name == "code" && (tag == "code" || tgCodeClass.MatchString(tag)):
			case tag == "b" || tag == "i" || tag == "u" || tag == "s" || tag == "pre" || tag == "blockquote":
			default:
				return fmt.Errorf("tag <%s> not allowed", tag)
			}
			if err := checkTelegramNesting(stack, name); err != nil {
				return err
			}
			stack = append(stack, name)
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed %v", stack)
	}
	return nil
}

func checkTelegramNesting(stack []string, name string) error {
	parent := ""
	if len(stack) > 0 {
		parent = stack[len(stack)-1]
	}
	switch {
	case parent == "code":
		return errors.New("tag inside <code>")
	case parent == "pre" && name != "code":
		return fmt.Errorf("<%s> inside <pre>", name)
	case name == "pre" && parent != "" && parent != "blockquote":
		return fmt.Errorf("<pre> inside <%s>", parent)
	}
	for _, open := range stack {
		if open == name && (name == "a" || name == "blockquote") {
			return fmt.Errorf("<%s> nested in itself", name)
		}
	}
	return nil
}
