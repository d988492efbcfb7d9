package mcp

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/plugins/internal/plugintest"
)

// grandchild starts nothing itself: it waits for the server started with
// MCPTEST_GRANDCHILD=file to write the pid of the `sleep 300` it spawned.
func grandchild(t *testing.T, file string) int {
	t.Helper()
	var pid int
	plugintest.WaitFor(t, "the server's child", func() bool {
		b, err := os.ReadFile(file)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	if !plugintest.Alive(pid) {
		t.Fatalf("the server's child %d is not running", pid)
	}
	return pid
}

// TestServerChildrenEnd performs the leak: a stdio server that started a
// child of its own (a wrapper script's `sleep`, holding its stderr), then
// goes away because it was removed from the config, the gateway stopped,
// or it crashed and was restarted. Its child must go with it each time.
func TestServerChildrenEnd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process groups on windows")
	}
	tests := []struct {
		name string
		end  func(t *testing.T, m *Manager, name string)
	}{
		{"removed from config", func(t *testing.T, m *Manager, _ string) {
			if err := m.Sync(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"gateway stops", func(t *testing.T, m *Manager, _ string) { m.Close() }},
		{"server crashes", func(t *testing.T, m *Manager, name string) {
			call(t, plugintest.FindTool(t, m, name+"__echo"), `{"text":"bye"}`) // MCPTEST_CRASH_AFTER=1
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, nil)
			file := filepath.Join(t.TempDir(), "child.pid")
			cfg := stdio("g", "MCPTEST_GRANDCHILD", file, "MCPTEST_CRASH_AFTER", "1")
			if err := m.Sync(t.Context(), []ServerConfig{cfg}); err != nil {
				t.Fatal(err)
			}
			server := waitReady(t, m, "g").PID
			pid := grandchild(t, file)
			t.Cleanup(func() {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			})
			os.Remove(file)
			tt.end(t, m, "g")
			plugintest.WaitFor(t, "the server's child to end", func() bool { return !plugintest.Alive(pid) })
			if plugintest.Alive(server) {
				t.Errorf("the server %d is still running", server)
			}
		})
	}
}
