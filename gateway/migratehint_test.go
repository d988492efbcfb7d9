package gateway

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHintMigrate: a gateway starting on a state with no database says how
// to migrate when OpenClaw's default install exists, and stays quiet
// otherwise.
func TestHintMigrate(t *testing.T) {
	tests := []struct {
		name           string
		install, ourDB bool
		wantHint       bool
	}{
		{"install and no database of ours", true, false, true},
		{"install and our database", true, true, false},
		{"no install", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			state := filepath.Join(t.TempDir(), "state")
			mustMkdir(t, state)
			if tt.install {
				mustMkdir(t, filepath.Join(home, ".openclaw", "state"))
				mustWrite(t, filepath.Join(home, ".openclaw", "state", "openclaw.sqlite"))
			}
			if tt.ourDB {
				mustWrite(t, filepath.Join(state, "openclaw.sqlite"))
			}
			var stderr bytes.Buffer
			s := &System{opts: Options{StateDir: state, Stderr: &stderr, Getenv: func(k string) string {
				if k == "OPENCLAW_HOME" {
					return home
				}
				return ""
			}}}
			s.hintMigrate()
			want := "openclaw migrate --from " + filepath.Join(home, ".openclaw")
			if got := strings.Contains(stderr.String(), want); got != tt.wantHint {
				t.Fatalf("hint shown %v, want %v; stderr: %q", got, tt.wantHint, stderr.String())
			}
			if tt.wantHint && strings.Count(stderr.String(), "\n") != 1 {
				t.Fatalf("hint is not one line: %q", stderr.String())
			}
		})
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}
