package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// rpcCase is one command run against the fake gateway: what it must send
// and print.
type rpcCase struct {
	name       string
	args       []string
	method     string
	wantParams string // compact JSON, sorted keys, idempotencyKey left out
	wantKey    bool   // params carry a fresh UUID idempotencyKey
	wantScopes []string
	payload    any
	wantOut    string // exact stdout; "" skips the check
}

// runRPCCases runs each case against its own fake gateway.
func runRPCCases(t *testing.T, tests []rpcCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply(tc.method, tc.payload)
			stdout, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr)
			}
			conn, _ := srv.LastConnect()
			if got := strings.Join(conn.Params.Scopes, " "); got != strings.Join(tc.wantScopes, " ") {
				t.Errorf("scopes = %s, want %v", got, tc.wantScopes)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %+v, want one", reqs)
			}
			var params map[string]any
			if err := json.Unmarshal(reqs[0].Params, &params); err != nil {
				t.Fatalf("params %s: %v", reqs[0].Params, err)
			}
			key, _ := params["idempotencyKey"].(string)
			delete(params, "idempotencyKey")
			if _, err := uuid.Parse(key); tc.wantKey && err != nil {
				t.Errorf("idempotencyKey = %q, want a UUID", key)
			} else if !tc.wantKey && key != "" {
				t.Errorf("unexpected idempotencyKey %q", key)
			}
			got, _ := json.Marshal(params)
			if reqs[0].Method != tc.method || string(got) != tc.wantParams {
				t.Errorf("sent %s %s\nwant %s %s", reqs[0].Method, got, tc.method, tc.wantParams)
			}
			if tc.wantOut != "" && stdout != tc.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.wantOut)
			}
		})
	}
}

// usageCase is a command line refused before anything is sent.
type usageCase struct {
	name    string
	args    []string
	wantErr string // substring of stderr
}

// runUsageCases runs each case; local commands (which edit the config
// file) get no gateway flags.
func runUsageCases(t *testing.T, local bool, tests []usageCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			target := []string{"--url", srv.URL(), "--token", testToken}
			if local {
				target = nil
			}
			_, stderr, err := runCLI(t, append(tc.args, target...)...)
			if err == nil || !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("err %v, stderr %q; want %q", err, stderr, tc.wantErr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
			// --json turns the same failure into a cli_error envelope.
			stdout, _, _ := runCLI(t, append(append(tc.args, "--json"), target...)...)
			var env struct {
				OK    bool
				Error errorBody
			}
			if err := json.Unmarshal([]byte(stdout), &env); err != nil || env.OK || env.Error.Type != errTypeCLI {
				t.Errorf("--json: %q (%v)", stdout, err)
			}
		})
	}
}

var pairingListPayload = map[string]any{
	"accounts": []any{map[string]any{"channel": "telegram", "accountId": "default"}},
	"requests": []any{
		map[string]any{"requestId": "r-1", "channel": "telegram", "accountId": "default", "senderId": "12345",
			"senderLabel": "Ada (@ada)", "metadata": map[string]any{"code": "ABCD2345"},
			"createdAt": "2026-11-30T11:00:00Z", "expiresAt": "2026-11-30T12:00:00Z"},
		map[string]any{"requestId": "r-2", "channel": "telegram", "accountId": "work", "senderId": "777",
			"metadata":  map[string]any{"code": "WXYZ6789"},
			"createdAt": "2026-11-30T11:30:10Z", "expiresAt": "2026-11-30T12:30:10Z"},
	},
}

func TestPairingRequests(t *testing.T) {
	pairing := []string{"operator.pairing"}
	pairingAdmin := []string{"operator.pairing", "operator.admin"}
	approved := map[string]any{"requestId": "r-1", "senderId": "12345", "notification": "not-requested"}
	runRPCCases(t, []rpcCase{
		{name: "list all", args: []string{"pairing", "list"}, method: "channels.pairing.list", wantParams: `{}`,
			wantScopes: pairing, payload: pairingListPayload,
			wantOut: "CHANNEL   ACCOUNT  CODE      SENDER              REQUESTED          EXPIRES\n" +
				"telegram  default  ABCD2345  Ada (@ada) (12345)  2026-11-30 11:00Z  2026-11-30 12:00Z\n" +
				"telegram  work     WXYZ6789  777                 2026-11-30 11:30Z  2026-11-30 12:30Z\n"},
		{name: "list channel and account", args: []string{"pairing", "list", "telegram", "--account", "work"},
			method: "channels.pairing.list", wantParams: `{"accountId":"work","channel":"telegram"}`,
			wantScopes: pairing, payload: map[string]any{"requests": []any{}}, wantOut: "No pending pairing requests.\n"},
		{name: "list json", args: []string{"pairing", "list", "--json"}, method: "channels.pairing.list", wantParams: `{}`,
			wantScopes: pairing, payload: map[string]any{"requests": []any{}}, wantOut: "{\n  \"requests\": []\n}\n"},
		{name: "approve", args: []string{"pairing", "approve", "telegram", "ABCD2345"}, method: "channels.pairing.approve",
			wantParams: `{"bootstrapCommandOwner":true,"channel":"telegram","notify":false,"requestId":"ABCD2345"}`, wantScopes: pairingAdmin,
			payload: approved, wantOut: "Approved 12345 on telegram (DMs only; groups still follow groupPolicy)\n"},
		{name: "approve first owner", args: []string{"pairing", "approve", "telegram", "ABCD2345"}, method: "channels.pairing.approve",
			wantParams: `{"bootstrapCommandOwner":true,"channel":"telegram","notify":false,"requestId":"ABCD2345"}`, wantScopes: pairingAdmin,
			payload: map[string]any{"senderId": "12345", "commandOwnerBootstrap": "configured"},
			wantOut: "Approved 12345 on telegram (DMs only; groups still follow groupPolicy)\n" +
				"Command owner configured: telegram:12345 (commands.ownerAllowFrom was empty)\n"},
		{name: "approve notify account", args: []string{"pairing", "approve", "telegram", "ABCD2345", "--account", "work", "--notify"},
			method: "channels.pairing.approve", wantScopes: pairingAdmin,
			wantParams: `{"accountId":"work","bootstrapCommandOwner":true,"channel":"telegram","notify":true,"requestId":"ABCD2345"}`,
			payload:    map[string]any{"senderId": "12345", "notification": "failed"},
			wantOut: "Approved 12345 on telegram (DMs only; groups still follow groupPolicy)\n" +
				"Could not tell the sender they are approved; they can write to the bot now.\n"},
		{name: "approve json", args: []string{"pairing", "approve", "telegram", "ABCD2345", "--json"},
			method: "channels.pairing.approve", wantScopes: pairingAdmin,
			wantParams: `{"bootstrapCommandOwner":true,"channel":"telegram","notify":false,"requestId":"ABCD2345"}`,
			payload:    map[string]any{"senderId": "12345"}, wantOut: "{\n  \"senderId\": \"12345\"\n}\n"},
		{name: "list --channel", args: []string{"pairing", "list", "--channel", "telegram", "--account", "work"},
			method: "channels.pairing.list", wantParams: `{"accountId":"work","channel":"telegram"}`,
			wantScopes: pairing, payload: map[string]any{"requests": []any{}}, wantOut: "No pending pairing requests.\n"},
		{name: "list same channel both ways", args: []string{"pairing", "list", "telegram", "--channel", "telegram"},
			method: "channels.pairing.list", wantParams: `{"channel":"telegram"}`,
			wantScopes: pairing, payload: map[string]any{"requests": []any{}}},
		{name: "approve --channel CODE", args: []string{"pairing", "approve", "--channel", "telegram", "ABCD2345", "--notify"},
			method: "channels.pairing.approve", wantScopes: pairingAdmin,
			wantParams: `{"bootstrapCommandOwner":true,"channel":"telegram","notify":true,"requestId":"ABCD2345"}`,
			payload:    approved, wantOut: "Approved 12345 on telegram (DMs only; groups still follow groupPolicy)\n"},
		{name: "dismiss --channel", args: []string{"pairing", "dismiss", "WXYZ6789", "--channel", "telegram"}, method: "channels.pairing.dismiss",
			wantParams: `{"channel":"telegram","requestId":"WXYZ6789"}`, wantScopes: pairing,
			payload: map[string]any{"requestId": "r-2", "senderId": "777"}, wantOut: "Dismissed the request of 777 on telegram\n"},
		{name: "dismiss", args: []string{"pairing", "dismiss", "telegram", "WXYZ6789"}, method: "channels.pairing.dismiss",
			wantParams: `{"channel":"telegram","requestId":"WXYZ6789"}`, wantScopes: pairing,
			payload: map[string]any{"requestId": "r-2", "senderId": "777"}, wantOut: "Dismissed the request of 777 on telegram\n"},
	})
}

func TestPairingUsage(t *testing.T) {
	runUsageCases(t, false, []usageCase{
		{"no subcommand", []string{"pairing"}, "missing subcommand (one of approve, dismiss, list)"},
		{"unknown subcommand", []string{"pairing", "reject"}, `openclaw pairing has no command "reject"`},
		{"approve without channel", []string{"pairing", "approve"}, "missing argument (usage: openclaw pairing approve CHANNEL CODE"},
		// One positional is the code (as in the real CLI); then the
		// channel must come from --channel.
		{"approve without code", []string{"pairing", "approve", "telegram"}, "which channel? pass it first"},
		{"channel given twice", []string{"pairing", "approve", "telegram", "A", "--channel", "discord"}, `channel given twice: "telegram" and --channel "discord"`},
		{"list channel given twice", []string{"pairing", "list", "telegram", "--channel", "discord"}, "channel given twice"},
		{"blank channel", []string{"pairing", "list", "--channel", " "}, "--channel must not be blank"},
		{"blank account", []string{"pairing", "list", "--account", ""}, "--account must not be blank"},
		{"approve blank account", []string{"pairing", "approve", "--channel", "telegram", "A", "--account", " "}, "--account must not be blank"},
		{"approve extra", []string{"pairing", "approve", "telegram", "A", "B"}, `unexpected argument "B"`},
		{"dismiss without code", []string{"pairing", "dismiss", "telegram"}, "which channel?"},
		{"list two channels", []string{"pairing", "list", "telegram", "discord"}, `unexpected argument "discord"`},
		{"dismiss has no notify", []string{"pairing", "dismiss", "telegram", "A", "--notify"}, "unknown flag: --notify"},
	})
}

// newFake starts a fake gateway answering method with payload.
func newFake(t *testing.T, method string, payload any) *clienttest.Server {
	t.Helper()
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Reply(method, payload)
	return srv
}

// runCLIStdin is runCLI with stdin.
func runCLIStdin(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	err = run(ctx, args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

// TestPairingApproveUnknownCode checks a gateway refusal is reported with
// the command's name.
func TestPairingApproveUnknownCode(t *testing.T) {
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Fail("channels.pairing.approve", protocol.Errorf(protocol.CodeInvalidRequest, "channels.pairing.approve: no pending pairing request"))
	stdout, stderr, err := runCLI(t, "pairing", "approve", "telegram", "NOPE1234", "--url", srv.URL(), "--token", testToken)
	if err == nil || stdout != "" ||
		stderr != "pairing approve failed: INVALID_REQUEST: channels.pairing.approve: no pending pairing request\n" {
		t.Errorf("err %v stdout %q stderr %q", err, stdout, stderr)
	}
}
