package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// commandCatalog is a workspace of skills with these front matters, by
// folder name.
func commandCatalog(t *testing.T, skills map[string]string) Catalog {
	t.Helper()
	dir := t.TempDir()
	for folder, fm := range skills {
		if err := os.MkdirAll(filepath.Join(dir, folder), 0o755); err != nil {
			t.Fatal(err)
		}
		body := "---\n" + fm + "\n---\nDo the thing.\n"
		if err := os.WriteFile(filepath.Join(dir, folder, FileName), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Discover([]Source{{Dir: dir, Origin: OriginWorkspace}}, fakeEnv(nil), fakePath, "linux")
}

func TestCommands(t *testing.T) {
	long := strings.Repeat("a", 40)
	c := commandCatalog(t, map[string]string{
		"weather":     "name: weather\ndescription: Forecasts.",
		"git-helper":  "name: git-helper\ndescription: Git.",
		"status":      "name: status\ndescription: Clashes with /status.",
		"hidden":      "name: hidden\ndescription: Not a command.\nuser-invocable: false",
		"manual-only": "name: manual-only\ndescription: Only when asked.\ndisable-model-invocation: true",
		"long":        "name: " + long + "\ndescription: A long name.",
		"long2":       "name: " + long + "-b\ndescription: The same 32 characters.",
	})
	got := map[string]string{}
	for _, cmd := range Commands(c, []string{"status", "help"}) {
		got[cmd.Skill] = cmd.Name
		if len(cmd.Name) > 32 || strings.Trim(cmd.Name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("/%s is not a name Telegram takes", cmd.Name)
		}
	}
	want := map[string]string{
		"weather": "weather", "git-helper": "git_helper", "status": "status_2", "manual-only": "manual_only",
		long: long[:32], long + "-b": long[:30] + "_2",
	}
	if len(got) != len(want) {
		t.Errorf("commands %v, want %v", got, want)
	}
	for skill, name := range want {
		if got[skill] != name {
			t.Errorf("skill %s: command /%s, want /%s", skill, got[skill], name)
		}
	}
	if _, ok := got["hidden"]; ok {
		t.Error("a skill with user-invocable: false got a command")
	}
	// disable-model-invocation keeps it out of the prompt's directory.
	if dir := Directory(c, 0); strings.Contains(dir, "manual-only") || !strings.Contains(dir, "- weather:") {
		t.Errorf("directory:\n%s", dir)
	}
}

func TestCommandName(t *testing.T) {
	for in, want := range map[string]string{
		"weather": "weather", "Git-Helper": "git_helper", "a--b": "a_b", "-x-": "x", "ü": "", "x_y": "x_y",
		strings.Repeat("ab-", 20): "ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab",
	} {
		if got := CommandName(in); got != want {
			t.Errorf("CommandName(%q) = %q, want %q", in, got, want)
		}
	}
}
