package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePath has jq and curl, nothing else.
func fakePath(bin string) (string, error) {
	switch bin {
	case "jq", "curl":
		return "/usr/bin/" + bin, nil
	}
	return "", errors.New("not found")
}

func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func testSources() []Source {
	// Listed weakest first to show that origin, not order, decides.
	return []Source{
		{Dir: filepath.Join("testdata", "extra"), Origin: OriginExtra},
		{Dir: filepath.Join("testdata", "managed"), Origin: OriginManaged},
		{Dir: filepath.Join("testdata", "missing"), Origin: OriginExtra},
		{Dir: filepath.Join("testdata", "workspace"), Origin: OriginWorkspace},
	}
}

func testCatalog() Catalog {
	return Discover(testSources(), fakeEnv(nil), fakePath, "linux")
}

func TestDiscover(t *testing.T) {
	c := testCatalog()
	type want struct {
		origin string
		status Status
		reason string // substring
	}
	cases := map[string]want{ // keyed by origin/folder
		"workspace/weather":      {OriginWorkspace, StatusAvailable, ""},
		"workspace/folder-named": {OriginWorkspace, StatusAvailable, ""},
		"workspace/badname":      {OriginWorkspace, StatusInvalid, "letters, digits and hyphens"},
		"workspace/nodesc":       {OriginWorkspace, StatusInvalid, "no description"},
		"workspace/nofm":         {OriginWorkspace, StatusInvalid, "no front matter"},
		"workspace/needs-jq":     {OriginWorkspace, StatusAvailable, ""},
		"workspace/needs-gh":     {OriginWorkspace, StatusUnavailable, "needs bin gh"},
		"workspace/needs-env":    {OriginWorkspace, StatusUnavailable, "needs env GITHUB_TOKEN"},
		"workspace/mac-only":     {OriginWorkspace, StatusUnavailable, "only on darwin"},
		"managed/weather":        {OriginManaged, StatusShadowed, "shadowed by workspace skill"},
		"managed/managed-only":   {OriginManaged, StatusAvailable, ""},
		"extra/managed-only":     {OriginExtra, StatusShadowed, "shadowed by managed skill"},
		"extra/extra-only":       {OriginExtra, StatusAvailable, ""},
	}
	got := map[string]Entry{}
	for _, e := range c.All() {
		key := filepath.Base(filepath.Dir(e.Dir)) + "/" + filepath.Base(e.Dir)
		got[key] = e
	}
	if _, ok := got["workspace/notaskill"]; ok {
		t.Error("a folder without SKILL.md was listed")
	}
	for key, w := range cases {
		t.Run(key, func(t *testing.T) {
			e, ok := got[key]
			if !ok {
				t.Fatal("not discovered")
			}
			if e.Origin != w.origin || e.Status != w.status || !strings.Contains(e.Reason, w.reason) || (w.reason == "") != (e.Reason == "") {
				t.Errorf("got origin %s status %s reason %q; want %s %s %q", e.Origin, e.Status, e.Reason, w.origin, w.status, w.reason)
			}
			if e.Path != filepath.Join(e.Dir, FileName) {
				t.Errorf("path %s", e.Path)
			}
		})
	}
	if len(got) != len(cases) {
		t.Errorf("discovered %d folders, want %d", len(got), len(cases))
	}

	w, ok := c.Get("weather")
	if !ok || w.Origin != OriginWorkspace || w.Description != "Get current weather and forecasts for any city." {
		t.Errorf("Get(weather) = %+v, %v", w, ok)
	}
	if len(w.Scripts) != 1 || w.Scripts[0] != "forecast.sh" {
		t.Errorf("scripts = %v", w.Scripts)
	}
	if _, ok := c.Get("badname"); ok {
		t.Error("an invalid skill owns a name")
	}
	var names []string
	for _, e := range c.Available() {
		names = append(names, e.Name)
	}
	if g, w := strings.Join(names, " "), "extra-only folder-named managed-only needs-jq weather"; g != w {
		t.Errorf("Available = %s, want %s", g, w)
	}
}

func TestDiscoverGating(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		path   func(string) (string, error)
		goos   string
		skill  string
		status Status
	}{
		{"env set", map[string]string{"GITHUB_TOKEN": "x"}, fakePath, "linux", "needs-env", StatusAvailable},
		{"env empty", map[string]string{"GITHUB_TOKEN": ""}, fakePath, "linux", "needs-env", StatusUnavailable},
		{"os match", nil, fakePath, "darwin", "mac-only", StatusAvailable},
		{"bin present", nil, fakePath, "linux", "needs-jq", StatusAvailable},
		{"no lookPath", nil, nil, "linux", "needs-jq", StatusUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Discover(testSources(), fakeEnv(tc.env), tc.path, tc.goos)
			if e, _ := c.Get(tc.skill); e.Status != tc.status {
				t.Errorf("%s: status %s (%s), want %s", tc.skill, e.Status, e.Reason, tc.status)
			}
		})
	}
}

func writeSkill(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, FileName), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverLimits(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "big", "---\nname: big\ndescription: d\n---\n"+strings.Repeat("x", MaxFileBytes))
	c := Discover([]Source{{Dir: dir, Origin: OriginWorkspace}}, nil, nil, "linux")
	if e := c.All(); len(e) != 1 || e[0].Status != StatusInvalid || !strings.Contains(e[0].Reason, "larger than 256 KiB") {
		t.Fatalf("oversized: %+v", e)
	}

	many := t.TempDir()
	for i := range MaxPerSource + 5 {
		n := fmt.Sprintf("s%03d", i)
		writeSkill(t, many, n, "---\ndescription: d\n---\n")
	}
	c = Discover([]Source{{Dir: many, Origin: OriginExtra}}, nil, nil, "linux")
	if n := len(c.All()); n != MaxPerSource {
		t.Errorf("discovered %d skills from one source, want %d", n, MaxPerSource)
	}
}

func TestWithDisabled(t *testing.T) {
	base := testCatalog()
	c := base.WithDisabled(func(n string) bool { return n == "weather" })
	e, _ := c.Get("weather")
	if e.Status != StatusUnavailable || e.Reason != "disabled in config" || e.Origin != OriginWorkspace {
		t.Errorf("disabled weather: %+v", e)
	}
	if orig, _ := base.Get("weather"); orig.Status != StatusAvailable {
		t.Error("WithDisabled changed the original")
	}
}
