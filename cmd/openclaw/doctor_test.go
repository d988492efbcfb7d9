package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// doctorHome is an isolated install whose config holds secret, with no
// gateway on its port.
func doctorHome(t *testing.T, cfg string, mode os.FileMode) string {
	t.Helper()
	home := isolate(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	t.Setenv(envGatewayPort, strconv.Itoa(port))
	state := filepath.Join(home, ".openclaw")
	os.MkdirAll(state, 0o700)
	path := filepath.Join(state, "openclaw.json")
	os.WriteFile(path, []byte(cfg), 0o600)
	os.Chmod(path, mode)
	return path
}

// TestDoctorAndAuditNeverPrintSecrets runs every form of both commands
// on a weak install: each names its findings, --fix only tightens, and no
// output holds a secret.
func TestDoctorAndAuditNeverPrintSecrets(t *testing.T) {
	const secret = "s3cr"
	const botToken = "123456:bot-secret-value"
	cfg := `{ heartbeat: { every: "30m" }, gateway: { bind: "lan", auth: { token: "` + secret + `" } },
	  hooks: { enabled: true, token: "` + secret + `" },
	  channels: { telegram: { botToken: "` + botToken + `", dmPolicy: "open", allowFrom: ["*"], groupPolicy: "open" } } }`
	path := doctorHome(t, cfg, 0o644)
	for _, args := range [][]string{
		{"security", "audit", "--json"},
		{"security", "audit"},
		{"security", "audit", "--deep", "--json"},
		{"doctor", "--json"},
		{"doctor"},
		{"doctor", "--lint"},
		{"doctor", "--fix"},
		{"security", "audit", "--fix", "--json"},
		{"security", "audit", "--fix"},
	} {
		out, errOut, err := runCLI(t, args...)
		name := strings.Join(args, " ")
		for _, s := range []string{secret, botToken} {
			if strings.Contains(out, s) || strings.Contains(errOut, s) {
				t.Fatalf("%s printed a secret:\n%s\n%s", name, out, errOut)
			}
		}
		var reported *reportedError
		switch {
		case name == "doctor --lint":
			if !errors.As(err, &reported) || !strings.Contains(out, "[warning] core/doctor/legacy-config") {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
		case err != nil:
			t.Fatalf("%s: %v\n%s%s", name, err, out, errOut)
		}
		if name == "security audit --json" {
			var rep struct {
				Summary  struct{ Critical int }
				Findings []struct{ CheckID, Severity string }
			}
			json.Unmarshal([]byte(out), &rep)
			want := map[string]string{"gateway.token_too_short": "warn", "gateway.bind_no_tls": "warn", "fs.config.perms_world_readable": "critical",
				"channels.telegram.dm.open": "critical", "hooks.token_reuse_gateway_token": "critical"}
			for _, f := range rep.Findings {
				if want[f.CheckID] == f.Severity {
					delete(want, f.CheckID)
				}
			}
			if len(want) > 0 || rep.Summary.Critical < 3 {
				t.Fatalf("missing findings %v in\n%s", want, out)
			}
		}
		if name == "security audit --deep --json" && !strings.Contains(out, `"gateway.probe_failed"`) {
			t.Fatalf("the deep probe of a stopped gateway did not fail:\n%s", out)
		}
		if name == "doctor --json" {
			var rep struct {
				SchemaVersion int
				OK            bool
				Checks        []struct{ ID, Status string }
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.SchemaVersion != 1 || rep.OK || len(rep.Checks) < 10 {
				t.Fatalf("%v\n%s", err, out)
			}
		}
	}
	b, _ := os.ReadFile(path)
	text := string(b)
	// The fixes: legacy key moved, group policy tightened, modes tightened;
	// auth, bind, DM policy and the secrets as they were.
	for _, want := range []string{`token: "` + secret + `"`, `bind: "lan"`, `dmPolicy: "open"`, `"allowlist"`, `defaults: {`} {
		if !strings.Contains(text, want) {
			t.Errorf("config lacks %q after the fixes:\n%s", want, text)
		}
	}
	if strings.Contains(text, `groupPolicy: "open"`) {
		t.Errorf("group policy still open:\n%s", text)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("config mode %o after --fix", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %o after --fix", fi.Mode().Perm())
	}
}

func TestDoctorUsage(t *testing.T) {
	doctorHome(t, `{}`, 0o600)
	if _, _, err := runCLI(t, "doctor", "--lint", "--fix"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("lint with fix: %v", err)
	}
	if _, _, err := runCLI(t, "doctor", "--severity-min", "error"); err == nil {
		t.Fatal("--severity-min without --lint was accepted")
	}
	// No config problems at error level: lint passes that threshold.
	if out, _, err := runCLI(t, "doctor", "--lint", "--severity-min", "error"); err != nil || strings.Contains(out, "[warning]") {
		t.Fatalf("lint --severity-min error: %v\n%s", err, out)
	}
	out, _, err := runCLI(t, "security")
	if err != nil || !strings.Contains(out, "audit") {
		t.Fatalf("security group help: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "security", "audit", "--help")
	if err != nil || !strings.Contains(out, "--deep") || !strings.Contains(out, "--fix") {
		t.Fatalf("audit help: %v\n%s", err, out)
	}
}
