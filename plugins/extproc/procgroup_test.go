package extproc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/plugins/internal/plugintest"
)

// TestPluginChildrenEnd performs the leak on plugins: a plugin that
// started a child of its own, then goes away because it was removed from
// the config, the gateway stopped, or it crashed and was restarted. Its
// child must go with it each time.
func TestPluginChildrenEnd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process groups on windows")
	}
	tests := []struct {
		name string
		end  func(t *testing.T, m *Manager)
	}{
		{"removed from config", func(t *testing.T, m *Manager) { startPlugins(t, m) }},
		{"gateway stops", func(t *testing.T, m *Manager) { m.Close() }},
		{"plugin crashes", func(t *testing.T, m *Manager) { call(t, m, "test__crash", `{}`) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "child.pid")
			cfg, _ := json.Marshal(map[string]string{"grandchild": file})
			m := newTestManager(t, nil)
			startPlugins(t, m, testPlugin(t, "test", string(cfg)))
			plugin := status(m, "test").PID
			var pid int
			plugintest.WaitFor(t, "the plugin's child", func() bool {
				b, err := os.ReadFile(file)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return err == nil && pid > 0
			})
			t.Cleanup(func() {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			})
			if !plugintest.Alive(pid) {
				t.Fatalf("the plugin's child %d is not running", pid)
			}
			os.Remove(file)
			tt.end(t, m)
			plugintest.WaitFor(t, "the plugin's child to end", func() bool { return !plugintest.Alive(pid) })
			if plugintest.Alive(plugin) {
				t.Errorf("the plugin %d is still running", plugin)
			}
		})
	}
}
