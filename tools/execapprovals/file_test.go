package execapprovals

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
)

func TestStoreRoundTripAndCAS(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exec-approvals.json")
	s := New(path)
	snap, err := s.Get()
	if err != nil || snap.Exists || snap.File.Version != 1 {
		t.Fatalf("missing file: %+v %v", snap, err)
	}
	f := File{Version: 1, Defaults: Settings{Security: "allowlist", Ask: "always"},
		Agents: map[string]AgentFile{"*": {Allowlist: []AllowEntry{{Pattern: "/usr/bin/ls"}}}, "main": {Settings: Settings{AskFallback: "full"}, Allowlist: []AllowEntry{{Pattern: "/usr/bin/git"}}}}}
	got, err := s.Set(f, snap.Hash)
	if err != nil || !got.Exists {
		t.Fatalf("set: %+v %v", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	if _, err := s.Set(f, snap.Hash); !errors.Is(err, ErrStale) {
		t.Fatalf("stale write: %v", err)
	}
	p := got.File.PolicyFor("main")
	if p.Security != execpolicy.SecurityAllowlist || p.Ask != execpolicy.AskAlways || p.AskFallback != execpolicy.SecurityFull || len(p.Allowlist) != 2 {
		t.Fatalf("policy for main = %+v", p)
	}
	if other := got.File.PolicyFor("other"); len(other.Allowlist) != 1 || other.AskFallback != execpolicy.SecurityDeny {
		t.Fatalf("policy for other = %+v", other)
	}
}

func TestValidate(t *testing.T) {
	err := File{Version: 2, Defaults: Settings{Security: "yolo"}, Agents: map[string]AgentFile{"a": {Settings: Settings{Ask: "sometimes"}, Allowlist: []AllowEntry{{}}}}}.Validate()
	for _, want := range []string{"version must be 1", `defaults.security "yolo"`, `agents.a.ask "sometimes"`, "agents.a.allowlist[0]: pattern is required"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want %q", err, want)
		}
	}
}
