package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logging.consoleLevel sets stderr's level apart from the log file's.
func TestConsoleLevel(t *testing.T) {
	cases := []struct {
		name, logging         string
		consoleInfo, fileInfo bool
	}{
		{"console quieter than the file", `{level: "info", consoleLevel: "warn"}`, false, true},
		{"file quieter than the console", `{level: "error", consoleLevel: "info"}`, true, false},
		{"console unset is info", `{level: "warn"}`, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var console strings.Builder
			dir := t.TempDir()
			cfg := filepath.Join(dir, "openclaw.json")
			if err := os.WriteFile(cfg, []byte(`{logging: `+tc.logging+`, gateway: {auth: {token: "t-123456"}}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done, ready := make(chan error, 1), make(chan string, 1)
			go func() {
				done <- Run(ctx, Options{StateDir: dir, ConfigPath: cfg, Port: -1, Getenv: func(string) string { return "" },
					Stderr: &lockedWriter{w: &console}, Ready: func(a string) { ready <- a }})
			}()
			select {
			case <-ready:
			case err := <-done:
				t.Fatal(err)
			}
			cancel()
			<-done
			file, _ := os.ReadFile(filepath.Join(dir, "logs", "gateway.log"))
			if got := strings.Contains(console.String(), "level=INFO"); got != tc.consoleInfo {
				t.Errorf("info on the console: %v, want %v\n%s", got, tc.consoleInfo, console.String())
			}
			if got := strings.Contains(string(file), `"level":"info"`); got != tc.fileInfo {
				t.Errorf("info in the file: %v, want %v\n%s", got, tc.fileInfo, file)
			}
		})
	}
}
