package web

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// Both parsers read pages chosen by whoever runs the remote site, so they
// must return (possibly empty) results for any byte string without panicking.

func addTestdata(f *testing.F, pattern string) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<div class="result"><a class="result__a" href="/l/?uddg=%zz">x</a></div>`))
	f.Add([]byte(`<<<>>>`))
}

func FuzzParseDDG(f *testing.F) {
	addTestdata(f, "*.htm")
	f.Fuzz(func(t *testing.T, page []byte) {
		hits, err := parseDDG(page, Query{Text: "q", Count: 10}, ProviderDuckDuckGo)
		if err != nil {
			return
		}
		if len(hits) > 10 {
			t.Fatalf("%d hits for count 10", len(hits))
		}
		for _, h := range hits {
			u, err := url.Parse(h.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
				t.Fatalf("hit URL %q is not http(s)", h.URL)
			}
		}
	})
}

func FuzzExtractHTML(f *testing.F) {
	addTestdata(f, "*.html")
	base, _ := url.Parse("https://example.com/a/")
	f.Fuzz(func(t *testing.T, page []byte) {
		for _, mode := range []string{"markdown", "text"} {
			_, _, _ = extractHTML(bytes.NewReader(page), base, mode)
		}
	})
}

// The hand-written squeezers replaced regexps; they must agree with them.
func FuzzSqueeze(f *testing.F) {
	spaces := regexp.MustCompile(`[ \t\r\n\f]+`)
	blank := regexp.MustCompile(`\n{3,}`)
	for _, s := range []string{"", " ", "a  b", "a\t\n b", "x\n\n\n\ny", "\n\n\n", "a b c", "é \f\r ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := squeezeSpace(s), spaces.ReplaceAllString(s, " "); got != want {
			t.Fatalf("squeezeSpace(%q) = %q; want %q", s, got, want)
		}
		if got, want := squeezeBlankLines(s), blank.ReplaceAllString(s, "\n\n"); got != want {
			t.Fatalf("squeezeBlankLines(%q) = %q; want %q", s, got, want)
		}
	})
}
