package gateway

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
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

// TestHookTokenReuseWarns: a hooks.token that is also the gateway's token
// or password is warned about at start (a webhook sender would hold an
// operator's key), without printing either value; a distinct one is not.
func TestHookTokenReuseWarns(t *testing.T) {
	const secret = "s3cret-shared-value"
	for _, tt := range []struct {
		name, hooks, token, password, flag string
		want                               string
	}{
		{name: "token reused", hooks: secret, token: secret, want: "gateway.auth.token"},
		{name: "password reused", hooks: secret, token: "other", password: secret, want: "gateway.auth.password"},
		{name: "the --token flag is the gateway's token", hooks: secret, token: "other", flag: secret, want: "gateway.auth.token"},
		{name: "distinct", hooks: secret, token: "other"},
		{name: "hooks off", token: secret},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			s := &System{opts: Options{Stderr: &stderr, Token: tt.flag}}
			var c config.Config
			c.Hooks.Enabled = tt.hooks != ""
			c.Hooks.Token = tt.hooks
			c.Gateway.Auth.Token.Value = tt.token
			c.Gateway.Auth.Password.Value = tt.password
			s.warnHookTokenReuse(&config.Snapshot{Config: &c})
			got := stderr.String()
			if tt.want == "" {
				if got != "" {
					t.Fatalf("warned: %q", got)
				}
				return
			}
			if !strings.Contains(got, "hooks.token is the same secret as "+tt.want) {
				t.Fatalf("warning %q, want it to name %s", got, tt.want)
			}
			if strings.Contains(got, secret) {
				t.Fatalf("the warning shows the secret: %q", got)
			}
		})
	}
}
