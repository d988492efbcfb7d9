package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInternalHooksOnReset: with session-memory and command-logger on, a
// /new keeps the ended session's newest messages in the workspace's
// memory and logs the command; with them off (the default) neither
// happens.
func TestInternalHooksOnReset(t *testing.T) {
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "on", false: "off"}[on]
		t.Run(name, func(t *testing.T) {
			hooks := ``
			if on {
				hooks = `, hooks: {internal: {enabled: true, entries: {"session-memory": {enabled: true, messages: 2}, "command-logger": {enabled: true}}}}`
			}
			f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}}, agents:{defaults:{model:"fake/echo-1"}}`+hooks+`}`, nil)
			f.run(t, StartRequest{Message: "the oldest message"})
			f.run(t, StartRequest{Message: "remember the blue door"})
			f.run(t, StartRequest{Message: "/new", Commands: &CommandSender{ID: "telegram:7"}, Channel: "telegram"})
			ws := filepath.Join(f.svc.opts.StateDir, "workspace")
			logPath := filepath.Join(f.svc.opts.StateDir, "logs", "commands.log")
			if !on {
				time.Sleep(100 * time.Millisecond) // a background write would have landed
				if files, _ := filepath.Glob(filepath.Join(ws, "memory", "*.md")); len(files) != 0 {
					t.Errorf("memory written with the hook off: %v", files)
				}
				if _, err := os.Stat(logPath); err == nil {
					t.Error("commands logged with the hook off")
				}
				return
			}
			var files []string
			for deadline := time.Now().Add(10 * time.Second); len(files) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				files, _ = filepath.Glob(filepath.Join(ws, "memory", "*-*-*-*.md"))
			}
			if len(files) != 1 {
				t.Fatalf("memory files %v, want one", files)
			}
			b, _ := os.ReadFile(files[0])
			text := string(b)
			// messages: 2 keeps the newest two: the last question and its answer.
			if !strings.Contains(text, "**user:** remember the blue door") || !strings.Contains(text, "**assistant:** echo: remember the blue door") ||
				strings.Contains(text, "the oldest message") || !strings.Contains(text, "Ended by: /new from telegram") {
				t.Fatalf("memory file:\n%s", text)
			}
			raw, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			var line map[string]string
			if err := json.Unmarshal([]byte(strings.TrimSpace(string(raw))), &line); err != nil {
				t.Fatalf("log %q: %v", raw, err)
			}
			if line["action"] != "new" || line["senderId"] != "telegram:7" || line["source"] != "telegram" || line["sessionKey"] != "agent:main:main" || line["timestamp"] == "" {
				t.Fatalf("log line %v", line)
			}
		})
	}
}
