package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testToken = "T-secret-token"

// isolate points the CLI at an empty home and clears targeting variables.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{envGatewayURL, envGatewayPort, envGatewayToken, envGatewayPassword,
		envStateDir, envConfigPath, envHome, envProfile, envAllowInsecureWS, "OPENCLAW_INCLUDE_ROOTS", "OPENCLAW_LOG_LEVEL", "NO_COLOR"} {
		t.Setenv(k, "")
	}
	return home
}

// runCLI runs the CLI with args and returns its output.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	err = run(ctx, args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

// fixture reads testdata/name.
func fixture(t *testing.T, name string) json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return json.RawMessage(bytes.TrimSpace(data))
}

// checkGolden compares got with testdata/name.golden (rewritten with -update).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

// TestGolden runs each read command against a fake gateway answering a
// fixture and compares the output with a golden file.
func TestGolden(t *testing.T) {
	tests := []struct {
		name    string // golden file
		method  string
		fixture string
		args    []string
	}{
		{"health", "health", "health.json", []string{"health"}},
		{"health-minimal", "health", "health-minimal.json", []string{"health"}},
		{"health-reload-failed", "health", "health-reload-failed.json", []string{"health"}},
		{"health-json", "health", "health-minimal.json", []string{"health", "--json"}},
		{"gateway-health", "health", "health-minimal.json", []string{"gateway", "health"}},
		{"status", "status", "status.json", []string{"status"}},
		{"status-real", "status", "status-real.json", []string{"status"}},
		{"status-json", "status", "status.json", []string{"status", "--json"}},
		{"presence", "system-presence", "presence.json", []string{"system", "presence"}},
		{"presence-empty", "system-presence", "presence-empty.json", []string{"system", "presence"}},
		{"devices-list", "device.pair.list", "devices.json", []string{"devices", "list"}},
		{"devices-list-empty", "device.pair.list", "devices-empty.json", []string{"devices", "list"}},
		{"gateway-call", "status", "status.json", []string{"gateway", "call", "status"}},
		{"tools-list-nomodel", "tools.explain", "tools-explain-nomodel.json", []string{"tools", "list"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply(tc.method, fixture(t, tc.fixture))
			args := append(tc.args, "--url", srv.URL(), "--token", testToken)
			stdout, stderr, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr)
			}
			// status names the address it reached; the fake's port changes.
			checkGolden(t, tc.name, strings.ReplaceAll(stdout, srv.URL(), "ws://GATEWAY"))
		})
	}
}

// TestRequests checks what each command sends: method, params and the
// scopes it asks for on connect.
func TestRequests(t *testing.T) {
	read, pairing := []string{"operator.read"}, []string{"operator.pairing"}
	pairingAdmin := []string{"operator.pairing", "operator.admin"}
	tests := []struct {
		name       string
		args       []string
		method     string
		wantParams string // "" means no params
		wantScopes []string
		payload    any
	}{
		{"health", []string{"health"}, "health", "", read, map[string]any{"ok": true}},
		{"status", []string{"status"}, "status", `{"includeCliProjection":true}`, read, map[string]any{}},
		{"presence", []string{"system", "presence"}, "system-presence", `{}`, read, []any{}},
		{"system event", []string{"system", "event", "--text", "build done", "--mode", "now"}, "wake",
			`{"mode":"now","text":"build done"}`, []string{"operator.write"}, map[string]any{"ok": true}},
		{"system event to a session", []string{"system", "event", "--text", "x", "--session-key", "agent:ops:main"}, "wake",
			`{"mode":"next-heartbeat","sessionKey":"agent:ops:main","text":"x"}`, []string{"operator.write"}, map[string]any{"ok": true}},
		{"canvas push text", []string{"nodes", "canvas", "a2ui", "push", "--text", "Hello from A2UI"}, "tools.invoke",
			`{"args":{"action":"a2ui_push","text":"Hello from A2UI"},"name":"canvas"}`, []string{"operator.write"}, map[string]any{"ok": true, "output": "ok"}},
		{"canvas navigate on a node", []string{"nodes", "canvas", "navigate", "https://example.com/", "--node", "mac"}, "tools.invoke",
			`{"args":{"action":"navigate","node":"mac","url":"https://example.com/"},"name":"canvas"}`, []string{"operator.write"}, map[string]any{"ok": true, "output": "ok"}},
		{"canvas snapshot", []string{"nodes", "canvas", "snapshot"}, "tools.invoke",
			`{"args":{"action":"snapshot"},"name":"canvas"}`, []string{"operator.write"}, map[string]any{"ok": true, "output": "MEDIA:/x.png"}},
		{"heartbeat last", []string{"system", "heartbeat", "last"}, "last-heartbeat", `{}`, read,
			map[string]any{"ts": 1, "agentId": "main", "status": "ok-token"}},
		{"heartbeat disable", []string{"system", "heartbeat", "disable"}, "set-heartbeats", `{"enabled":false}`,
			[]string{"operator.admin"}, map[string]any{"ok": true, "enabled": false}},
		{"heartbeat enable", []string{"system", "heartbeat", "enable"}, "set-heartbeats", `{"enabled":true}`,
			[]string{"operator.admin"}, map[string]any{"ok": true, "enabled": true}},
		{"call health", []string{"gateway", "call", "health", "--params", `{"probe":true}`}, "health", `{"probe":true}`, read, map[string]any{}},
		{"call default params", []string{"gateway", "call", "device.pair.list"}, "device.pair.list", `{}`, pairing, map[string]any{}},
		{"call unknown method", []string{"gateway", "call", "custom.thing"}, "custom.thing", `{}`, defaultCLIScopes, map[string]any{}},
		{"call dynamic method", []string{"gateway", "call", "agent"}, "agent", `{}`, defaultCLIScopes, map[string]any{}},
		{"logs", []string{"logs", "--limit", "5"}, "logs.tail", `{"limit":5,"maxBytes":250000}`, read,
			map[string]any{"file": "f", "cursor": 1, "size": 1, "lines": []string{}}},
		{"devices list", []string{"devices", "list"}, "device.pair.list", `{}`, pairing, map[string]any{}},
		{"devices approve", []string{"devices", "approve", "req-1"}, "device.pair.approve", `{"requestId":"req-1"}`,
			pairingAdmin, map[string]any{}},
		{"devices reject", []string{"devices", "reject", "req-1"}, "device.pair.reject", `{"requestId":"req-1"}`, pairing, map[string]any{}},
		{"devices remove", []string{"devices", "remove", "dev-1"}, "device.pair.remove", `{"deviceId":"dev-1"}`, pairingAdmin, map[string]any{}},
		{"devices rotate", []string{"devices", "rotate", "--device", "dev-1", "--role", "operator", "--scope", "operator.read", "--scope", "operator.write"},
			"device.token.rotate", `{"deviceId":"dev-1","role":"operator","scopes":["operator.read","operator.write"]}`,
			pairingAdmin, map[string]any{}},
		{"devices revoke", []string{"devices", "revoke", "--role", "node", "--device", "dev-1"}, "device.token.revoke",
			`{"deviceId":"dev-1","role":"node"}`, pairingAdmin, map[string]any{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply(tc.method, tc.payload)
			_, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr)
			}
			conn, _ := srv.LastConnect()
			p := conn.Params
			if strings.Join(p.Scopes, " ") != strings.Join(tc.wantScopes, " ") {
				t.Errorf("scopes = %v, want %v", p.Scopes, tc.wantScopes)
			}
			if p.Client.ID != "cli" || p.Client.Mode != "cli" || p.Client.Version != version || p.Role != "operator" {
				t.Errorf("client = %+v role %s", p.Client, p.Role)
			}
			if p.Device != nil {
				t.Error("device block sent with a token on loopback")
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %+v, want one", reqs)
			}
			if reqs[0].Method != tc.method || string(reqs[0].Params) != tc.wantParams {
				t.Errorf("sent %s %s, want %s %s", reqs[0].Method, reqs[0].Params, tc.method, tc.wantParams)
			}
		})
	}
}

func TestExpectFinal(t *testing.T) {
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Handle("agent", func(ctx context.Context, call *clienttest.Call) (any, error) {
		if err := call.Accept(map[string]any{"runId": "r1"}); err != nil {
			return nil, err
		}
		return map[string]any{"runId": "r1", "status": "ok"}, nil
	})
	for _, tc := range []struct {
		flag, want string
	}{
		{"--expect-final", `"status": "ok"`},
		{"--expect-final=false", `"status": "accepted"`},
	} {
		stdout, stderr, err := runCLI(t, "gateway", "call", "agent", tc.flag, "--params", `{"message":"hi"}`,
			"--url", srv.URL(), "--token", testToken)
		if err != nil || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: stdout %q stderr %q err %v; want %s", tc.flag, stdout, stderr, err, tc.want)
		}
	}
}

// TestDeviceIdentity checks that without a shared secret the CLI signs
// with a key it keeps in the state dir.
func TestDeviceIdentity(t *testing.T) {
	home := isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{})
	srv.Reply("health", map[string]any{"ok": true})
	t.Setenv(envGatewayURL, srv.URL())
	for range 2 {
		if _, stderr, err := runCLI(t, "health", "--json"); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr)
		}
	}
	path := filepath.Join(home, ".openclaw", "identity", "cli-device.json")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("identity mode = %v", fi.Mode().Perm())
	}
	conns := srv.Connects()
	if len(conns) != 2 || conns[0].Params.Device == nil || conns[1].Params.Device == nil {
		t.Fatalf("connects = %+v, want two signed", conns)
	}
	if conns[0].Params.Device.ID != conns[1].Params.Device.ID {
		t.Error("the key was not reused")
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"-V", "--version"} {
		stdout, _, err := runCLI(t, arg)
		if err != nil || stdout != "openclaw "+version+"\n" {
			t.Errorf("%s: %q, %v", arg, stdout, err)
		}
	}
}
