package admin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

type noSessions struct{}

func (noSessions) List(context.Context, sessions.ListFilter) ([]sessions.Session, int, error) {
	return nil, 0, nil
}

func (noSessions) Changes() uint64 { return 0 }

// testWing is a wing over a config file in a temp dir, with the root's
// reload transaction replaced by one that records what it was asked.
type testWing struct {
	*Wing
	path     string
	current  atomic.Pointer[config.Snapshot]
	applied  []*config.Snapshot
	applyErr error
	restarts int
}

const testConfig = `{
  // kept by every write
  gateway: { mode: "local", auth: { token: "admin-test-token-0123" } },
  logging: { level: "info" },
}
`

func newTestWing(t *testing.T) *testWing {
	t.Helper()
	dir := t.TempDir()
	tw := &testWing{path: filepath.Join(dir, "openclaw.json")}
	if err := os.WriteFile(tw.path, []byte(testConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	snap, err := config.Load(tw.path, config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tw.current.Store(snap)
	st := storetest.Open(t, Migrations())
	w, err := New(context.Background(), Options{
		Config:   tw.current.Load,
		Sessions: noSessions{},
		DB:       st.DB,
		CheckStartable: func(s *config.Snapshot) error {
			if s.Config.Gateway.Mode == "remote" {
				return errors.New("remote is refused")
			}
			return nil
		},
		Apply: func(s *config.Snapshot) error {
			if tw.applyErr != nil {
				return tw.applyErr
			}
			tw.applied = append(tw.applied, s)
			tw.current.Store(s)
			return nil
		},
		Restart: func() { tw.restarts++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	tw.Wing = w
	return tw
}

func (tw *testWing) file(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(tw.path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteConfig: the writer the root hands to other parts refuses what
// config.set refuses, leaving the file as it was and applying nothing, and
// applies (and, for config.apply, restarts) only what it wrote.
func TestWriteConfig(t *testing.T) {
	debug := strings.Replace(testConfig, `level: "info"`, `level: "debug"`, 1)
	port := strings.Replace(testConfig, `mode: "local",`, `mode: "local", port: 18800,`, 1)
	tests := []struct {
		name, method, raw string
		staleHash         bool
		apply             bool
		wantDetail        string // "" = written
		wantApplied       int
		wantRestarts      int
		wantInFile        string
	}{
		{name: "stale base hash", method: "config.set", raw: debug, staleHash: true, apply: true, wantDetail: protocol.DetailConfigBaseHashMismatch},
		{name: "invalid text", method: "config.set", raw: `{ gateway: { port: "nope" } }`, apply: true, wantDetail: protocol.DetailInvalidConfig},
		{name: "not startable", method: "config.set", raw: `{ gateway: { mode: "remote" } }`, apply: true, wantDetail: protocol.DetailInvalidConfig},
		{name: "written, not applied", method: "config.set", raw: debug, wantInFile: `level: "debug"`},
		{name: "written and applied", method: "config.set", raw: debug, apply: true, wantApplied: 1, wantInFile: `level: "debug"`},
		{name: "restart for a listener field", method: "config.apply", raw: port, apply: true, wantApplied: 1, wantRestarts: 1, wantInFile: "port: 18800"},
		{name: "no restart from config.patch", method: "config.patch", raw: port, apply: true, wantApplied: 1, wantInFile: "port: 18800"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tw := newTestWing(t)
			hash := tw.current.Load().Hash
			if tc.staleHash {
				hash = "0123"
			}
			_, err := tw.WriteConfig(tc.method, []byte(tc.raw), hash, tc.apply)
			if tc.wantDetail != "" {
				var pe *protocol.Error
				var details map[string]any
				if errors.As(err, &pe) {
					details, _ = pe.Details.(map[string]any)
				}
				if details["code"] != tc.wantDetail {
					t.Fatalf("err = %v (details %v), want %s", err, details, tc.wantDetail)
				}
				if got := tw.file(t); got != testConfig {
					t.Errorf("a refused write changed the file:\n%s", got)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if got := tw.file(t); !strings.Contains(got, tc.wantInFile) || !strings.Contains(got, "// kept by every write") {
				t.Errorf("file after the write:\n%s", got)
			}
			if len(tw.applied) != tc.wantApplied || tw.restarts != tc.wantRestarts {
				t.Errorf("applied %d, restarts %d; want %d, %d", len(tw.applied), tw.restarts, tc.wantApplied, tc.wantRestarts)
			}
		})
	}
}

// TestWriteConfigApplyFails: when the reload transaction refuses what was
// written, the caller hears why.
func TestWriteConfigApplyFails(t *testing.T) {
	tw := newTestWing(t)
	tw.applyErr = errors.New("a part refused it")
	debug := strings.Replace(testConfig, `level: "info"`, `level: "debug"`, 1)
	if _, err := tw.WriteConfig("config.set", []byte(debug), tw.current.Load().Hash, true); err == nil || err.Error() != "a part refused it" {
		t.Fatalf("err = %v, want the transaction's", err)
	}
}

// TestBootstrapOwner: the first approved sender becomes the owner through
// the config writer; once there is one, nobody else does.
func TestBootstrapOwner(t *testing.T) {
	tw := newTestWing(t)
	ctx := context.Background()
	if got, err := tw.BootstrapOwner(ctx, "telegram", "123"); err != nil || got != "configured" {
		t.Fatalf("first = %q, %v", got, err)
	}
	if !strings.Contains(tw.file(t), `"telegram:123"`) || len(tw.applied) != 1 {
		t.Fatalf("after the first (applied %d):\n%s", len(tw.applied), tw.file(t))
	}
	if got, err := tw.BootstrapOwner(ctx, "telegram", "456"); err != nil || got != "already-configured" {
		t.Fatalf("second = %q, %v", got, err)
	}
	if strings.Contains(tw.file(t), "456") {
		t.Errorf("a second sender became the owner:\n%s", tw.file(t))
	}
}

// TestPresenceBeforeRegister: before the wing has the server it lists
// the gateway alone rather than fail.
func TestPresenceBeforeRegister(t *testing.T) {
	tw := newTestWing(t)
	got := tw.Presence()
	if len(got) != 1 || got[0].Reason != "self" || got[0].InstanceID != "" {
		t.Fatalf("presence = %+v", got)
	}
}

func TestNewNeedsItsOptions(t *testing.T) {
	if _, err := New(context.Background(), Options{}); err == nil {
		t.Fatal("New without its required options succeeded")
	}
}
