package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// resolverScript writes an exec secret provider answering id "gw" with
// value and touching marker each time it runs.
func resolverScript(t *testing.T, dir, marker, value string) string {
	t.Helper()
	path := filepath.Join(dir, "resolver")
	body := "#!/bin/sh\ntouch '" + marker + "'\nprintf '{\"protocolVersion\":1,\"values\":{\"gw\":\"" + value + "\"}}'\n"
	if err := os.WriteFile(path, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExecSecretResolvedAtStart: the gateway token comes from an exec
// provider when the gateway starts; clients prove it, and config.get
// shows the reference, never the value.
func TestExecSecretResolvedAtStart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exec secrets are refused where permissions cannot be verified")
	}
	dir := t.TempDir()
	const token = "exec-resolved-gateway-t0ken"
	cmd := resolverScript(t, dir, filepath.Join(dir, "ran"), token)
	cfg := `{gateway: {mode: "local", auth: {token: {source: "exec", provider: "vault", id: "gw"}}},
	  secrets: {providers: {vault: {source: "exec", command: "` + cmd + `"}}}}`
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, nil)
	if _, err := r.dial(t, "wrong-token", "operator.read"); err == nil {
		t.Fatal("a wrong token was accepted")
	}
	admin, err := r.dial(t, token, "operator.admin")
	if err != nil {
		t.Fatalf("the exec-provided token: %v", err)
	}
	var got map[string]any
	if err := admin.Call(context.Background(), "config.get", nil, &got); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(got); strings.Contains(string(b), token) {
		t.Errorf("config.get shows the resolved secret: %s", b)
	}
}

// TestConfigWritesCannotRunExecProviders: a write-scoped client cannot
// add an exec secret provider (config writes need operator.admin), and an
// admin's dry run checks one without running it.
func TestConfigWritesCannotRunExecProviders(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exec secrets are refused where permissions cannot be verified")
	}
	dir := t.TempDir()
	r := startGatewayIn(t, dir, nil)
	tok := r.token(t)
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := resolverScript(t, t.TempDir(), marker, "x")
	raw := `{gateway: {mode: "local", auth: {token: "` + tok + `"}},
	  secrets: {providers: {evil: {source: "exec", command: "` + cmd + `"}}},
	  models: {providers: {p: {baseUrl: "http://127.0.0.1:1/v1", apiKey: {source: "exec", provider: "evil", id: "gw"}}}}}`
	ctx := context.Background()
	writer, err := r.dial(t, tok, "operator.write")
	if err != nil {
		t.Fatal(err)
	}
	var cur struct {
		Hash string `json:"hash"`
	}
	if err := writer.Call(ctx, "config.get", nil, &cur); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"config.set", "config.apply", "config.patch"} {
		params := map[string]any{"raw": raw, "baseHash": cur.Hash}
		err := writer.Call(ctx, m, params, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeForbidden {
			t.Errorf("%s by a write-scoped client: %v; want FORBIDDEN", m, err)
		}
	}
	admin, err := r.dial(t, tok, "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Call(ctx, "config.set", map[string]any{"raw": raw, "baseHash": cur.Hash, "dryRun": true}, nil); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an exec provider ran for a write or a dry run")
	}
}

// TestUnsafeSecretFileRefusesStart: a secrets file others can read is
// refused as OpenClaw refuses it, the gateway does not start, and the
// error names the file, not what it holds.
func TestUnsafeSecretFileRefusesStart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file secrets are refused where permissions cannot be verified")
	}
	dir := t.TempDir()
	const value = "group-readable-secret-value"
	file := filepath.Join(dir, "token.txt")
	if err := os.WriteFile(file, []byte(value), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(file, 0o644)
	cfg := `{gateway: {mode: "local", auth: {token: {source: "file", provider: "f", id: "value"}}},
	  secrets: {providers: {f: {source: "file", path: "` + file + `", mode: "singleValue"}}}}`
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Run(context.Background(), Options{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json"), Port: -1,
		Getenv: func(string) string { return "" }, Stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "permissions are too open") || strings.Contains(err.Error(), value) {
		t.Fatalf("Run = %v; want a refusal naming the permissions, without the value", err)
	}
}

func TestApplyEnvVarsNeverOverrides(t *testing.T) {
	env := map[string]string{"SET": "from-env"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	set := func(k, v string) error { env[k] = v; return nil }
	unset := func(k string) error { delete(env, k); return nil }
	ours := map[string]bool{}
	applyEnvVars(map[string]string{"SET": "cfg", "NEW": "cfg1"}, ours, lookup, set, unset)
	if env["SET"] != "from-env" || env["NEW"] != "cfg1" {
		t.Fatalf("env = %v", env)
	}
	// A reload changes what the config set, and drops what it removed.
	applyEnvVars(map[string]string{"SET": "cfg", "NEW": "cfg2"}, ours, lookup, set, unset)
	if env["NEW"] != "cfg2" {
		t.Fatalf("env = %v", env)
	}
	applyEnvVars(nil, ours, lookup, set, unset)
	if _, ok := env["NEW"]; ok || env["SET"] != "from-env" {
		t.Fatalf("env = %v", env)
	}
}
