package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// dial connects to srv with opts (URL filled in) and closes at test end.
func dial(t *testing.T, srv *clienttest.Server, opts client.Options) *client.Client {
	t.Helper()
	opts.URL = srv.URL()
	c, err := client.Dial(context.Background(), opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// checkNoLeak fails if a Client goroutine is still running after a
// deadline.
func checkNoLeak(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "gateway/client.(*Client)") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("client goroutines still running:\n%s", stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConnectFrame(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{Token: "T"})
	c := dial(t, srv, client.Options{
		Token: "T", Scopes: []string{"operator.read"}, Version: "1.2.3",
		Platform: "linux", DeviceFamily: "Linux", Caps: []string{"tool-events"},
	})
	got, ok := srv.LastConnect()
	if !ok {
		t.Fatal("server saw no connect")
	}
	var frame struct {
		Type, ID, Method string
		Params           map[string]any
	}
	if err := json.Unmarshal(got.Raw, &frame); err != nil {
		t.Fatal(err)
	}
	if frame.Type != "req" || frame.Method != "connect" || !strings.HasPrefix(frame.ID, "1:") || len(frame.ID) != 2+36 {
		t.Errorf("frame = %s", got.Raw)
	}
	p := got.Params
	checks := []struct{ name, got, want string }{
		{"client.id", p.Client.ID, "cli"},
		{"client.mode", p.Client.Mode, "cli"},
		{"client.version", p.Client.Version, "1.2.3"},
		{"client.platform", p.Client.Platform, "linux"},
		{"client.deviceFamily", p.Client.DeviceFamily, "Linux"},
		{"role", p.Role, "operator"},
		{"scopes", strings.Join(p.Scopes, ","), "operator.read"},
		{"caps", strings.Join(p.Caps, ","), "tool-events"},
		{"auth.token", p.Auth.Token, "T"},
		{"protocol", fmt.Sprint(p.MinProtocol, p.MaxProtocol), "4 4"},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s = %q, want %q", ck.name, ck.got, ck.want)
		}
	}
	if p.Client.InstanceID == "" {
		t.Error("client.instanceId empty")
	}
	if p.Device != nil {
		t.Error("device block sent without an identity")
	}
	if _, ok := frame.Params["password"]; ok {
		t.Error("empty password sent")
	}
	h := c.Hello()
	if h.Type != "hello-ok" || h.Protocol != 4 || h.Auth.Role != "operator" || h.Policy.TickIntervalMs != 30000 {
		t.Errorf("Hello() = %+v", h)
	}
}

func TestPlatform(t *testing.T) {
	for _, tc := range []struct{ goos, platform, family string }{
		{"linux", "linux", "Linux"},
		{"darwin", "macos", "Mac"},
		{"windows", "windows", "Windows"},
		{"freebsd", "freebsd", "freebsd"},
	} {
		p, f := client.Platform(tc.goos)
		if p != tc.platform || f != tc.family {
			t.Errorf("Platform(%q) = %q, %q; want %q, %q", tc.goos, p, f, tc.platform, tc.family)
		}
	}
}

func TestDialErrors(t *testing.T) {
	pairing := protocol.Errorf(protocol.CodeNotPaired, "pairing required: not-paired").
		WithDetails(map[string]any{"code": protocol.DetailPairingRequired, "requestId": "r1"})
	closed := clienttest.NewServer(t, clienttest.Config{})
	closedURL := closed.URL()
	closed.Close()

	tests := []struct {
		name       string
		cfg        clienttest.Config
		opts       client.Options
		url        string // overrides the server's
		wantCode   string // protocol error code; empty for other errors
		wantDetail string
		wantErr    error
	}{
		{name: "token mismatch", cfg: clienttest.Config{Token: "right"}, opts: client.Options{Token: "wrong"},
			wantCode: protocol.CodeInvalidRequest, wantDetail: protocol.DetailAuthTokenMismatch},
		{name: "token missing", cfg: clienttest.Config{Token: "right"},
			wantCode: protocol.CodeInvalidRequest, wantDetail: protocol.DetailAuthTokenMissing},
		{name: "password mismatch", cfg: clienttest.Config{Password: "pw"}, opts: client.Options{Password: "nope"},
			wantCode: protocol.CodeInvalidRequest, wantDetail: protocol.DetailAuthPasswordMismatch},
		{name: "pairing required",
			cfg:      clienttest.Config{Reject: func(protocol.ConnectParams) *protocol.Error { return pairing }},
			wantCode: protocol.CodeNotPaired, wantDetail: protocol.DetailPairingRequired},
		{name: "bad client id", opts: client.Options{ClientID: "nope"}, wantCode: protocol.CodeInvalidRequest},
		{name: "no challenge", cfg: clienttest.Config{NoChallenge: true},
			opts: client.Options{HandshakeTimeout: 100 * time.Millisecond}, wantErr: context.DeadlineExceeded},
		{name: "challenge without nonce",
			cfg:     clienttest.Config{Challenge: func(string, int64) any { return map[string]any{"ts": 1} }},
			wantErr: client.ErrBadChallenge},
		{name: "challenge ts not integer",
			cfg:     clienttest.Config{Challenge: func(n string, _ int64) any { return map[string]any{"nonce": n, "ts": 1.5} }},
			wantErr: client.ErrBadChallenge},
		{name: "signing needs ts",
			cfg:     clienttest.Config{Challenge: func(n string, _ int64) any { return map[string]any{"nonce": n} }},
			opts:    client.Options{Identity: mustIdentity(t)},
			wantErr: client.ErrBadChallenge},
		{name: "nothing listening", url: closedURL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := clienttest.NewServer(t, tc.cfg)
			tc.opts.URL = srv.URL()
			if tc.url != "" {
				tc.opts.URL = tc.url
			}
			c, err := client.Dial(context.Background(), tc.opts)
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded")
			}
			var perr *protocol.Error
			isProto := errors.As(err, &perr)
			if tc.wantCode == "" && isProto {
				t.Fatalf("err = protocol error %v, want another kind", err)
			}
			if tc.wantCode != "" {
				if !isProto {
					t.Fatalf("err = %v (%T), want *protocol.Error", err, err)
				}
				if perr.Code != tc.wantCode {
					t.Errorf("code = %q, want %q", perr.Code, tc.wantCode)
				}
				if d, _ := perr.Details.(map[string]any); tc.wantDetail != "" && d["code"] != tc.wantDetail {
					t.Errorf("details = %v, want code %s", perr.Details, tc.wantDetail)
				}
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			checkNoLeak(t)
		})
	}
}

func TestCall(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{})
	srv.Handle("echo", clienttest.Echo)
	srv.Fail("broken", protocol.Errorf(protocol.CodeUnavailable, "it broke").
		WithDetails(map[string]any{"code": "X"}))
	srv.Reply("health", map[string]any{"ok": true, "ts": 42})
	c := dial(t, srv, client.Options{})

	tests := []struct {
		name       string
		method     string
		params     any
		wantParams string // params as the server received them ("" = none)
		want       string // payload as JSON
		wantCode   string
	}{
		{name: "map params", method: "echo", params: map[string]any{"a": 1}, wantParams: `{"a":1}`, want: `{"a":1}`},
		{name: "raw params", method: "echo", params: json.RawMessage(`{"b":[1,2]}`), wantParams: `{"b":[1,2]}`, want: `{"b":[1,2]}`},
		{name: "nil params", method: "health", want: `{"ok":true,"ts":42}`},
		{name: "error response", method: "broken", params: map[string]any{}, wantParams: `{}`, wantCode: protocol.CodeUnavailable},
		{name: "unknown method", method: "no.such.method", wantCode: protocol.CodeInvalidRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out json.RawMessage
			err := c.Call(context.Background(), tc.method, tc.params, &out)
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			if last.Method != tc.method || string(last.Params) != tc.wantParams {
				t.Errorf("server got %s %s, want params %s", last.Method, last.Params, tc.wantParams)
			}
			if tc.wantCode != "" {
				var perr *protocol.Error
				if !errors.As(err, &perr) || perr.Code != tc.wantCode {
					t.Fatalf("err = %v, want code %s", err, tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("payload = %s, want %s", out, tc.want)
			}
		})
	}

	t.Run("decode into struct", func(t *testing.T) {
		var h struct {
			OK bool  `json:"ok"`
			Ts int64 `json:"ts"`
		}
		if err := c.Call(context.Background(), "health", nil, &h); err != nil || !h.OK || h.Ts != 42 {
			t.Errorf("health = %+v, %v", h, err)
		}
	})
	t.Run("ids count up", func(t *testing.T) {
		reqs := srv.Requests()
		for i, r := range reqs {
			if want := fmt.Sprintf("%d:", i+2); !strings.HasPrefix(r.ID, want) {
				t.Errorf("request %d id = %q, want prefix %q", i, r.ID, want)
			}
		}
	})
}
