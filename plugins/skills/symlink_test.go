package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeSkillMD(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + name + "\ndescription: the " + name + " skill\n---\nbody\n"
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A skill root is a boundary: a symlinked skill folder that resolves
// outside it is refused unless skills.load.allowSymlinkTargets trusts
// where it lands; a SKILL.md may never point out of its own folder.
func TestSymlinkedSkillContainment(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "workspace", "skills")
	trusted := filepath.Join(base, "shared-skills")
	untrusted := filepath.Join(base, "downloads")
	writeSkillMD(t, filepath.Join(root, "inside"), "inside")
	writeSkillMD(t, filepath.Join(trusted, "shared"), "shared")
	writeSkillMD(t, filepath.Join(untrusted, "evil"), "evil")
	writeSkillMD(t, filepath.Join(untrusted, "loose"), "loose")
	for link, target := range map[string]string{
		"shared": filepath.Join(trusted, "shared"),
		"evil":   filepath.Join(untrusted, "evil"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	// A real folder whose SKILL.md is a link to a file elsewhere.
	if err := os.MkdirAll(filepath.Join(root, "mdlink"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(untrusted, "loose", FileName), filepath.Join(root, "mdlink", FileName)); err != nil {
		t.Fatal(err)
	}
	env := func(string) string { return "" }
	look := func(string) (string, error) { return "", os.ErrNotExist }
	cases := []struct {
		name    string
		src     Source
		want    map[string]Status
		escaped []string
	}{
		{"contained, no targets", Source{Dir: root, Origin: OriginWorkspace, Contained: true},
			map[string]Status{"inside": StatusAvailable, "shared": StatusInvalid, "evil": StatusInvalid, "mdlink": StatusInvalid}, []string{"shared", "evil", "mdlink"}},
		{"a trusted target", Source{Dir: root, Origin: OriginWorkspace, Contained: true, AllowTargets: []string{trusted}},
			map[string]Status{"inside": StatusAvailable, "shared": StatusAvailable, "evil": StatusInvalid, "mdlink": StatusInvalid}, []string{"evil", "mdlink"}},
		{"the file system root is never trusted", Source{Dir: root, Origin: OriginWorkspace, Contained: true, AllowTargets: []string{"/"}},
			map[string]Status{"shared": StatusInvalid, "evil": StatusInvalid}, []string{"shared", "evil"}},
		{"the managed folder follows folder links", Source{Dir: root, Origin: OriginManaged},
			map[string]Status{"inside": StatusAvailable, "shared": StatusAvailable, "evil": StatusAvailable, "mdlink": StatusInvalid}, []string{"mdlink"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Discover([]Source{tc.src}, env, look, "linux")
			got := map[string]Entry{}
			for _, e := range c.All() {
				got[filepath.Base(e.Dir)] = e
			}
			for name, want := range tc.want {
				if got[name].Status != want {
					t.Errorf("%s: %s (%s), want %s", name, got[name].Status, got[name].Reason, want)
				}
			}
			for _, name := range tc.escaped {
				if !strings.HasPrefix(got[name].Reason, "symlink-escape") {
					t.Errorf("%s: reason %q, want symlink-escape", name, got[name].Reason)
				}
				if _, ok := c.Get(name); ok && got[name].Status == StatusInvalid {
					if e, _ := c.Get(name); e.Status == StatusAvailable {
						t.Errorf("%s is usable", name)
					}
				}
			}
		})
	}
}

// A skill's configured env reaches its own scripts and no other skill's.
func TestSkillScriptGetsItsEnv(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"lab", "other"} {
		writeSkillMD(t, filepath.Join(dir, name), name)
		sd := filepath.Join(dir, name, "scripts")
		os.MkdirAll(sd, 0o700)
		os.WriteFile(filepath.Join(sd, "run"), []byte("#!/bin/sh\n"), 0o700)
	}
	c := Discover([]Source{{Dir: dir, Origin: OriginWorkspace}}, nil, nil, "linux").WithEnv(func(name string) map[string]string {
		if name == "lab" {
			return map[string]string{"LAB_KEY": "k-123", "ALREADY_SET": "config"}
		}
		return nil
	}, func(k string) string {
		if k == "ALREADY_SET" {
			return "process"
		}
		return ""
	}, nil, "linux")
	for name, want := range map[string][]string{"lab": {"LAB_KEY=k-123"}, "other": nil} {
		r := &fakeRunner{}
		if _, err := call(t, SkillScriptTool(fixed(c), r), map[string]any{"skillName": name, "script": "run"}); err != nil {
			t.Fatal(err)
		}
		got := slices.DeleteFunc(slices.Clone(r.env), func(s string) bool { return strings.HasPrefix(s, "SKILL_") })
		if !slices.Equal(got, want) {
			t.Errorf("%s script env %v, want %v", name, got, want)
		}
	}
}
