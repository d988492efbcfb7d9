package doctor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/statelock"
)

const goodConfig = `{
  // a comment the fix must keep
  gateway: { mode: "local", auth: { token: "` + testToken + `" } },
}
`

func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		name, cfg string
		want      Status
		detail    string
	}{
		{"missing", "", StatusWarn, "no config file"},
		{"valid", goodConfig, StatusOK, "parses and validates"},
		{"syntax error", `{ gateway: { port: 1 `, StatusFail, "does not load"},
		{"schema error", `{ gateway: { port: "x" } }`, StatusFail, "gateway.port"},
		{"unknown key", `{ gateway: { prot: 1 } }`, StatusFail, "gateway.prot: unknown key"},
		{"warning", `{ tools: { exec: { applyPatch: { workspaceOnly: false } } } }`, StatusWarn, "tools.exec.applyPatch.workspaceOnly"},
		// A legacy key is the next check's: it does not make this one warn.
		{"legacy only", `{ heartbeat: { every: "30m" } }`, StatusOK, "parses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := runOne(t, checkConfig, Options{Install: newInstall(t, tc.cfg)})
			if c.Status != tc.want || !strings.Contains(c.Detail, tc.detail) {
				t.Fatalf("got %s %q, want %s containing %q", c.Status, c.Detail, tc.want, tc.detail)
			}
		})
	}
}

func TestLegacyConfigFix(t *testing.T) {
	legacy := "{\n  // keep me\n  heartbeat: { every: \"30m\" },\n  gateway: { auth: { token: \"" + testToken + "\" } },\n}\n"
	in := newInstall(t, legacy)
	c := runOne(t, checkLegacyConfig, Options{Install: in})
	if c.Status != StatusWarn || !strings.Contains(c.Detail, "heartbeat") || c.Fix != nil {
		t.Fatalf("without --fix: %+v", c)
	}
	if b, _ := os.ReadFile(in.Paths.ConfigPath); string(b) != legacy {
		t.Fatal("the check changed the file without --fix")
	}

	at := time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
	c = runOne(t, checkLegacyConfig, Options{Install: in, Fix: true, Version: "9.9.9", Commit: "abc1234", Now: func() time.Time { return at }})
	if c.Fix == nil || !c.Fix.Applied || c.Status != StatusOK {
		t.Fatalf("with --fix: %+v", c)
	}
	// The rewrite records the run, as OpenClaw's doctor does, and the
	// Config check shows it.
	if w := in.Snap.Config.Wizard; w.LastRunCommand != "doctor" || w.LastRunVersion != "9.9.9" || w.LastRunCommit != "abc1234" || w.LastRunAt != "2026-12-01T08:30:00.000Z" {
		t.Fatalf("wizard after the fix: %+v", w)
	}
	if c := runOne(t, checkConfig, Options{Install: in}); !strings.Contains(c.Detail, "last set up with openclaw doctor 9.9.9 (abc1234), at 2026-12-01T08:30:00.000Z") {
		t.Fatalf("config check: %q", c.Detail)
	}
	bak, err := os.ReadFile(in.Paths.ConfigPath + ".bak")
	if err != nil || string(bak) != legacy {
		t.Fatalf("backup: %q %v", bak, err)
	}
	if fi, _ := os.Stat(in.Paths.ConfigPath + ".bak"); fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode %o, want 600", fi.Mode().Perm())
	}
	now, _ := os.ReadFile(in.Paths.ConfigPath)
	if !strings.Contains(string(now), "// keep me") || strings.Contains(string(now), "\n  heartbeat:") || !strings.Contains(string(now), "agents") {
		t.Fatalf("migrated file:\n%s", now)
	}
	if in.Snap == nil || len(in.Snap.Warnings) != 0 {
		t.Fatalf("the install was not reloaded from the fixed file: %+v", in.Snap.Warnings)
	}
	// A second fix finds nothing, and a second backup moves the first along.
	if c := runOne(t, checkLegacyConfig, Options{Install: in, Fix: true}); c.Status != StatusOK || c.Fix != nil {
		t.Fatalf("second run: %+v", c)
	}
}

func TestLegacyConfigFixRefusesAChangedFile(t *testing.T) {
	in := newInstall(t, `{ heartbeat: { every: "30m" } }`)
	os.WriteFile(in.Paths.ConfigPath, []byte(`{ heartbeat: { every: "1h" } }`), 0o600)
	c := runOne(t, checkLegacyConfig, Options{Install: in, Fix: true})
	if c.Fix == nil || c.Fix.Applied || !strings.Contains(c.Fix.Error, "changed") {
		t.Fatalf("%+v", c.Fix)
	}
	if b, _ := os.ReadFile(in.Paths.ConfigPath); string(b) != `{ heartbeat: { every: "1h" } }` {
		t.Fatalf("the newer file was overwritten: %s", b)
	}
}

func TestBackupRing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "openclaw.json")
	for i := range 6 {
		if _, err := backupConfig(p, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for suffix, want := range map[string]string{".bak": "5", ".bak.1": "4", ".bak.4": "1"} {
		if b, _ := os.ReadFile(p + suffix); string(b) != want {
			t.Errorf("%s = %q, want %q", suffix, b, want)
		}
	}
	if _, err := os.Stat(p + ".bak.5"); err == nil {
		t.Error("the ring grew past .bak.4")
	}
}

func TestFileModes(t *testing.T) {
	if !permsApply {
		t.Skip("POSIX modes")
	}
	in := newInstall(t, goodConfig)
	if c := runOne(t, checkFileModes, Options{Install: in}); c.Status != StatusOK {
		t.Fatalf("private install: %+v", c)
	}
	os.Chmod(in.Paths.StateDir, 0o755)
	os.Chmod(in.Paths.ConfigPath, 0o644)
	approvals := in.ExecApprovalsPath()
	os.WriteFile(approvals, []byte(`{"version":1}`), 0o400)
	// A symlink is reported, never followed by chmod.
	outside := filepath.Join(t.TempDir(), "elsewhere.log")
	os.WriteFile(outside, nil, 0o644)
	os.MkdirAll(filepath.Join(in.Paths.StateDir, "logs"), 0o700)
	os.Symlink(outside, in.Paths.DefaultLogFile())

	c := runOne(t, checkFileModes, Options{Install: in})
	if c.Status != StatusWarn || !strings.Contains(c.Detail, "mode=755") || !strings.Contains(c.Detail, "mode=644") || !strings.Contains(c.Detail, "symlink") {
		t.Fatalf("open modes: %+v", c)
	}
	c = runOne(t, checkFileModes, Options{Install: in, Fix: true})
	if c.Fix == nil || !c.Fix.Applied {
		t.Fatalf("fix: %+v", c)
	}
	for path, want := range map[string]os.FileMode{in.Paths.StateDir: 0o700, in.Paths.ConfigPath: 0o600, approvals: 0o400, outside: 0o644} {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != want {
			t.Errorf("%s: mode %o, want %o", path, fi.Mode().Perm(), want)
		}
	}
}

// TestTightenNeverLoosens: whatever the mode, the fix only removes bits.
func TestTightenNeverLoosens(t *testing.T) {
	if !permsApply {
		t.Skip("POSIX modes")
	}
	dir := t.TempDir()
	for _, m := range []os.FileMode{0o000, 0o400, 0o444, 0o600, 0o640, 0o666, 0o700, 0o777, 0o711} {
		p := filepath.Join(dir, fmt.Sprintf("f%o", m))
		os.WriteFile(p, nil, 0o600)
		os.Chmod(p, m)
		tighten(permTarget{Path: p})
		fi, _ := os.Stat(p)
		if got := fi.Mode().Perm(); got&^m != 0 || got&0o077 != 0 {
			t.Errorf("%o became %o", m, got)
		}
	}
}

// newDB writes a real SQLite database in WAL mode with enough rows to
// span many pages.
func newDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX notes_body ON notes(body)`); err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if _, err := db.Exec(`INSERT INTO notes (body) VALUES (?)`, strings.Repeat(fmt.Sprint(i), 20)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestStoreIntegrity(t *testing.T) {
	t.Run("missing", func(t *testing.T) {
		if c := runOne(t, checkStore, Options{Install: newInstall(t, goodConfig)}); c.Status != StatusSkip {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("healthy while another connection writes", func(t *testing.T) {
		in := newInstall(t, goodConfig)
		db := newDB(t, in.DBPath())
		// As a running gateway: an open writer with a transaction going.
		tx, _ := db.Begin()
		tx.Exec(`INSERT INTO notes (body) VALUES ('pending')`)
		defer tx.Rollback()
		if c := runOne(t, checkStore, Options{Install: in}); c.Status != StatusOK {
			t.Fatalf("%+v", c)
		}
		var n int
		tx.QueryRow(`SELECT count(*) FROM notes`).Scan(&n)
		if n != 2001 {
			t.Fatalf("the writer's transaction was disturbed: %d rows", n)
		}
	})
	t.Run("not a database", func(t *testing.T) {
		in := newInstall(t, goodConfig)
		os.WriteFile(in.DBPath(), []byte(strings.Repeat("this is not sqlite\n", 400)), 0o600)
		if c := runOne(t, checkStore, Options{Install: in}); c.Status != StatusFail {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("damaged pages", func(t *testing.T) {
		in := newInstall(t, goodConfig)
		db := newDB(t, in.DBPath())
		db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
		db.Close()
		b, _ := os.ReadFile(in.DBPath())
		// Keep the header and the schema page; scribble over the pages
		// of the table and its index.
		for i := 4096 * 3; i < len(b)-4096; i += 4096 {
			copy(b[i+100:i+600], strings.Repeat("\xff", 500))
		}
		os.WriteFile(in.DBPath(), b, 0o600)
		c := runOne(t, checkStore, Options{Install: in})
		if c.Status != StatusFail {
			t.Fatalf("a damaged database passed: %+v", c)
		}
	})
}

func TestStateLock(t *testing.T) {
	in := newInstall(t, goodConfig)
	if c := runOne(t, checkStateLock, Options{Install: in}); c.Status != StatusOK || !strings.Contains(c.Detail, "no gateway") {
		t.Fatalf("free: %+v", c)
	}
	// A gateway that answers but holds no lock runs on another state.
	if c := (checkStateLock(context.Background(), &run{in: in, gatewayUp: true})); c.Status != StatusWarn {
		t.Fatalf("answering without the lock: %+v", c)
	}
	l, err := statelock.Acquire(in.Paths.StateDir, in.Paths.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	c := runOne(t, checkStateLock, Options{Install: in})
	if c.Status != StatusOK || !strings.Contains(c.Detail, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("held: %+v", c)
	}
}

func TestExecApprovals(t *testing.T) {
	for _, tc := range []struct {
		name, cfg, file string
		want            Status
	}{
		{"missing", goodConfig, "", StatusOK},
		{"valid", goodConfig, `{"version":1,"agents":{"main":{"allowlist":[{"pattern":"/usr/bin/git"}]}}}`, StatusOK},
		{"not json", goodConfig, `{"version":1,`, StatusFail},
		{"bad security", goodConfig, `{"version":1,"defaults":{"security":"yolo"}}`, StatusFail},
		{"wildcard", goodConfig, `{"version":1,"agents":{"*":{"allowlist":[{"pattern":"*"}]}}}`, StatusWarn},
		{"wildcard with exec full configured", `{ tools: { exec: { mode: "full" } } }`, `{"version":1,"agents":{"*":{"allowlist":[{"pattern":"**"}]}}}`, StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstall(t, tc.cfg)
			if tc.file != "" {
				os.WriteFile(in.ExecApprovalsPath(), []byte(tc.file), 0o600)
			}
			if c := runOne(t, checkExecApprovals, Options{Install: in}); c.Status != tc.want {
				t.Fatalf("got %+v, want %s", c, tc.want)
			}
		})
	}
}

func TestDiskSpace(t *testing.T) {
	for _, tc := range []struct {
		free uint64
		want Status
	}{{50 << 20, StatusFail}, {200 << 20, StatusWarn}, {10 << 30, StatusOK}} {
		c := runOne(t, checkDiskSpace, Options{Install: newInstall(t, goodConfig), DiskFree: func(string) (uint64, error) { return tc.free, nil }})
		if c.Status != tc.want {
			t.Errorf("%d bytes free: %+v", tc.free, c)
		}
	}
	// The real call works on this machine.
	if free, err := diskFree(t.TempDir()); err != nil || free == 0 {
		t.Fatalf("diskFree: %d %v", free, err)
	}
}

func TestModels(t *testing.T) {
	const key = "sk-test-secret-key-0123456789"
	var sawKey bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(fmt.Sprint(r.Header), key) || strings.Contains(r.URL.String(), key) {
			sawKey = true
		}
		w.WriteHeader(http.StatusUnauthorized) // any answer means it is there
	}))
	defer srv.Close()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String() + "/v1"
	l.Close()
	cfg := fmt.Sprintf(`{ models: { providers: {
	  up: { baseUrl: %q, apiKey: %q },
	  down: { baseUrl: %q, apiKey: %q },
	  creds: { baseUrl: %q },
	  missing: { baseUrl: %q, apiKey: "${NOT_SET_KEY}" },
	} } }`, srv.URL+"/v1", key, dead, key, "http://user:hunter2@"+srv.Listener.Addr().String()+"/v1?key=hunter2", srv.URL)
	c := runOne(t, checkModels, Options{Install: newInstall(t, cfg)})
	if c.Status != StatusWarn {
		t.Fatalf("%+v", c)
	}
	for _, want := range []string{"- up: " + srv.URL + "/v1 answers", "- down: " + dead + " does not answer", "creds: http://" + srv.Listener.Addr().String() + "/v1 answers", "NOT_SET_KEY"} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, c.Detail)
		}
	}
	noSecret(t, mustJSON(t, c), key)
	noSecret(t, mustJSON(t, c), "hunter2")
	if sawKey {
		t.Error("the probe sent the API key")
	}
}

func TestGatewayAndChannels(t *testing.T) {
	in := newInstall(t, goodConfig)
	down := &fakeGateway{err: errors.New("connection refused")}
	r := &run{Options: withDefaults(Options{Install: in, Gateway: down}), in: in}
	if c := checkGatewayHealth(context.Background(), r); c.Status != StatusWarn || !strings.Contains(c.Detail, "not running") {
		t.Fatalf("down: %+v", c)
	}
	if c := checkChannels(context.Background(), r); c.Status != StatusSkip {
		t.Fatalf("channels while down: %+v", c)
	}
	up := &fakeGateway{answers: map[string]string{
		"health": `{"ok":true}`,
		"channels.status": `{"channelAccounts":{"telegram":[{"accountId":"default","lastError":null}],
		  "discord":[{"accountId":"work","lastError":"401 Unauthorized: bad token"}]}}`,
	}}
	r = &run{Options: withDefaults(Options{Install: in, Gateway: up}), in: in}
	if c := checkGatewayHealth(context.Background(), r); c.Status != StatusOK {
		t.Fatalf("up: %+v", c)
	}
	c := checkChannels(context.Background(), r)
	if c.Status != StatusWarn || !strings.Contains(c.Detail, "discord/work: 401") || strings.Contains(c.Detail, "telegram") {
		t.Fatalf("channels: %+v", c)
	}
}

func TestBrowser(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "chromium")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	none := func() (string, error) { return "", errors.New("none") }
	for _, tc := range []struct {
		name, cfg string
		find      func() (string, error)
		want      Status
	}{
		{"found on PATH", `{}`, func() (string, error) { return "/usr/bin/chromium", nil }, StatusOK},
		{"missing", `{}`, none, StatusWarn},
		{"disabled", `{ browser: { enabled: false } }`, none, StatusSkip},
		{"executablePath", fmt.Sprintf(`{ browser: { executablePath: %q } }`, exe), none, StatusOK},
		{"executablePath missing", `{ browser: { executablePath: "/nonexistent/chrome" } }`, none, StatusWarn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c := runOne(t, checkBrowser, Options{Install: newInstall(t, tc.cfg), FindChromium: tc.find}); c.Status != tc.want {
				t.Fatalf("%+v", c)
			}
		})
	}
}

func TestRunReport(t *testing.T) {
	in := newInstall(t, `{ heartbeat: { every: "30m" }, gateway: { auth: { token: "`+testToken+`" } } }`)
	rep := Run(context.Background(), Options{Install: in, DiskFree: func(string) (uint64, error) { return 1 << 40, nil }, FindChromium: func() (string, error) { return "/bin/chromium", nil }})
	if rep.SchemaVersion != 1 || rep.OK || rep.ChecksRun+rep.ChecksSkipped != len(rep.Checks) || len(rep.Checks) != len(checks) {
		t.Fatalf("%+v", rep)
	}
	ids := map[string]bool{}
	for _, c := range rep.Checks {
		if ids[c.ID] || !strings.HasPrefix(c.ID, "core/doctor/") {
			t.Fatalf("check id %q repeated or misnamed", c.ID)
		}
		ids[c.ID] = true
	}
	if len(rep.Findings) != 1 || rep.Findings[0].CheckID != "core/doctor/legacy-config" || rep.Findings[0].Severity != "warning" {
		t.Fatalf("findings: %+v", rep.Findings)
	}
	noSecret(t, mustJSON(t, rep), testToken)
}

// TestChannelErrorsAreScrubbed: a channel's last error that quotes its
// bot token (a request URL) reaches the report without it.
func TestChannelErrorsAreScrubbed(t *testing.T) {
	const bot = "123456:AAE-bot-token-value"
	in := newInstall(t, `{ channels: { telegram: { botToken: "`+bot+`" } } }`)
	gw := &fakeGateway{answers: map[string]string{
		"health":          `{"ok":true}`,
		"channels.status": `{"channelAccounts":{"telegram":[{"accountId":"default","lastError":"Post https://api.telegram.org/bot` + bot + `/getMe: timeout"}]}}`,
	}}
	rep := Run(context.Background(), Options{Install: in, Gateway: gw, DiskFree: func(string) (uint64, error) { return 1 << 40, nil }, FindChromium: func() (string, error) { return "/bin/chromium", nil }})
	out := mustJSON(t, rep)
	noSecret(t, out, bot)
	if !strings.Contains(out, "bot[redacted]/getMe") {
		t.Fatalf("the error was dropped, not scrubbed:\n%s", out)
	}
}

func TestSandboxCheck(t *testing.T) {
	has := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			if slices.Contains(names, n) {
				return "/usr/bin/" + n, nil
			}
			return "", errors.New("not found")
		}
	}
	for _, tc := range []struct {
		name, cfg string
		look      func(string) (string, error)
		want      Status
		detail    string
	}{
		{"off", `{}`, has(), StatusSkip, "no agent is sandboxed"},
		{"local with bwrap", `{ agents: { defaults: { sandbox: { mode: "all" } } } }`, has("bwrap"), StatusOK, "/usr/bin/bwrap"},
		{"local without bwrap", `{ agents: { defaults: { sandbox: { mode: "non-main" } } } }`, has(), StatusWarn, "bubblewrap"},
		{"one agent without bwrap", `{ agents: { entries: { work: { sandbox: { mode: "all" } } } } }`, has(), StatusWarn, "agents.entries.work"},
		{"ssh without a target", `{ agents: { defaults: { sandbox: { mode: "all", backend: "ssh" } } } }`, has("ssh"), StatusWarn, "without a target"},
		{"ssh", `{ agents: { defaults: { sandbox: { mode: "all", backend: "ssh", ssh: { target: "u@h" } } } } }`, has("ssh"), StatusOK, "/usr/bin/ssh"},
		{"openshell", `{ agents: { defaults: { sandbox: { mode: "all", backend: "openshell" } } } }`, has("bwrap"), StatusWarn, "cannot run here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := runOne(t, checkSandbox, Options{Install: newInstall(t, tc.cfg), LookPath: tc.look})
			if c.Status != tc.want || !strings.Contains(c.Detail, tc.detail) {
				t.Fatalf("%+v", c)
			}
		})
	}
}
