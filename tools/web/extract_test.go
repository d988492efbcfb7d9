package web

import (
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// TestExtractGolden renders each testdata/*.html in both modes and
// compares with the .md and .txt files beside it.
func TestExtractGolden(t *testing.T) {
	pages, err := filepath.Glob("testdata/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no golden pages: %v", err)
	}
	base, _ := url.Parse("https://garden.example/articles/tomatoes")
	for _, page := range pages {
		for mode, ext := range map[string]string{ModeMarkdown: ".md", ModeText: ".txt"} {
			name := strings.TrimSuffix(filepath.Base(page), ".html") + ext
			t.Run(name, func(t *testing.T) {
				in, err := os.Open(page)
				if err != nil {
					t.Fatal(err)
				}
				defer in.Close()
				title, text, err := extractHTML(in, base, mode)
				if err != nil {
					t.Fatal(err)
				}
				got := "Title: " + title + "\n---\n" + text + "\n"
				golden := strings.TrimSuffix(page, ".html") + ext
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs from golden:\n--- got\n%s\n--- want\n%s", name, got, want)
				}
			})
		}
	}
}
