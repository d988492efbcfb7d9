package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/service"
	"github.com/openclaw-go/openclaw/gateway/statelock"
)

func TestUninstallRefusals(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"non-interactive without scopes", []string{"uninstall", "--yes", "--non-interactive"}, "requires explicit scopes"},
		{"non-interactive without yes", []string{"uninstall", "--state", "--non-interactive"}, "requires --yes"},
		{"not confirmed", []string{"uninstall", "--state"}, "not confirmed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newStateFixture(t)
			fs := &fakeService{status: service.Status{Installed: true}}
			useFakeService(t, fs)
			_, stderr, err := runCLI(t, c.args...)
			if err == nil || !strings.Contains(stderr, c.want) {
				t.Fatalf("err %v, stderr %q; want %q", err, stderr, c.want)
			}
			if !exists(f.state) || len(fs.calls) != 0 {
				t.Errorf("refused uninstall acted: state %v, calls %v", exists(f.state), fs.calls)
			}
		})
	}
}

func TestUninstallDryRunListsAndKeeps(t *testing.T) {
	f := newStateFixture(t)
	fs := &fakeService{status: service.Status{Installed: true, Active: true}}
	useFakeService(t, fs)
	stdout, _, err := runCLI(t, "uninstall", "--all", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[dry-run] remove gateway service\n", "[dry-run] remove ~/.openclaw\n", "[dry-run] remove ~/.openclaw/workspace\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, stdout)
		}
	}
	if !exists(filepath.Join(f.state, "openclaw.json")) || len(fs.calls) != 0 {
		t.Errorf("dry run acted: calls %v", fs.calls)
	}
	stdout, _, _ = runCLI(t, "uninstall", "--state", "--dry-run")
	if !strings.Contains(stdout, "[dry-run] remove ~/.openclaw preserving ~/.openclaw/workspace\n") {
		t.Errorf("--state dry run:\n%s", stdout)
	}
}

func TestUninstallServiceThenState(t *testing.T) {
	f := newStateFixture(t)
	fs := &fakeService{status: service.Status{Installed: true, Loaded: true, Active: true}}
	useFakeService(t, fs)
	if _, stderr, err := runCLI(t, "uninstall", "--service", "--state", "--yes", "--non-interactive"); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if strings.Join(fs.calls, ",") != "uninstall" {
		t.Errorf("service calls %v", fs.calls)
	}
	// --state without --workspace keeps the workspace inside the state.
	if !exists(filepath.Join(f.state, "workspace", "AGENTS.md")) {
		t.Error("the workspace was removed without --workspace")
	}
	for _, gone := range []string{"openclaw.json", "credentials", "identity", "link-file", "link-dir"} {
		if exists(filepath.Join(f.state, gone)) {
			t.Errorf("%s still there", gone)
		}
	}
	f.outsideIntact(t)
}

// A service that cannot be removed may still run the gateway: the state
// stays, and the command fails.
func TestUninstallServiceFailureKeepsState(t *testing.T) {
	f := newStateFixture(t)
	fs := &fakeService{status: service.Status{Installed: true}, uninstallErr: errors.New("systemctl failed")}
	useFakeService(t, fs)
	_, stderr, err := runCLI(t, "uninstall", "--all", "--yes")
	if err == nil || !strings.Contains(stderr, "systemctl failed") {
		t.Fatalf("err %v, stderr %q", err, stderr)
	}
	if !exists(filepath.Join(f.state, "openclaw.json")) {
		t.Error("state removed although the service could not be")
	}
}

func TestUninstallRefusesWhileGatewayRuns(t *testing.T) {
	f := newStateFixture(t)
	useFakeService(t, &fakeService{})
	lock, err := statelock.Acquire(f.state, filepath.Join(f.state, "openclaw.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, stderr, err := runCLI(t, "uninstall", "--state", "--yes")
	if err == nil || !strings.Contains(stderr, "a gateway is running") {
		t.Fatalf("err %v, stderr %q", err, stderr)
	}
	if !exists(filepath.Join(f.state, "credentials", "telegram.json")) {
		t.Error("state removed under a running gateway")
	}
}

// A config edited (by a model with file access, say) to make the
// workspace the home directory or / must not turn uninstall --workspace
// into rm -rf ~.
func TestUninstallWorkspaceRefusesHome(t *testing.T) {
	for _, ws := range []string{"~", "/", "~/.."} {
		t.Run(ws, func(t *testing.T) {
			f := newStateFixture(t)
			useFakeService(t, &fakeService{})
			cfg := `{agents: {defaults: {workspace: "` + ws + `"}}}`
			if err := os.WriteFile(filepath.Join(f.state, "openclaw.json"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(f.home, "notes.txt")
			os.WriteFile(marker, []byte("mine"), 0o600)
			_, stderr, err := runCLI(t, "uninstall", "--workspace", "--yes", "--non-interactive")
			if err == nil || !strings.Contains(stderr, "refusing to remove workspace") {
				t.Fatalf("err %v, stderr %q", err, stderr)
			}
			if !exists(marker) || !exists(f.state) {
				t.Error("the home directory was touched")
			}
		})
	}
}
