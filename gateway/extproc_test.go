package gateway

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestOutOfProcessPlugin: a plugin executable found in plugins.load.paths
// registers a tool agents can call, and its after_tool hook applies to a
// core tool, with its config from plugins.entries.<id>.config.
func TestOutOfProcessPlugin(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "demo", "plugin")
	if out, err := exec.Command("go", "build", "-o", bin, "../plugins/extproc/testdata/plugin").CombinedOutput(); err != nil {
		t.Fatalf("build the test plugin: %v\n%s", err, out)
	}
	manifest := `{"id": "demo", "name": "Demo", "description": "test plugin", "command": "./plugin"}`
	if err := os.WriteFile(filepath.Join(dir, "demo", "openclaw.plugin.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	_, c := startWithConfig(t, fakemodel.New(t), fmt.Sprintf(`plugins: { load: { paths: [%q] },
    entries: { demo: { config: { checkTool: "DateTimeTool" } } } },`, dir))
	waitMCPTool(t, c, "demo__shout")

	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "demo__shout", "args": map[string]any{"text": "hello"}})
	if res["ok"] != true || res["output"] != "HELLO" {
		t.Fatalf("demo__shout: %v", res)
	}
	res = call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "DateTimeTool", "args": map[string]any{"timezone": "UTC"}})
	if res["ok"] != true || !strings.HasSuffix(fmt.Sprint(res["output"]), " [checked]") {
		t.Fatalf("the plugin's after_tool hook did not see DateTimeTool: %v", res)
	}
	res = call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "demo__fail", "args": map[string]any{}})
	if res["ok"] == true {
		t.Fatalf("demo__fail: %v", res)
	}
}
