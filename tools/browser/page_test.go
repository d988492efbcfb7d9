package browser

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// ProfileDir is what a tool tells the user to log in with: the local
// profile's folder, or the remote browser, without its credentials.
func TestProfileDir(t *testing.T) {
	state := t.TempDir()
	m := NewManager(Config{StateDir: state, Profiles: map[string]Profile{
		"remote": {CDPURL: "http://user:secret@10.0.0.5:9222/json?token=abc"},
	}})
	defer m.Close()
	tests := []struct {
		profile, want string
	}{
		{"", filepath.Join(state, "browser", DefaultProfileName)},
		{"xhs", filepath.Join(state, "browser", "xhs")},
		{"remote", "the browser at http://user:xxxxx@10.0.0.5:9222/json"},
	}
	for _, tt := range tests {
		if got := m.ProfileDir(tt.profile); got != tt.want {
			t.Errorf("ProfileDir(%q) = %q, want %q", tt.profile, got, tt.want)
		}
	}
}

// Page refuses before starting anything when the browser is off or the
// profile name could be a path.
func TestPageRefuses(t *testing.T) {
	tests := []struct {
		name, profile string
		enabled       bool
		want          string
	}{
		{"browser off", "", false, "turned off"},
		{"path as a profile", "../x", true, "profile name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewManager(Config{StateDir: t.TempDir(), ExecPath: "/nonexistent/chromium", Enabled: func() bool { return tt.enabled }})
			defer m.Close()
			if _, _, err := m.Page(context.Background(), tt.profile); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}
