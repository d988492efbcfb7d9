package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// TestFloodRun runs the flood mode against the bus in process, with a
// pre-auth budget smaller than the flood: the flood is held and churned,
// and the timed fresh connects and the health calls still get through.
func TestFloodRun(t *testing.T) {
	srv := rpc.NewServer(rpc.Options{
		Auth:       func() rpc.AuthConfig { return rpc.AuthConfig{Mode: "token", Token: "tok"} },
		MaxPreauth: 8, HandshakeTimeout: time.Hour, TickInterval: time.Hour,
	})
	srv.Handle("health", rpc.Route{Scope: protocol.ScopeNone, Inline: true, Handler: func(context.Context, *rpc.Request) (any, error) {
		return map[string]any{"ok": true}, nil
	}})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx, "test over", 0)
		hs.Close()
	})
	cfg, err := parseFlags([]string{"-url", "ws" + strings.TrimPrefix(hs.URL, "http"), "-token", "tok",
		"-flood", "24", "-flood-ramp", "5s", "-handshakes", "3", "-conns", "1", "-requests", "20", "-warmup", "2"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := measure(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Flood == nil || rep.Flood.Opened < 8 {
		t.Fatalf("the flood did not run: %+v", rep.Flood)
	}
	if rep.HandshakeFailed != 0 || rep.Handshake.N != 3 || rep.Errors != 0 {
		t.Fatalf("during the flood: %d of 3 connects failed (%s), %d request errors", rep.HandshakeFailed, rep.FirstConnectError, rep.Errors)
	}
}
