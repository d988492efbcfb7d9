package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestFailures checks exit status, the text message and the --json
// envelope for each kind of failure.
func TestFailures(t *testing.T) {
	closed := clienttest.NewServer(t, clienttest.Config{})
	deadURL := closed.URL()
	closed.Close()

	tests := []struct {
		name       string
		cfg        clienttest.Config
		setup      func(*clienttest.Server)
		args       []string // --url and --token are added unless noTarget
		noTarget   bool
		wantText   []string // substrings of stderr
		wantType   string
		wantCode   string
		wantDetail string
		wantKind   string
	}{
		{
			name: "token mismatch", cfg: clienttest.Config{Token: "other"},
			args: []string{"gateway", "call", "health"},
			wantText: []string{
				"gateway call failed: INVALID_REQUEST AUTH_TOKEN_MISMATCH: unauthorized: gateway token mismatch",
				"Hint: pass --token",
			},
			wantType: errTypeRequest, wantCode: protocol.CodeInvalidRequest, wantDetail: protocol.DetailAuthTokenMismatch,
		},
		{
			name: "pairing required",
			cfg: clienttest.Config{Reject: func(protocol.ConnectParams) *protocol.Error {
				return protocol.Errorf(protocol.CodeNotPaired, "pairing required: not-paired").
					WithDetails(map[string]any{"code": protocol.DetailPairingRequired, "requestId": "req-9"})
			}},
			args:     []string{"health"},
			wantText: []string{"health failed: NOT_PAIRED PAIRING_REQUIRED: pairing required", "openclaw devices approve req-9"},
			wantType: errTypeRequest, wantCode: protocol.CodeNotPaired, wantDetail: protocol.DetailPairingRequired,
		},
		{
			name: "error response",
			setup: func(s *clienttest.Server) {
				s.Fail("device.pair.approve", protocol.Errorf(protocol.CodeInvalidRequest, "unknown requestId"))
			},
			args:     []string{"devices", "approve", "nope"},
			wantText: []string{"devices approve failed: INVALID_REQUEST: unknown requestId"},
			wantType: errTypeRequest, wantCode: protocol.CodeInvalidRequest,
		},
		{
			name:     "unknown method",
			args:     []string{"gateway", "call", "no.such.method"},
			wantText: []string{"gateway call failed: INVALID_REQUEST: unknown method: no.such.method"},
			wantType: errTypeRequest, wantCode: protocol.CodeInvalidRequest,
		},
		{
			name: "timeout",
			setup: func(s *clienttest.Server) {
				s.Handle("health", func(ctx context.Context, _ *clienttest.Call) (any, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				})
			},
			args:     []string{"health", "--timeout", "100"},
			wantText: []string{"health failed: gateway timeout after 100ms"},
			wantType: errTypeTransport, wantKind: "timeout",
		},
		{
			name: "unreachable", noTarget: true,
			args:     []string{"status", "--url", deadURL, "--token", "x"},
			wantText: []string{"status failed: dial gateway", "Gateway not reachable at " + deadURL + "; start it with `openclaw gateway`"},
			wantType: errTypeTransport, wantKind: "unreachable",
		},
		{
			name: "url without credentials", noTarget: true,
			args:     []string{"health", "--url", "ws://127.0.0.1:1"},
			wantText: []string{"health: gateway url override requires explicit credentials"},
			wantType: errTypeCredentials,
		},
		{
			name: "bad params", noTarget: true,
			args:     []string{"gateway", "call", "health", "--params", "{nope"},
			wantText: []string{"gateway call: --params is not valid JSON"},
			wantType: errTypeCLI,
		},
		{
			name: "unknown flag", noTarget: true,
			args:     []string{"health", "--bogus"},
			wantText: []string{"health: unknown flag: --bogus"},
			wantType: errTypeCLI,
		},
		{
			name: "unknown command", noTarget: true,
			args:     []string{"frobnicate"},
			wantText: []string{`openclaw: OpenClaw does not know the command "frobnicate"`},
			wantType: errTypeCLI,
		},
		{
			name: "missing subcommand", noTarget: true,
			args:     []string{"devices", "lst"},
			wantText: []string{"openclaw devices has no command \"lst\"", "Did you mean this?", "openclaw devices list"},
			wantType: errTypeCLI,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, tc.cfg)
			if tc.setup != nil {
				tc.setup(srv)
			}
			args := tc.args
			if !tc.noTarget {
				args = append(args, "--url", srv.URL(), "--token", testToken)
			}

			stdout, stderr, err := runCLI(t, args...)
			if err == nil {
				t.Fatal("run succeeded")
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			for _, want := range tc.wantText {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr = %q, want %q", stderr, want)
				}
			}
			if strings.Contains(stderr, testToken) {
				t.Error("stderr shows the token")
			}

			stdout, stderr, err = runCLI(t, append(args, "--json")...)
			if err == nil || stderr != "" {
				t.Fatalf("--json: err %v, stderr %q", err, stderr)
			}
			var env struct {
				OK    *bool
				Error struct {
					Type, Code, Message, Kind string
					Details                   map[string]any
				}
			}
			if err := json.Unmarshal([]byte(stdout), &env); err != nil {
				t.Fatalf("--json output %q: %v", stdout, err)
			}
			e := env.Error
			if env.OK == nil || *env.OK || e.Type != tc.wantType || e.Code != tc.wantCode ||
				e.Kind != tc.wantKind || e.Message == "" {
				t.Errorf("--json error = %s", stdout)
			}
			if got, _ := e.Details["code"].(string); got != tc.wantDetail {
				t.Errorf("details.code = %q, want %q", got, tc.wantDetail)
			}
			if strings.Contains(stdout, testToken) {
				t.Error("--json output shows the token")
			}
		})
	}
}
