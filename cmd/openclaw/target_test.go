package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveTarget covers the URL, port and credential precedence.
func TestResolveTarget(t *testing.T) {
	const cfgTokenPort = `{"gateway":{"port":2345,"auth":{"token":"cfg-token","password":"cfg-pw"}}}`
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		config string // written to ~/.openclaw/openclaw.json
		devCfg string // written to ~/.openclaw-dev/openclaw.json

		wantURL, wantToken, wantPassword string
		wantErr                          string
	}{
		{name: "defaults", wantURL: "ws://127.0.0.1:18789"},
		{name: "dev port", args: []string{"--dev"}, wantURL: "ws://127.0.0.1:19001"},
		{name: "env port", env: map[string]string{envGatewayPort: "1234"}, wantURL: "ws://127.0.0.1:1234"},
		{name: "bad env port", env: map[string]string{envGatewayPort: "x"}, wantErr: "invalid OPENCLAW_GATEWAY_PORT"},
		{name: "config port and credentials", config: cfgTokenPort,
			wantURL: "ws://127.0.0.1:2345", wantToken: "cfg-token", wantPassword: "cfg-pw"},
		{name: "env beats config", config: cfgTokenPort,
			env:     map[string]string{envGatewayPort: "1111", envGatewayToken: "env-token"},
			wantURL: "ws://127.0.0.1:1111", wantToken: "env-token", wantPassword: "cfg-pw"},
		{name: "flags beat env", config: cfgTokenPort, args: []string{"--token", "flag-token", "--password", "flag-pw"},
			env:     map[string]string{envGatewayToken: "env-token", envGatewayPassword: "env-pw"},
			wantURL: "ws://127.0.0.1:2345", wantToken: "flag-token", wantPassword: "flag-pw"},
		{name: "dev reads the dev config", args: []string{"--dev"}, config: cfgTokenPort,
			devCfg:  `{"gateway":{"port":3456,"auth":{"token":"dev-token"}}}`,
			wantURL: "ws://127.0.0.1:3456", wantToken: "dev-token"},
		{name: "config path env", config: cfgTokenPort,
			env:     map[string]string{envConfigPath: "/nonexistent/openclaw.json"},
			wantURL: "ws://127.0.0.1:18789"},
		{name: "url with token ignores env and config", config: cfgTokenPort,
			args:    []string{"--url", "ws://localhost:9999", "--token", "flag-token"},
			env:     map[string]string{envGatewayPassword: "env-pw", envGatewayURL: "ws://127.0.0.1:1"},
			wantURL: "ws://localhost:9999", wantToken: "flag-token"},
		{name: "url without credentials", config: cfgTokenPort, args: []string{"--url", "ws://127.0.0.1:9999"},
			env: map[string]string{envGatewayToken: "env-token"}, wantErr: "requires explicit credentials"},
		{name: "env url uses env credentials only", config: cfgTokenPort,
			env:     map[string]string{envGatewayURL: "ws://127.0.0.1:7777", envGatewayToken: "env-token"},
			wantURL: "ws://127.0.0.1:7777", wantToken: "env-token"},
		{name: "json5 config", config: "{\n  // comment\n  gateway: { port: 4567, auth: { token: 'j5-token' } },\n}",
			wantURL: "ws://127.0.0.1:4567", wantToken: "j5-token"},
		{name: "config without port keeps the dev port", args: []string{"--dev"},
			devCfg: `{"gateway":{"auth":{"token":"dev-token"}}}`, wantURL: "ws://127.0.0.1:19001", wantToken: "dev-token"},
		{name: "token from a secret ref", env: map[string]string{"MY_GW_TOKEN": "ref-token"},
			config:  `{"gateway":{"auth":{"token":{"source":"env","provider":"default","id":"MY_GW_TOKEN"}}}}`,
			wantURL: "ws://127.0.0.1:18789", wantToken: "ref-token"},
		{name: "invalid config still yields its port and token",
			config:  `{"gateway":{"port":5678,"auth":{"token":"t5"},"noSuchKey":true}}`,
			wantURL: "ws://127.0.0.1:5678", wantToken: "t5"},
		{name: "remote mode", config: `{"gateway":{"mode":"remote","port":2345,"auth":{"token":"local"},` +
			`"remote":{"url":"wss://gw.example.com","token":"remote-token"}}}`,
			wantURL: "wss://gw.example.com", wantToken: "remote-token"},
		{name: "remote mode, env token wins", env: map[string]string{envGatewayToken: "env-token"},
			config:  `{"gateway":{"mode":"remote","remote":{"url":"wss://gw.example.com","token":"remote-token"}}}`,
			wantURL: "wss://gw.example.com", wantToken: "env-token"},
		{name: "state dir env", env: map[string]string{envStateDir: "/nonexistent/state"}, config: cfgTokenPort,
			wantURL: "ws://127.0.0.1:18789"},
		{name: "bad scheme", args: []string{"--url", "http://127.0.0.1:1", "--token", "t"}, wantErr: "invalid gateway url"},
		{name: "plaintext remote refused", args: []string{"--url", "ws://192.0.2.1:18789", "--token", "t"},
			wantErr: "refusing plaintext ws://"},
		{name: "plaintext remote allowed by env", args: []string{"--url", "ws://192.0.2.1:18789", "--token", "t"},
			env: map[string]string{envAllowInsecureWS: "1"}, wantURL: "ws://192.0.2.1:18789", wantToken: "t"},
		{name: "wss remote", args: []string{"--url", "wss://gw.example.com", "--password", "p"},
			wantURL: "wss://gw.example.com", wantPassword: "p"},
		{name: "port flag beats env and config port", config: cfgTokenPort, args: []string{"--port", "19083"},
			env: map[string]string{envGatewayPort: "1111"}, wantURL: "ws://127.0.0.1:19083", wantToken: "cfg-token", wantPassword: "cfg-pw"},
		{name: "port flag skips env url and its token goes local", args: []string{"--port", "19084"},
			env:     map[string]string{envGatewayURL: "wss://gw.example.com", envGatewayToken: "env-token"},
			wantURL: "ws://127.0.0.1:19084", wantToken: "env-token"},
		{name: "port flag skips the remote url and its credentials",
			config: `{"gateway":{"mode":"remote","auth":{"token":"local"},"remote":{"url":"wss://gw.example.com","token":"remote-token"}}}`,
			args:   []string{"--port", "19085"}, wantURL: "ws://127.0.0.1:19085", wantToken: "local"},
		{name: "port flag with url", args: []string{"--port", "19086", "--url", "ws://127.0.0.1:1", "--token", "t"},
			wantErr: "--port and --url exclude each other"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			writeConfig(t, filepath.Join(home, ".openclaw", "openclaw.json"), tc.config)
			writeConfig(t, filepath.Join(home, ".openclaw-dev", "openclaw.json"), tc.devCfg)

			a := &app{stdout: io.Discard, stderr: io.Discard, cmd: "test"}
			fs := newFlagSet(a, "test")
			g := fs.gatewayFlags()
			g.addPortFlag(fs.FlagSet)
			if _, err := fs.parse(tc.args, 0, 0); err != nil {
				t.Fatal(err)
			}
			got, err := resolveTarget(g)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.url != tc.wantURL || got.token != tc.wantToken || got.password != tc.wantPassword {
				t.Errorf("target = %s token %q password %q; want %s %q %q",
					got.url, got.token, got.password, tc.wantURL, tc.wantToken, tc.wantPassword)
			}
		})
	}
}

// TestPortFlagValues checks --port takes only a port, as the real CLI's
// (an empty or blank value is refused, not read as "not given").
func TestPortFlagValues(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want int
		ok   bool
	}{
		{"1", 1, true}, {"65535", 65535, true}, {" 19083 ", 19083, true},
		{"0", 0, false}, {"65536", 0, false}, {"-1", 0, false}, {"", 0, false}, {"  ", 0, false}, {"80x", 0, false},
	} {
		a := &app{stdout: io.Discard, stderr: io.Discard, cmd: "test"}
		fs := newFlagSet(a, "test")
		g := fs.gatewayFlags()
		g.addPortFlag(fs.FlagSet)
		_, err := fs.parse([]string{"--port=" + tc.arg}, 0, 0)
		if (err == nil) != tc.ok || int(g.port) != tc.want {
			t.Errorf("--port=%q: port %d err %v; want %d ok=%v", tc.arg, g.port, err, tc.want, tc.ok)
		}
	}
}

func writeConfig(t *testing.T, path, content string) {
	t.Helper()
	if content == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestParseInterspersed covers flags before, between and after
// positionals, and "--".
func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		min, max int
		wantPos  string
		wantJSON bool
		wantLim  int
		wantErr  string
	}{
		{name: "flags after", args: []string{"REQ", "--json", "--limit", "3"}, min: 1, max: 1, wantPos: "REQ", wantJSON: true, wantLim: 3},
		{name: "flags before", args: []string{"--json", "REQ"}, min: 1, max: 1, wantPos: "REQ", wantJSON: true, wantLim: 10},
		{name: "flags between", args: []string{"a", "--limit=7", "b"}, min: 0, max: -1, wantPos: "a b", wantLim: 7},
		{name: "double dash", args: []string{"a", "--", "--json"}, min: 0, max: -1, wantPos: "a --json", wantLim: 10},
		{name: "missing", args: []string{"--json"}, min: 1, max: 1, wantErr: "missing argument"},
		{name: "too many", args: []string{"a", "b"}, min: 1, max: 1, wantErr: `unexpected argument "b"`},
		{name: "bad value", args: []string{"--limit", "x"}, wantErr: `invalid argument "x" for "--limit"`},
		{name: "single dash long flag", args: []string{"-limit=7"}, wantErr: "unknown shorthand flag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{stdout: io.Discard, stderr: io.Discard, cmd: "test"}
			fs := newFlagSet(a, "test")
			asJSON := fs.Bool("json", false, "")
			limit := fs.Int("limit", 10, "")
			pos, err := fs.parse(tc.args, tc.min, tc.max)
			if tc.wantErr != "" {
				var ue *usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want usage error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(pos, " ") != tc.wantPos || *asJSON != tc.wantJSON || *limit != tc.wantLim {
				t.Errorf("pos %q json %v limit %d", pos, *asJSON, *limit)
			}
		})
	}
}

func TestScopesFor(t *testing.T) {
	for _, tc := range []struct{ method, want string }{
		{"health", "operator.read"},
		{"device.pair.list", "operator.pairing"},
		{"chat.send", "operator.write,operator.admin"},
		{"tools.invoke", "operator.write,operator.admin"},
		{"sessions.list", "operator.read"},
		{"agent", strings.Join(defaultCLIScopes, ",")},
		{"no.such.method", strings.Join(defaultCLIScopes, ",")},
	} {
		if got := strings.Join(scopesFor(tc.method), ","); got != tc.want {
			t.Errorf("scopesFor(%q) = %s, want %s", tc.method, got, tc.want)
		}
	}
}

func TestWantsJSON(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"health", "--json"}, true},
		{[]string{"--json"}, true},
		{[]string{"gateway", "call", "x", "--", "--json"}, false},
		{[]string{"health"}, false},
	} {
		if got := wantsJSON(tc.args); got != tc.want {
			t.Errorf("wantsJSON(%q) = %v", tc.args, got)
		}
	}
}
