package discord

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels/channelstest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/format")

// TestFormatGolden renders each testdata/format/NAME.md and compares it
// with NAME.out. Run with -update to rewrite, then review the diff.
func TestFormatGolden(t *testing.T) {
	channelstest.GoldenCases(t, filepath.Join("testdata", "format"), 1, func(t *testing.T, base, src string) {
		channelstest.Golden(t, base+".out", FormatMarkdown(src), *updateGolden)
	})
}

func TestFormatMarkdown(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"kept", "**b** *i* `c` ~~s~~ [l](https://a.test)", "**b** *i* `c` ~~s~~ [l](https://a.test)"},
		{"heading", "## Plan ##", "**Plan**"},
		{"bold heading not doubled", "# **x**", "**x**"},
		{"everyone", "hey @everyone and @here", "hey @\u200beveryone and @\u200bhere"},
		{"user and role pings", "<@123> <@!45> <@&67>", "<\u200b@123> <\u200b@!45> <\u200b@&67>"},
		{"code span untouched", "`@everyone` @here", "`@everyone` @\u200bhere"},
		{"fence untouched", "```\n@everyone\n# x\n```", "```\n@everyone\n# x\n```"},
		{"tilde fence", "~~~py\nx\n~~~", "```py\nx\n```"},
		{"unclosed fence closed", "```\nx", "```\nx\n```"},
		{"rule", "a\n\n---\n\nb", "a\n\n———\n\nb"},
		{"mid-word disarmed too", "me@here.test", "me@\u200bhere.test"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatMarkdown(tt.in); got != tt.want {
				t.Errorf("FormatMarkdown(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitLines(t *testing.T) {
	lines := func(n int) string {
		var b []string
		for i := range n {
			b = append(b, "l"+string(rune('a'+i%26)))
		}
		return strings.Join(b, "\n")
	}
	for _, tt := range []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"fits", lines(3), 3, []string{lines(3)}},
		{"no limit", lines(30), 0, []string{lines(30)}},
		{"cut", lines(5), 2, []string{"la\nlb", "lc\nld", "le"}},
		{"fence reopened", "```go\na\nb\nc\n```", 4, []string{"```go\na\nb\n```", "```go\nc\n```"}},
		{"blank part dropped", "a\n\n\n", 1, []string{"a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitLines(tt.in, tt.max)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("SplitLines = %q, want %q", got, tt.want)
			}
			for _, p := range got {
				if n := strings.Count(p, "\n") + 1; tt.max > 0 && n > tt.max {
					t.Errorf("part of %d lines > %d: %q", n, tt.max, p)
				}
			}
		})
	}
}

func FuzzFormatMarkdown(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "format", "*.md"))
	for _, in := range inputs {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("| a |\n|---|\n| `@everyone` |\n\n```\n<@1>")
	f.Fuzz(func(t *testing.T, md string) {
		out := FormatMarkdown(md)
		if strings.Contains(strings.ReplaceAll(out, "`@everyone`", ""), "@everyone") && !strings.Contains(out, "```") && !strings.Contains(out, "`") {
			t.Fatalf("FormatMarkdown(%q) = %q keeps a mass ping", md, out)
		}
		for _, p := range SplitLines(out, 5) {
			if n := strings.Count(p, "\n") + 1; n > 5 {
				t.Fatalf("SplitLines part of %d lines: %q", n, p)
			}
		}
	})
}
