package skills

import (
	"strings"
	"testing"
)

func TestDirectory(t *testing.T) {
	c := testCatalog()
	full := Directory(c, 0)
	want := directoryHeader +
		"- extra-only: Only in an extra directory.\n" +
		"- folder-named: A skill named after its folder.\n" +
		"- managed-only: Only in the managed directory.\n" +
		"- needs-jq: Needs jq, which the fake PATH has.\n" +
		"- weather: Get current weather and forecasts for any city.\n"
	if full != want {
		t.Fatalf("directory:\n%s\nwant:\n%s", full, want)
	}

	cases := []struct {
		name     string
		max      int
		contains []string
		absent   []string
	}{
		{"fits exactly", len(want), []string{"- weather:"}, []string{"more skills"}},
		{"cut", len(directoryHeader) + 120, []string{"- extra-only:", "more skills not listed"}, []string{"- weather:"}},
		{"only the note fits", len(directoryHeader) + 70, []string{"- … 5 more skills"}, []string{"- extra-only:"}},
		{"smaller than header", 10, nil, []string{"Skills"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Directory(c, tc.max)
			if len(got) > tc.max {
				t.Errorf("len %d > cap %d", len(got), tc.max)
			}
			for _, s := range tc.contains {
				if !strings.Contains(got, s) {
					t.Errorf("missing %q in\n%s", s, got)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(got, s) {
					t.Errorf("unexpected %q in\n%s", s, got)
				}
			}
		})
	}

	if got := Directory(Catalog{}, 0); got != "" {
		t.Errorf("empty catalog gave %q", got)
	}
}

func TestClip(t *testing.T) {
	s := strings.Repeat("é", 200) // 2 bytes each
	got := clip(s, 101)
	if len(got) > 101 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) {
		t.Errorf("clip = %q (%d bytes)", got, len(got))
	}
}
