package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateCommand: the flags and the refusal to import unasked.
func TestMigrateCommand(t *testing.T) {
	from := t.TempDir()
	if err := os.WriteFile(filepath.Join(from, "openclaw.json"), []byte(`{ gateway: { mode: "local" } }`), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "ours")
	t.Setenv("OPENCLAW_HOME", t.TempDir())
	t.Setenv("OPENCLAW_STATE_DIR", state)
	t.Setenv("OPENCLAW_CONFIG_PATH", "")
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantOut    string
		wantConfig bool
	}{
		{"no --from", []string{"migrate"}, "--from is required", "", false},
		{"not an install", []string{"migrate", "--from", t.TempDir(), "--dry-run"}, "not an OpenClaw state directory", "", false},
		{"dry run", []string{"migrate", "--from", from, "--dry-run"}, "", "Dry run: nothing was changed", false},
		{"unasked on a non-terminal", []string{"migrate", "--from", from}, "pass --yes", "config file", false},
		{"--yes", []string{"migrate", "--from", from, "--yes"}, "", "Imported into", true},
		{"second run", []string{"migrate", "--from", from, "--yes"}, "", "Nothing to import", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader("y\n"), &stdout, &stderr)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("error %v\n%s%s", err, &stdout, &stderr)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Fatalf("stdout lacks %q:\n%s", tt.wantOut, &stdout)
			}
			_, statErr := os.Stat(filepath.Join(state, "openclaw.json"))
			if (statErr == nil) != tt.wantConfig {
				t.Fatalf("our config exists %v, want %v", statErr == nil, tt.wantConfig)
			}
		})
	}
}
