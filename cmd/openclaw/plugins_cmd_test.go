package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginsCommand: list shows the bundled optional plugin and the
// folders of plugins.load.paths with why each runs or not; enable and
// disable write plugins.entries.<id>.enabled keeping comments; an
// unknown id is refused and the file is left as it was.
func TestPluginsCommand(t *testing.T) {
	home := isolate(t)
	plug := filepath.Join(home, "plugins", "weather")
	os.MkdirAll(plug, 0o700)
	os.WriteFile(filepath.Join(plug, "openclaw.plugin.json"), []byte(`{"id":"weather","name":"Weather","command":"./run"}`), 0o600)
	cfgPath := filepath.Join(home, ".openclaw", "openclaw.json")
	os.MkdirAll(filepath.Dir(cfgPath), 0o700)
	cfg := "{\n  // my plugins\n  plugins: { load: { paths: [" + `"` + filepath.Dir(plug) + `"` + "] }, deny: [\"weather\"] },\n}\n"
	os.WriteFile(cfgPath, []byte(cfg), 0o600)

	out, _, err := runCLI(t, "plugins", "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"llm-task  off", "weather   blocked  path"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if out, _, _ := runCLI(t, "plugins", "list", "--enabled", "--json"); !strings.Contains(out, `"plugins": []`) {
		t.Errorf("--enabled --json with none running:\n%s", out)
	}

	if _, stderr, err := runCLI(t, "plugins", "enable", "llm-task", "weather"); err != nil {
		t.Fatal(err)
	} else if !strings.Contains(stderr, "weather stays blocked") {
		t.Errorf("enable of a denied plugin said nothing:\n%s", stderr)
	}
	got, _ := os.ReadFile(cfgPath)
	if !strings.Contains(string(got), "// my plugins") || !strings.Contains(string(got), `"llm-task"`) {
		t.Fatalf("config after enable:\n%s", got)
	}
	if out, _, _ := runCLI(t, "plugins", "list"); !strings.Contains(out, "llm-task  enabled") {
		t.Errorf("after enable:\n%s", out)
	}
	if _, _, err := runCLI(t, "plugins", "disable", "llm-task"); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := runCLI(t, "plugins", "list"); !strings.Contains(out, "llm-task  disabled") {
		t.Errorf("after disable:\n%s", out)
	}
	before, _ := os.ReadFile(cfgPath)
	if _, _, err := runCLI(t, "plugins", "enable", "nope"); err == nil || !strings.Contains(err.Error(), `no plugin "nope"`) {
		t.Fatalf("unknown plugin: %v", err)
	}
	if after, _ := os.ReadFile(cfgPath); string(after) != string(before) {
		t.Fatal("a refused enable changed the file")
	}
}
