package service

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fakeRunner records the commands and answers from a table.
type fakeRunner struct {
	calls   []string
	answers map[string]string // command line → stdout
	fail    map[string]bool   // command line → exit 1
}

func (f *fakeRunner) Run(_ context.Context, name string, args ...string) (string, error) {
	line := name + " " + strings.Join(args, " ")
	f.calls = append(f.calls, line)
	if f.fail[line] {
		return "", &RunError{Cmd: line, Err: errors.New("exit status 1")}
	}
	return f.answers[line], nil
}

func gatewaySpec(home string) Spec {
	state := filepath.Join(home, ".openclaw-work")
	return Spec{
		Kind: Gateway, Profile: "work",
		Program: []string{"/usr/local/bin/openclaw", "gateway", "--port", "18789"},
		Env: []Var{
			{"HOME", home}, {"OPENCLAW_PROFILE", "work"}, {"OPENCLAW_STATE_DIR", state},
			{"OPENCLAW_GATEWAY_PORT", "18789"}, {"OPENCLAW_SERVICE_MARKER", "openclaw"}, {"OPENCLAW_SERVICE_KIND", "gateway"},
		},
		Secrets: []Var{{"OPENCLAW_GATEWAY_TOKEN", "s3cret-token"}},
		EnvFile: filepath.Join(state, EnvFileName(Gateway)),
		LogPath: filepath.Join(state, "logs", "gateway.log"),
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestRenderGolden(t *testing.T) {
	s := gatewaySpec("/home/ada")
	unit, err := RenderSystemdUnit(s)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gateway-work.service", unit)
	plist, err := RenderLaunchdPlist(s)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "ai.openclaw.work.plist", plist)
	if strings.Contains(unit, "s3cret") || strings.Contains(plist, "s3cret") {
		t.Error("the token is written into the service definition")
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		kind            Kind
		profile         string
		unit, label, ds string
	}{
		{Gateway, "", "openclaw-gateway", "ai.openclaw.gateway", "OpenClaw Gateway"},
		{Gateway, "default", "openclaw-gateway", "ai.openclaw.gateway", "OpenClaw Gateway"},
		{Gateway, "dev", "openclaw-gateway-dev", "ai.openclaw.dev", "OpenClaw Gateway (profile: dev)"},
		{Node, "work", "openclaw-node", "ai.openclaw.node", "OpenClaw Node Host"},
	} {
		if got := UnitName(c.kind, c.profile); got != c.unit {
			t.Errorf("UnitName(%s, %q) = %q, want %q", c.kind, c.profile, got, c.unit)
		}
		if got := Label(c.kind, c.profile); got != c.label {
			t.Errorf("Label(%s, %q) = %q, want %q", c.kind, c.profile, got, c.label)
		}
		if got := DefaultDescription(c.kind, c.profile); got != c.ds {
			t.Errorf("DefaultDescription(%s, %q) = %q, want %q", c.kind, c.profile, got, c.ds)
		}
	}
}

// TestInjectionRefused: values that would add a directive to the unit, a
// key to the plist or a command to the wrapper are refused or escaped.
func TestInjectionRefused(t *testing.T) {
	refused := map[string]func(*Spec){
		"profile with newline":     func(s *Spec) { s.Profile = "x\nExecStartPre=/bin/evil" },
		"profile with slash":       func(s *Spec) { s.Profile = "../../evil" },
		"profile with semicolon":   func(s *Spec) { s.Profile = "a;b" },
		"argument with newline":    func(s *Spec) { s.Program = append(s.Program, "--x\n[Service]\nExecStartPre=/bin/evil") },
		"state dir with CR":        func(s *Spec) { s.Env[2].Value = "/home/ada/x\rExecStartPre=/bin/evil" },
		"env key with equals":      func(s *Spec) { s.Env = append(s.Env, Var{"A=B C", "x"}) },
		"relative program":         func(s *Spec) { s.Program[0] = "openclaw" },
		"lone semicolon argument":  func(s *Spec) { s.Program = append(s.Program, ";", "/bin/evil") },
		"token with newline":       func(s *Spec) { s.Secrets[0].Value = "t\nEVIL=1" },
		"description with newline": func(s *Spec) { s.Description = "x\n[Install]" },
	}
	for name, mutate := range refused {
		t.Run(name, func(t *testing.T) {
			s := gatewaySpec("/home/ada")
			mutate(&s)
			if _, err := RenderSystemdUnit(s); err == nil {
				t.Error("systemd unit rendered")
			}
			if name == "lone semicolon argument" {
				return // harmless in a plist
			}
			if _, err := RenderLaunchdPlist(s); err == nil {
				t.Error("plist rendered")
			}
		})
	}
	// Metacharacters that are legal in a path are escaped, not refused.
	s := gatewaySpec("/home/ada")
	s.Env[2].Value = `/home/ada/we"ird $HOME %h dir\`
	s.Program = append(s.Program, `--x=$(rm -rf ~)`, `"quoted" arg`)
	unit, err := RenderSystemdUnit(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`Environment="OPENCLAW_STATE_DIR=/home/ada/we\"ird $HOME %%h dir\\"`,
		`--x=$$(rm`, `"\"quoted\" arg"`,
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %s:\n%s", want, unit)
		}
	}
	if n := strings.Count(unit, "\n["); n != 2 {
		t.Errorf("unit has %d section headers after the first, want 2", n)
	}
	plist, err := RenderLaunchdPlist(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plist, `we"ird`) || !strings.Contains(plist, "we&quot;ird") {
		t.Errorf("plist does not escape the quote:\n%s", plist)
	}
}

func TestEnvFiles(t *testing.T) {
	if _, err := RenderSystemdEnvFile([]Var{{"OPENCLAW_GATEWAY_PASSWORD", "pa$HOME"}}); err == nil {
		t.Error("a $ reference was written into a systemd env file")
	}
	got, err := RenderShellEnvFile([]Var{{"OPENCLAW_GATEWAY_PASSWORD", `it's $(evil)`}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `OPENCLAW_GATEWAY_PASSWORD='it'\''s $(evil)'` + "\n"; got != want {
		t.Errorf("shell env file = %q, want %q", got, want)
	}
}

func TestSystemdLifecycle(t *testing.T) {
	home := t.TempDir()
	s := gatewaySpec(home)
	r := &fakeRunner{answers: map[string]string{
		"systemctl --user show openclaw-gateway-work.service --no-pager --property=LoadState,ActiveState,SubState,MainPID,UnitFileState": "LoadState=loaded\nActiveState=active\nSubState=running\nMainPID=4242\nUnitFileState=enabled\n",
	}}
	m, err := For("linux", home, 1000, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Install(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	unitPath := filepath.Join(home, ".config/systemd/user/openclaw-gateway-work.service")
	if m.Path(s) != unitPath {
		t.Errorf("path = %s", m.Path(s))
	}
	for path, want := range map[string]os.FileMode{unitPath: 0o600, s.EnvFile: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %o, want %o", path, fi.Mode().Perm(), want)
		}
	}
	env, _ := os.ReadFile(s.EnvFile)
	if string(env) != "OPENCLAW_GATEWAY_TOKEN=\"s3cret-token\"\n" {
		t.Errorf("env file = %q", env)
	}
	st, err := m.Status(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Installed || !st.Loaded || !st.Active || st.PID != 4242 || st.State != "active (running)" {
		t.Errorf("status = %+v", st)
	}
	for _, step := range []func() error{
		func() error { return m.Stop(context.Background(), s, false) },
		func() error { return m.Start(context.Background(), s) },
		func() error { return m.Restart(context.Background(), s) },
		func() error { return m.Uninstall(context.Background(), s) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"systemctl --user daemon-reload",
		"systemctl --user enable openclaw-gateway-work.service",
		"systemctl --user restart openclaw-gateway-work.service",
		"systemctl --user show openclaw-gateway-work.service --no-pager --property=LoadState,ActiveState,SubState,MainPID,UnitFileState",
		"systemctl --user stop openclaw-gateway-work.service",
		"systemctl --user start openclaw-gateway-work.service",
		"systemctl --user restart openclaw-gateway-work.service",
		"systemctl --user disable --now openclaw-gateway-work.service",
		"systemctl --user daemon-reload",
	}
	if strings.Join(r.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(r.calls, "\n"), strings.Join(want, "\n"))
	}
	if exists(unitPath) || exists(s.EnvFile) {
		t.Error("uninstall left files behind")
	}
}

func TestLaunchdLifecycle(t *testing.T) {
	home := t.TempDir()
	s := gatewaySpec(home)
	target := "gui/501/ai.openclaw.work"
	r := &fakeRunner{answers: map[string]string{
		"launchctl print " + target: "ai.openclaw.work = {\n\tstate = running\n\tpid = 777\n}\n",
	}}
	m, _ := For("darwin", home, 501, r)
	if err := m.Install(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	plistPath := filepath.Join(home, "Library/LaunchAgents/ai.openclaw.work.plist")
	plist, err := os.ReadFile(plistPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plist), "s3cret") {
		t.Error("token in plist")
	}
	st, _ := m.Status(context.Background(), s)
	if !st.Active || st.PID != 777 || !st.Installed {
		t.Errorf("status = %+v", st)
	}
	if err := m.Stop(context.Background(), s, true); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"launchctl bootout " + target,
		"launchctl enable " + target,
		"launchctl bootstrap gui/501 " + plistPath,
		"launchctl print " + target,
		"launchctl disable " + target,
		"launchctl bootout " + target,
	}
	if strings.Join(r.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(r.calls, "\n"), strings.Join(want, "\n"))
	}
}

func TestUnsupported(t *testing.T) {
	if _, err := For("windows", "/h", 0, &fakeRunner{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("windows: %v", err)
	}
}
