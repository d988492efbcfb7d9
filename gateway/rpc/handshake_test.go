package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestHandshakeConformance replays the refusals captured from the real
// gateway (openclaw-frames.md §5) and checks ours answer the same codes.
func TestHandshakeConformance(t *testing.T) {
	withParams := func(mut func(p map[string]any)) map[string]any {
		f := cliConnect("operator.read")
		mut(f["params"].(map[string]any))
		return f
	}
	tests := []struct {
		name       string
		frame      any
		wantCode   string
		wantDetail string
		wantMsg    string
		wantClose  int
	}{
		{"wrong token", withParams(func(p map[string]any) { p["auth"] = map[string]any{"token": "nope"} }),
			protocol.CodeInvalidRequest, protocol.DetailAuthTokenMismatch, "gateway token mismatch", protocol.ClosePolicy},
		{"missing token", withParams(func(p map[string]any) { p["auth"] = map[string]any{} }),
			protocol.CodeInvalidRequest, protocol.DetailAuthTokenMissing, "token missing", protocol.ClosePolicy},
		{"first request not connect", map[string]any{"type": "req", "id": "1:x", "method": "health", "params": map[string]any{}},
			protocol.CodeInvalidRequest, "", "invalid handshake: first request must be connect", protocol.ClosePolicy},
		{"protocol 99", withParams(func(p map[string]any) { p["minProtocol"], p["maxProtocol"] = 99, 99 }),
			protocol.CodeInvalidRequest, protocol.DetailProtocolMismatch, "protocol mismatch", protocol.CloseProtocolMismatch},
		{"no auth no device", withParams(func(p map[string]any) { delete(p, "auth") }),
			protocol.CodeNotPaired, protocol.DetailDeviceIdentityRequired, "device identity required", protocol.ClosePolicy},
		{"bad role", withParams(func(p map[string]any) { p["role"] = "root" }),
			protocol.CodeInvalidRequest, "", "invalid role", protocol.ClosePolicy},
		{"unknown client id", withParams(func(p map[string]any) { p["client"].(map[string]any)["id"] = "hacker" }),
			protocol.CodeInvalidRequest, "", "invalid connect params", protocol.ClosePolicy},
		{"node without device", withParams(func(p map[string]any) { p["role"] = "node"; p["client"].(map[string]any)["mode"] = "node" }),
			protocol.CodeNotPaired, protocol.DetailDeviceIdentityRequired, "device identity required", protocol.ClosePolicy},
	}
	g := startTestServer(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, _ := g.dial(t, nil)
			send(t, ws, tt.frame)
			var res response
			readInto(t, ws, &res)
			if res.OK || res.Error == nil {
				t.Fatalf("connect accepted: %s", res.Payload)
			}
			if res.Error.Code != tt.wantCode || detail(res.Error) != tt.wantDetail || !strings.Contains(res.Error.Message, tt.wantMsg) {
				t.Fatalf("error = %+v (detail %q); want %s/%s containing %q", res.Error, detail(res.Error), tt.wantCode, tt.wantDetail, tt.wantMsg)
			}
			if code, _ := closeCode(t, ws); code != tt.wantClose {
				t.Fatalf("close code = %d, want %d", code, tt.wantClose)
			}
		})
	}
}

func TestHelloOk(t *testing.T) {
	g := startTestServer(t, nil)
	ws, _ := g.dial(t, nil)
	f := cliConnect("operator.read", "bogus.scope", "operator.read")
	f["params"].(map[string]any)["futureField"] = true // unknown fields are ignored
	send(t, ws, f)
	var res response
	readInto(t, ws, &res)
	if !res.OK {
		t.Fatalf("connect: %+v", res.Error)
	}
	var hello protocol.HelloOk
	if err := json.Unmarshal(res.Payload, &hello); err != nil {
		t.Fatal(err)
	}
	if hello.Type != "hello-ok" || hello.Protocol != 4 || hello.Server.ConnID == "" {
		t.Fatalf("hello = %+v", hello)
	}
	if got := strings.Join(hello.Auth.Scopes, ","); got != "operator.read" {
		t.Fatalf("scopes = %q, want operator.read only", got)
	}
	if hello.Policy.MaxPayload != protocol.MaxPayload || hello.Policy.MaxBufferedBytes != protocol.MaxBufferedBytes || hello.Policy.TickIntervalMs != 3600000 {
		t.Fatalf("policy = %+v", hello.Policy)
	}
	if strings.Join(hello.Features.Methods, ",") != "health,status" {
		t.Fatalf("methods = %v", hello.Features.Methods)
	}
}

func TestProbeScopesCleared(t *testing.T) {
	g := startTestServer(t, nil)
	ws, _ := g.dial(t, nil)
	f := cliConnect("operator.read")
	p := f["params"].(map[string]any)
	p["minProtocol"] = 3
	p["client"].(map[string]any)["mode"] = "probe"
	send(t, ws, f)
	var res response
	readInto(t, ws, &res)
	var hello protocol.HelloOk
	json.Unmarshal(res.Payload, &hello)
	if !res.OK || len(hello.Auth.Scopes) != 0 {
		t.Fatalf("probe: ok=%v scopes=%v", res.OK, hello.Auth.Scopes)
	}
	r := call(t, ws, "3:x", "status", map[string]any{})
	if r.OK || r.Error.Code != protocol.CodeForbidden || detail(r.Error) != protocol.DetailMissingScope {
		t.Fatalf("status on probe = %+v", r.Error)
	}
}

func TestHandshakeGarbageAndOversize(t *testing.T) {
	g := startTestServer(t, nil)
	t.Run("garbage before connect closes", func(t *testing.T) {
		ws, _ := g.dial(t, nil)
		ws.WriteMessage(1, []byte("not json"))
		if code, _ := closeCode(t, ws); code != protocol.ClosePolicy {
			t.Fatalf("close = %d", code)
		}
	})
	t.Run("frame over 64 KiB before connect closes", func(t *testing.T) {
		ws, _ := g.dial(t, nil)
		big := strings.Repeat("x", protocol.MaxPreauthPayload+1)
		ws.WriteMessage(1, []byte(`{"type":"req","id":"1","method":"connect","params":{"pad":"`+big+`"}}`))
		if code, _ := closeCode(t, ws); code != 1009 {
			t.Fatalf("close = %d, want 1009", code)
		}
	})
}
