package wiki

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var slugCases = []struct {
	name, in, want string
	bad            bool
}{
	{"title", "Go Concurrency Patterns", "go-concurrency-patterns", false},
	{"already a slug", "go-concurrency", "go-concurrency", false},
	{"dot dot slash", "../../etc/passwd", "etc-passwd", false},
	{"absolute path", "/var/lib/openclaw/state.db", "var-lib-openclaw-state-db", false},
	{"backslashes", `..\..\windows\system32`, "windows-system32", false},
	{"nul byte", "a\x00b", "a-b", false},
	{"chinese", "大语言模型 笔记", "大语言模型-笔记", false},
	{"accents kept", "Café Crème", "café-crème", false},
	{"only punctuation", "../..//", "", true},
	{"empty", "", "", true},
	{"sql", "x'; DROP TABLE wiki_pages; --", "x-drop-table-wiki-pages", false},
	{"long", strings.Repeat("a", 500), strings.Repeat("a", maxSlugRunes), false},
}

func TestSlug(t *testing.T) {
	for _, tc := range slugCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Slug(tc.in)
			if tc.bad {
				if err == nil {
					t.Fatalf("Slug(%q) = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Slug(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestLinks(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"none", "plain text", nil},
		{"two", "See [[Go Modules]] and [[testing|the testing page]].", []string{"go-modules", "testing"}},
		{"self and dup", "[[Self]] [[a]] [[A]]", []string{"a"}},
		{"unclosed", "[[never closed", nil},
		{"empty", "[[]] [[ | x]]", nil},
		{"nested", "[[a [[b]]", []string{"b"}},
		{"newline", "[[a\nb]]", nil},
		{"traversal", "[[../../etc/passwd]]", []string{"etc-passwd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Links(tc.body, "self"); !slices.Equal(got, tc.want) {
				t.Fatalf("Links(%q) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
	many := strings.Repeat("[[x]]", 10) + func() string {
		var b strings.Builder
		for i := range 3 * maxLinks {
			b.WriteString("[[p" + strings.Repeat("q", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "]]")
		}
		return b.String()
	}()
	if n := len(Links(many, "self")); n != maxLinks {
		t.Fatalf("%d links kept, want the cap %d", n, maxLinks)
	}
}

var matchCases = []struct {
	name, query, op, want string
}{
	{"words", "go channels", "AND", `"go" AND "channels"`},
	{"or", "go channels", "OR", `"go" OR "channels"`},
	{"fts operators", `title:secret NOT x* OR (a NEAR b)`, "AND", `"title" AND "secret" AND "not" AND "x" AND "or" AND "a" AND "near" AND "b"`},
	{"quotes", `"unterminated`, "AND", `"unterminated"`},
	{"sql", `'); DROP TABLE wiki_pages; --`, "AND", `"drop" AND "table" AND "wiki_pages"`},
	{"only syntax", `*:"()^-+`, "AND", ``},
	{"empty", "", "AND", ``},
	{"dup", "Go go GO", "AND", `"go"`},
	{"bad op", "a b", "; DROP", `"a" AND "b"`},
}

func TestMatchExpr(t *testing.T) {
	for _, tc := range matchCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := MatchExpr(tc.query, tc.op); got != tc.want {
				t.Fatalf("MatchExpr(%q) = %q, want %q", tc.query, got, tc.want)
			}
		})
	}
	long := strings.Repeat("word", 100) + " " + strings.Repeat("x ", 100)
	terms := queryTerms(long)
	if len(terms) > maxQueryTerms || utf8.RuneCountInString(terms[0]) != maxTermRunes {
		t.Fatalf("query terms not capped: %d terms, first %d runes", len(terms), utf8.RuneCountInString(terms[0]))
	}
}

// FuzzMatchExpr: whatever the model sends, the expression is only quoted
// words joined by AND, so FTS5 never sees an operator from it.
func FuzzMatchExpr(f *testing.F) {
	for _, tc := range matchCases {
		f.Add(tc.query)
	}
	f.Fuzz(func(t *testing.T, q string) {
		expr := MatchExpr(q, "AND")
		if expr == "" {
			return
		}
		for _, part := range strings.Split(expr, " AND ") {
			if len(part) < 3 || part[0] != '"' || part[len(part)-1] != '"' || strings.Contains(part[1:len(part)-1], `"`) {
				t.Fatalf("MatchExpr(%q) has a part %q that is not one quoted word", q, part)
			}
		}
	})
}

// FuzzLinks: link parsing never panics, keeps to its cap, and yields only
// valid slugs.
func FuzzLinks(f *testing.F) {
	f.Add("[[a]] [[b|c]] [[")
	f.Add("[[../x]]]]")
	f.Fuzz(func(t *testing.T, body string) {
		links := Links(body, "self")
		if len(links) > maxLinks {
			t.Fatalf("%d links", len(links))
		}
		for _, l := range links {
			if s, err := Slug(l); err != nil || s != l {
				t.Fatalf("link %q is not a slug (%q, %v)", l, s, err)
			}
		}
	})
}

// FuzzSlug: a slug is never empty without an error, holds no path
// separator, dot or space, is at most maxSlugRunes, and is its own slug.
func FuzzSlug(f *testing.F) {
	for _, tc := range slugCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Slug(in)
		if err != nil {
			return
		}
		if s == "" || strings.ContainsAny(s, "/\\. \x00") || utf8.RuneCountInString(s) > maxSlugRunes || strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") {
			t.Fatalf("Slug(%q) = %q", in, s)
		}
		if again, err := Slug(s); err != nil || again != s {
			t.Fatalf("Slug(Slug(%q)) = %q, %v; want %q", in, again, err, s)
		}
	})
}
