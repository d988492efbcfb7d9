package main

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/service"
	"github.com/openclaw-go/openclaw/gateway/statelock"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// fakeService is a service manager that records what it was asked.
type fakeService struct {
	status       service.Status
	calls        []string
	uninstallErr error
}

func (f *fakeService) Name() string                               { return "systemd" }
func (f *fakeService) Path(service.Spec) string                   { return "/unit" }
func (f *fakeService) Render(service.Spec) (string, error)        { return "", nil }
func (f *fakeService) RenderEnvFile(service.Spec) (string, error) { return "", nil }
func (f *fakeService) Install(context.Context, service.Spec) error {
	f.calls = append(f.calls, "install")
	return nil
}
func (f *fakeService) Uninstall(context.Context, service.Spec) error {
	f.calls = append(f.calls, "uninstall")
	if f.uninstallErr != nil {
		return f.uninstallErr
	}
	f.status = service.Status{}
	return nil
}
func (f *fakeService) Start(context.Context, service.Spec) error {
	f.calls = append(f.calls, "start")
	return nil
}
func (f *fakeService) Stop(context.Context, service.Spec, bool) error {
	f.calls = append(f.calls, "stop")
	f.status.Active = false
	return nil
}
func (f *fakeService) Restart(context.Context, service.Spec) error { return nil }
func (f *fakeService) Status(context.Context, service.Spec) (service.Status, error) {
	return f.status, nil
}

// useFakeService installs f as the machine's service manager.
func useFakeService(t *testing.T, f *fakeService) {
	t.Helper()
	old := serviceManager
	serviceManager = func(string) (service.Manager, error) { return f, nil }
	t.Cleanup(func() { serviceManager = old })
}

// stateFixture is a state directory with config, credentials, identity,
// a database with sessions, a workspace, and links to a file and a
// directory outside it (which nothing may delete).
type stateFixture struct {
	home, state, outsideFile, outsideDir string
}

func newStateFixture(t *testing.T) stateFixture {
	t.Helper()
	home := isolate(t)
	f := stateFixture{home: home, state: filepath.Join(home, ".openclaw")}
	out := t.TempDir()
	f.outsideFile = filepath.Join(out, "precious.txt")
	f.outsideDir = filepath.Join(out, "precious")
	mk := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(f.state, "openclaw.json"), "{}")
	mk(filepath.Join(f.state, "credentials", "telegram.json"), "{}")
	mk(filepath.Join(f.state, "identity", "device.json"), "{}")
	mk(filepath.Join(f.state, "workspace", "AGENTS.md"), "# agents")
	mk(f.outsideFile, "keep me")
	mk(filepath.Join(f.outsideDir, "inner.txt"), "keep me too")
	for _, l := range []struct{ target, name string }{
		{f.outsideFile, "link-file"}, {f.outsideDir, "link-dir"}, {f.outsideDir, "credentials/link-dir"},
	} {
		if err := os.Symlink(l.target, filepath.Join(f.state, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(f.state, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE sessions (k TEXT); CREATE TABLE transcript_messages (k TEXT); CREATE TABLE devices (id TEXT);
		INSERT INTO sessions VALUES ('s'); INSERT INTO transcript_messages VALUES ('m'); INSERT INTO devices VALUES ('d')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return f
}

// outsideIntact fails when anything outside the state was touched.
func (f stateFixture) outsideIntact(t *testing.T) {
	t.Helper()
	for _, p := range []string{f.outsideFile, filepath.Join(f.outsideDir, "inner.txt")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s outside the state was removed: %v", p, err)
		}
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func rowCount(t *testing.T, dbPath, table string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestResetRefusals(t *testing.T) {
	cases := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"non-interactive without yes", "", []string{"reset", "--scope", "full", "--non-interactive"}, "requires --yes"},
		{"non-interactive without scope", "", []string{"reset", "--yes", "--non-interactive"}, "requires --scope"},
		{"bad scope", "", []string{"reset", "--scope", "everything", "--yes", "--non-interactive"}, "Invalid --scope"},
		{"no confirmation on stdin", "", []string{"reset", "--scope", "full"}, "not confirmed"},
		{"answered no", "n\n", []string{"reset", "--scope", "full"}, "not confirmed"},
		{"no scope chosen", "", []string{"reset"}, "no scope chosen"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newStateFixture(t)
			useFakeService(t, &fakeService{})
			_, stderr, err := runCLIStdin(t, c.stdin, c.args...)
			if err == nil || !strings.Contains(stderr, c.want) {
				t.Fatalf("err %v, stderr %q; want %q", err, stderr, c.want)
			}
			if !exists(filepath.Join(f.state, "openclaw.json")) {
				t.Error("the config was removed although the reset was refused")
			}
		})
	}
}

func TestResetScopes(t *testing.T) {
	cases := []struct {
		scope   string
		gone    []string
		kept    []string
		cleared bool
	}{
		{"config", []string{"openclaw.json"}, []string{"credentials/telegram.json", "identity", "workspace", store.FileName}, false},
		{"config+creds+sessions", []string{"openclaw.json", "credentials"}, []string{"identity/device.json", "workspace/AGENTS.md", store.FileName, "link-file"}, true},
		{"full", []string{""}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.scope, func(t *testing.T) {
			f := newStateFixture(t)
			fs := &fakeService{}
			useFakeService(t, fs)
			stdout, stderr, err := runCLI(t, "reset", "--scope", c.scope, "--yes", "--non-interactive")
			if err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			for _, g := range c.gone {
				if exists(filepath.Join(f.state, g)) {
					t.Errorf("%s still there", g)
				}
			}
			for _, k := range c.kept {
				if !exists(filepath.Join(f.state, k)) {
					t.Errorf("%s was removed", k)
				}
			}
			if c.cleared {
				db := filepath.Join(f.state, store.FileName)
				if n := rowCount(t, db, "sessions") + rowCount(t, db, "transcript_messages"); n != 0 {
					t.Errorf("%d session rows left", n)
				}
				if rowCount(t, db, "devices") != 1 {
					t.Error("reset removed rows that are not sessions")
				}
			}
			f.outsideIntact(t)
			if c.scope != "config" && !strings.Contains(stdout, "Next: openclaw onboard --install-daemon") {
				t.Errorf("stdout lacks the next step:\n%s", stdout)
			}
		})
	}
}

func TestResetDryRunRemovesNothing(t *testing.T) {
	f := newStateFixture(t)
	fs := &fakeService{status: service.Status{Installed: true, Loaded: true, Active: true}}
	useFakeService(t, fs)
	stdout, _, err := runCLI(t, "reset", "--scope", "full", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	want := "Recommended first: openclaw backup create\n[dry-run] stop gateway service\n[dry-run] remove ~/.openclaw\nNext: openclaw onboard --install-daemon\n"
	if stdout != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
	if !exists(filepath.Join(f.state, "openclaw.json")) || len(fs.calls) != 0 {
		t.Errorf("dry run acted: calls %v", fs.calls)
	}
}

// A gateway that is not a managed service (or survived its stop) holds
// the state lock: reset refuses to pull the state from under it.
func TestResetRefusesWhileGatewayRuns(t *testing.T) {
	f := newStateFixture(t)
	useFakeService(t, &fakeService{})
	lock, err := statelock.Acquire(f.state, filepath.Join(f.state, "openclaw.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	for _, scope := range []string{"config+creds+sessions", "full"} {
		_, stderr, err := runCLI(t, "reset", "--scope", scope, "--yes", "--non-interactive")
		if err == nil || !strings.Contains(stderr, "a gateway is running") {
			t.Fatalf("%s: err %v, stderr %q", scope, err, stderr)
		}
		if !exists(filepath.Join(f.state, "credentials", "telegram.json")) || rowCount(t, filepath.Join(f.state, store.FileName), "sessions") != 1 {
			t.Fatalf("%s: state changed although refused", scope)
		}
	}
}

// A running managed gateway is stopped first, then the state goes.
func TestResetStopsManagedGateway(t *testing.T) {
	f := newStateFixture(t)
	fs := &fakeService{status: service.Status{Installed: true, Loaded: true, Active: true}}
	useFakeService(t, fs)
	if _, stderr, err := runCLI(t, "reset", "--scope", "full", "--yes", "--non-interactive"); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if strings.Join(fs.calls, ",") != "stop" || exists(f.state) {
		t.Errorf("calls %v, state exists %v", fs.calls, exists(f.state))
	}
}

func TestRemoveInStateRefusesOutside(t *testing.T) {
	state := t.TempDir()
	other := t.TempDir()
	for _, target := range []string{other, filepath.Join(state, ".."), filepath.Join(state, "..", filepath.Base(other))} {
		if err := removeInState(state, target, nil); err == nil {
			t.Errorf("removeInState(%s) accepted a path outside the state", target)
		}
	}
	if !exists(other) {
		t.Error("a directory outside the state was removed")
	}
}

func TestReadAnswer(t *testing.T) {
	r := strings.NewReader(" 2 \nyes")
	if a, err := readAnswer(r); a != "2" || err != nil {
		t.Errorf("first line %q, %v", a, err)
	}
	if a, err := readAnswer(r); a != "yes" || err != nil {
		t.Errorf("last line %q, %v", a, err)
	}
	if _, err := readAnswer(r); !errors.Is(err, io.EOF) {
		t.Errorf("after the end: %v", err)
	}
}
