package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestPluginsCLI: the built binary lists the bundled llm-task plugin as
// off, turns it on in the config, and then the gateway started on that
// config offers the llm-task tool.
func TestPluginsCLI(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	dir := t.TempDir()
	env, _, cfgPath := isolatedEnv(t, dir)
	bin := needOurBin(t)
	if err := os.WriteFile(cfgPath, []byte("{\n  // plugins by hand\n  gateway: { mode: \"local\" },\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runCmd(t, env, dir, bin, "plugins", "list", "--json"); r.Code != 0 || !strings.Contains(r.Stdout, `"status": "off"`) {
		t.Fatalf("plugins list:\n%s", r)
	}
	if r := runCmd(t, env, dir, bin, "plugins", "enable", "llm-task"); r.Code != 0 {
		t.Fatalf("plugins enable:\n%s", r)
	}
	cfg, _ := os.ReadFile(cfgPath)
	if !strings.Contains(string(cfg), "// plugins by hand") {
		t.Fatalf("the edit lost the comment:\n%s", cfg)
	}
	g := startGateway(t, gatewayOpts{Config: string(cfg)})
	tools := ourClient(t, g).run(t, "tools", "list", "--json")
	tools.mustSucceed(t)
	if !strings.Contains(tools.Stdout, "llm-task") && !strings.Contains(tools.Stdout, "llm_task") {
		t.Fatalf("the enabled plugin's tool is not offered:\n%s", tools)
	}
}
