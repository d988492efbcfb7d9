package pluginhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/plugins/skills"
)

// skills.entries.<name>.env and apiKey go to that skill's scripts only:
// they meet its requires.env, no other skill gets them, and skills.status
// never shows them.
func TestSkillEntryEnv(t *testing.T) {
	const key = "sk-image-lab-secret-123"
	h, _, ag := newHost(t, `{skills: {entries: {
		"image-lab": {apiKey: "`+key+`", env: {IMAGE_LAB_REGION: "eu"}},
		plain: {env: {PLAIN_MODE: "1"}},
	}}}`)
	write := func(name, front string) {
		dir := filepath.Join(ag.dir, "main", WorkspaceSkills, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: " + name + "\ndescription: the " + name + " skill\n" + front + "---\nbody\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("image-lab", "metadata:\n  openclaw:\n    primaryEnv: OCGO_TEST_IMAGE_LAB_KEY\n    requires:\n      env: [OCGO_TEST_IMAGE_LAB_KEY]\n")
	write("plain", "")
	write("needs-key", "requires:\n  env: [OCGO_TEST_IMAGE_LAB_KEY]\n")

	c := h.skillCatalog("main")
	lab, _ := c.Get("image-lab")
	if lab.Status != skills.StatusAvailable {
		t.Fatalf("image-lab: %s (%s), want available through its apiKey", lab.Status, lab.Reason)
	}
	if want := []string{"IMAGE_LAB_REGION=eu", "OCGO_TEST_IMAGE_LAB_KEY=" + key}; !slices.Equal(lab.Env, want) {
		t.Fatalf("image-lab env %v, want %v", lab.Env, want)
	}
	plain, _ := c.Get("plain")
	if !slices.Equal(plain.Env, []string{"PLAIN_MODE=1"}) {
		t.Fatalf("plain env %v", plain.Env)
	}
	// Another skill needing the same variable does not get image-lab's key.
	if other, _ := c.Get("needs-key"); other.Status != skills.StatusUnavailable || len(other.Env) != 0 {
		t.Fatalf("needs-key: %s %v, want unavailable with no env", other.Status, other.Env)
	}
	st, err := h.skillsStatus(context.Background(), nil, skillsStatusParams{AgentID: "main"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(st)
	if strings.Contains(string(raw), key) || strings.Contains(string(raw), "IMAGE_LAB_REGION") {
		t.Fatalf("skills.status shows the skill's env: %s", raw)
	}
}
