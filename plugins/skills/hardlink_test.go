package skills

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSkillFileHardLinkRefused performs the hard-link attack on the skill
// file readers: a file outside a workspace skill's folder, hard-linked in,
// must not be read by skill_file or load_skill.
func TestSkillFileHardLinkRefused(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "s", "---\ndescription: d\n---\n")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("secret"), 0o600)
	if err := os.Link(secret, filepath.Join(dir, "s", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	c := Discover([]Source{{Dir: dir, Origin: OriginWorkspace}}, nil, nil, runtime.GOOS)
	for name, res := range map[string]func() (string, error){
		"skill_file": func() (string, error) {
			r, err := call(t, SkillFileTool(fixed(c)), map[string]any{"action": "read", "skillName": "s", "path": "notes.txt"})
			return r.Text, err
		},
		"load_skill": func() (string, error) {
			r, err := call(t, LoadSkillTool(fixed(c)), map[string]any{"skillName": "s", "filePath": "notes.txt"})
			return r.Text, err
		},
	} {
		text, err := res()
		if err == nil || strings.Contains(text, "secret") || !strings.Contains(err.Error(), "more than one hard link") {
			t.Errorf("%s: %q, %v; want the hard link refused", name, text, err)
		}
	}
}
