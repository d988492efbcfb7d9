package extproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeManifest(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadManifest(t *testing.T) {
	cases := []struct {
		name, body string
		wantErr    []string // substrings; none = valid
	}{
		{"valid", `{"id":"weather","name":"W","command":"./bin/weather","args":["-v"],"env":{"A":"b"}}`, nil},
		{"unknown keys ignored", `{"id":"w_1-x","command":"w","configSchema":{}}`, nil},
		{"missing id", `{"command":"./w"}`, []string{"id: required"}},
		{"bad id", `{"id":"we ather","command":"./w"}`, []string{`id: "we ather"`}},
		{"long id", `{"id":"` + strings.Repeat("a", 65) + `","command":"./w"}`, []string{"id:"}},
		{"missing command", `{"id":"w"}`, []string{"command: required"}},
		{"both missing", `{}`, []string{"id: required", "command: required"}},
		{"bad env", `{"id":"w","command":"w","env":{"A=B":"c"}}`, []string{"env:"}},
		{"not json", `{"id":`, []string{ManifestFile}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeManifest(t, dir, tc.body)
			m, err := LoadManifest(dir)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("LoadManifest: %v", err)
				}
				if m.Dir == "" || !filepath.IsAbs(m.Dir) {
					t.Errorf("Dir = %q, want absolute", m.Dir)
				}
				return
			}
			if err == nil {
				t.Fatalf("LoadManifest = %+v, want error", m)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		if _, err := LoadManifest(t.TempDir()); err == nil {
			t.Fatal("want error")
		}
	})
}

func TestCommandPath(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{"./bin/w", "/p/bin/w"},
		{"bin/w", "/p/bin/w"},
		{"/usr/bin/w", "/usr/bin/w"},
		{"node", "node"},
	}
	for _, tc := range cases {
		if got := (Manifest{Dir: "/p", Command: tc.cmd}).commandPath(); got != tc.want {
			t.Errorf("commandPath(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	writeManifest(t, filepath.Join(root, "a"), `{"id":"alpha","command":"./a"}`)
	writeManifest(t, filepath.Join(root, "b"), `{"id":"beta","command":"./b"}`)
	writeManifest(t, filepath.Join(root, "broken"), `{"id":"bad id","command":"./b"}`)
	writeManifest(t, filepath.Join(root, "dup"), `{"id":"alpha","command":"./dup"}`)
	os.MkdirAll(filepath.Join(root, "empty"), 0o755)
	os.WriteFile(filepath.Join(root, "file.txt"), nil, 0o644)
	single := filepath.Join(t.TempDir(), "solo")
	writeManifest(t, single, `{"id":"solo","command":"./s"}`)

	ms, errs := Discover([]string{root, single, filepath.Join(root, "missing")})
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	if got := strings.Join(ids, ","); got != "alpha,beta,solo" {
		t.Errorf("ids = %s, want alpha,beta,solo", got)
	}
	if len(errs) != 3 {
		t.Fatalf("errs = %v, want bad id, duplicate, missing dir", errs)
	}
	all := ""
	for _, e := range errs {
		all += e.Error() + "\n"
	}
	for _, w := range []string{"bad id", "already used", "missing"} {
		if !strings.Contains(all, w) {
			t.Errorf("errors do not mention %q:\n%s", w, all)
		}
	}
	for _, m := range ms {
		if m.ID == "alpha" && filepath.Base(m.Dir) != "a" {
			t.Errorf("alpha from %s, want the first found (a)", m.Dir)
		}
	}
}
