package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func TestNodeRunURL(t *testing.T) {
	tests := []struct {
		name     string
		flags    nodeRunFlags
		insecure bool
		want     string
		err      string
	}{
		{name: "loopback defaults to ws", flags: nodeRunFlags{host: "127.0.0.1", port: 18789}, want: "ws://127.0.0.1:18789"},
		{name: "localhost", flags: nodeRunFlags{host: "localhost", port: 1}, want: "ws://localhost:1"},
		{name: "ipv6 loopback", flags: nodeRunFlags{host: "::1", port: 5}, want: "ws://[::1]:5"},
		{name: "remote defaults to wss", flags: nodeRunFlags{host: "gw.example", port: 443}, want: "wss://gw.example:443"},
		{name: "--tls on loopback", flags: nodeRunFlags{host: "127.0.0.1", port: 9, tls: true}, want: "wss://127.0.0.1:9"},
		{name: "--no-tls remote refused", flags: nodeRunFlags{host: "10.0.0.2", port: 9, noTLS: true}, err: "refusing plaintext"},
		{name: "--no-tls remote allowed by env", flags: nodeRunFlags{host: "10.0.0.2", port: 9, noTLS: true}, insecure: true, want: "ws://10.0.0.2:9"},
		{name: "both tls flags", flags: nodeRunFlags{host: "h", port: 1, tls: true, noTLS: true}, err: "exclude each other"},
		{name: "a fingerprint means TLS, even on loopback", flags: nodeRunFlags{host: "127.0.0.1", port: 1, tlsFingerprint: "ab:cd"}, want: "wss://127.0.0.1:1"},
		{name: "a fingerprint without TLS", flags: nodeRunFlags{host: "127.0.0.1", port: 1, noTLS: true, tlsFingerprint: "ab:cd"}, err: "needs TLS"},
		{name: "bad port", flags: nodeRunFlags{host: "h", port: 70000}, err: "invalid --port"},
		{name: "bad host", flags: nodeRunFlags{host: "h/x", port: 1}, err: "invalid --host"},
		{name: "default port", flags: nodeRunFlags{host: "127.0.0.1"}, want: "ws://127.0.0.1:18789"},
		{name: "dev port", flags: nodeRunFlags{host: "127.0.0.1", dev: true}, want: "ws://127.0.0.1:19001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t)
			if tt.insecure {
				t.Setenv(envAllowInsecureWS, "1")
			}
			got, err := tt.flags.url()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("url = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestNodeRunServesFakeGateway(t *testing.T) {
	home := isolate(t)
	stateDir := filepath.Join(home, "state")
	t.Setenv(envStateDir, stateDir)
	t.Setenv(envGatewayToken, testToken)
	results := make(chan json.RawMessage, 4)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Handle("node.invoke.result", func(_ context.Context, call *clienttest.Call) (any, error) {
		results <- call.Params
		return map[string]any{"ok": true}, nil
	})
	srv.Handle("node.event", clienttest.Echo)
	u, _ := url.Parse(srv.URL())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"node", "run", "--host", "127.0.0.1", "--port", u.Port(), "--no-tls",
			"--display-name", "cli-node", "--commands", "system.which,system.run"}, strings.NewReader(""), &stdout, &stderr)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Conns()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("node never connected; stdout %q stderr %q", stdout.String(), stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	conn := srv.Conns()[0]
	p := conn.Connect().Params
	if p.Role != "node" || p.Client.DisplayName != "cli-node" || strings.Join(p.Commands, ",") != "system.run,system.which" ||
		p.Auth.Token != testToken || p.Client.Version != version {
		t.Fatalf("connect %+v", p)
	}
	if err := conn.Event("node.invoke.request", map[string]any{"id": "inv-1", "nodeId": p.Device.ID,
		"command": "system.which", "paramsJSON": `{"bins":["sh"]}`, "timeoutMs": 5000}); err != nil {
		t.Fatal(err)
	}
	select {
	case raw := <-results:
		var res struct {
			ID, NodeID, PayloadJSON string
			OK                      bool
		}
		if err := json.Unmarshal(raw, &res); err != nil || res.ID != "inv-1" || !res.OK || !strings.Contains(res.PayloadJSON, `"sh":"/`) {
			t.Fatalf("result %s", raw)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no node.invoke.result")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("node run: %v (stderr %q)", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("node run did not stop on cancel")
	}
	for _, name := range []string{"device.json", "node.json"} {
		st, err := os.Stat(filepath.Join(stateDir, "node", name))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v, mode %v", name, err, st)
		}
	}
	if !strings.Contains(stdout.String(), "node connected") {
		t.Fatalf("stdout %q", stdout.String())
	}
}

func TestNodeRunWrongTokenStops(t *testing.T) {
	home := isolate(t)
	t.Setenv(envStateDir, filepath.Join(home, "state"))
	t.Setenv(envGatewayToken, "wrong")
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	u, _ := url.Parse(srv.URL())
	stdout, stderr, err := runCLI(t, "node", "run", "--host", "127.0.0.1", "--port", u.Port())
	if err == nil || !strings.Contains(stderr, protocol.DetailAuthTokenMismatch) || !strings.Contains(stdout, "node stopped") {
		t.Fatalf("err %v\nstdout %q\nstderr %q", err, stdout, stderr)
	}
	if n := len(srv.Connects()); n != 1 {
		t.Fatalf("%d connects, want 1", n)
	}
}

func TestNodeRunUsage(t *testing.T) {
	isolate(t)
	_, _, err := runCLI(t, "node", "run", "--commands", "camera.snap", "--port", "1")
	if err == nil || !strings.Contains(err.Error(), "unsupported on this host") {
		t.Fatalf("err = %v", err)
	}
	if _, _, err := runCLI(t, "node", "frob"); err == nil || !strings.Contains(err.Error(), `has no command "frob"`) {
		t.Fatalf("err = %v", err)
	}
}
