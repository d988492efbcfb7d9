package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

var nodeListPayload = map[string]any{
	"ts": 1796040000000,
	"nodes": []any{
		map[string]any{"nodeId": "dev-1", "displayName": "build box", "platform": "linux", "connected": true, "paired": true,
			"commands": []string{"system.which", "system.notify"}, "connectedAtMs": 1796036405000, "lastSeenAtMs": 1796040000000},
		map[string]any{"nodeId": "dev-2", "platform": "ios", "connected": false,
			"commands": []string{}, "lastSeenAtMs": 1796036405000, "lastSeenReason": "disconnect"},
		map[string]any{"nodeId": "dev-1-long-id", "displayName": "phone", "connected": false, "commands": []string{}},
	},
}

func TestNodesCommands(t *testing.T) {
	read := []string{"operator.read"}
	pairing := []string{"operator.pairing"}
	pairingAdmin := []string{"operator.pairing", "operator.admin"}
	table := "ID             NAME       PLATFORM  CONNECTED  COMMANDS  LAST SEEN\n" +
		"dev-1          build box  linux     yes        2         2026-11-30 12:00:00Z\n" +
		"dev-2          -          ios       no         0         2026-11-30 11:00:05Z\n" +
		"dev-1-long-id  phone      -         no         0         -\n"
	runRPCCases(t, []rpcCase{
		{name: "status", args: []string{"nodes", "status"}, method: "node.list", wantParams: `{}`,
			wantScopes: read, payload: nodeListPayload, wantOut: table},
		{name: "list", args: []string{"nodes", "list"}, method: "node.list", wantParams: `{}`,
			wantScopes: read, payload: nodeListPayload, wantOut: table},
		{name: "list connected", args: []string{"nodes", "list", "--connected"}, method: "node.list", wantParams: `{}`,
			wantScopes: read, payload: nodeListPayload,
			wantOut: "ID     NAME       PLATFORM  CONNECTED  COMMANDS  LAST SEEN\n" +
				"dev-1  build box  linux     yes        2         2026-11-30 12:00:00Z\n"},
		{name: "status none", args: []string{"nodes", "status"}, method: "node.list", wantParams: `{}`,
			wantScopes: read, payload: map[string]any{"nodes": []any{}}, wantOut: "No nodes.\n"},
		{name: "status json", args: []string{"nodes", "status", "--json"}, method: "node.list", wantParams: `{}`,
			wantScopes: read, payload: map[string]any{"nodes": []any{}}, wantOut: "{\n  \"nodes\": []\n}\n"},
		{name: "pending", args: []string{"nodes", "pending"}, method: "node.pair.list", wantParams: `{}`, wantScopes: pairing,
			payload: map[string]any{"pending": []any{map[string]any{"requestId": "req-1", "nodeId": "dev-3", "displayName": "mac", "commands": []string{"system.run"}}},
				"paired": nodeListPayload["nodes"].([]any)[:1]},
			wantOut: "Pending requests: 1\nREQUEST  NODE   NAME  PLATFORM  COMMANDS\nreq-1    dev-3  mac   -         system.run\n\n" +
				"Paired nodes: 1\nID     NAME       PLATFORM  CONNECTED\ndev-1  build box  linux     yes\n"},
		{name: "approve", args: []string{"nodes", "approve", "req-1"}, method: "node.pair.approve", wantParams: `{"requestId":"req-1"}`,
			wantScopes: pairingAdmin, payload: map[string]any{"requestId": "req-1", "node": map[string]any{"nodeId": "dev-3"}},
			wantOut: "Approved node dev-3 (request req-1)\n"},
		{name: "reject", args: []string{"nodes", "reject", "req-1"}, method: "node.pair.reject", wantParams: `{"requestId":"req-1"}`,
			wantScopes: pairing, payload: map[string]any{"requestId": "req-1", "nodeId": "dev-3"},
			wantOut: "Rejected node dev-3 (request req-1)\n"},
	})
}

// TestNodesOnOneNode covers the commands that name a node: they resolve
// it through node.list, then call their method on the same connection.
func TestNodesOnOneNode(t *testing.T) {
	read := []string{"operator.read"}
	write := []string{"operator.write"}
	pairing := []string{"operator.pairing", "operator.read"}
	runNodeCases(t, []rpcCase{
		{name: "describe", args: []string{"nodes", "describe", "dev-2"}, method: "node.describe", wantParams: `{"nodeId":"dev-2"}`,
			wantScopes: read, payload: nodeListPayload["nodes"].([]any)[1],
			wantOut: "Node:      dev-2\nName:      -\nPlatform:  ios\nVersion:   -\nClient:    -\nRemote IP: -\nPaired:    no\n" +
				"Connected: no\nLast seen: 2026-11-30 11:00:05Z (disconnect)\nApproval:  -\nCaps:      -\nCommands:  -\n"},
		{name: "rename", args: []string{"nodes", "rename", "dev-1", "Build Box"}, method: "node.rename",
			wantParams: `{"displayName":"Build Box","nodeId":"dev-1"}`, wantScopes: pairing,
			payload: map[string]any{"nodeId": "dev-1", "displayName": "Build Box"}, wantOut: "Renamed node dev-1 to \"Build Box\"\n"},
		{name: "invoke", args: []string{"nodes", "invoke", "dev-1", "system.which", "--params", `{"bins":["sh"]}`},
			method: "node.invoke", wantKey: true, wantScopes: write,
			wantParams: `{"command":"system.which","nodeId":"dev-1","params":{"bins":["sh"]},"timeoutMs":10000}`,
			payload:    map[string]any{"ok": true, "nodeId": "dev-1", "command": "system.which", "payload": map[string]any{"bins": map[string]any{"sh": "/bin/sh"}}},
			wantOut:    "{\n  \"bins\": {\n    \"sh\": \"/bin/sh\"\n  }\n}\n"},
		{name: "invoke real CLI flags", args: []string{"nodes", "invoke", "--node", "dev-1", "--command", "system.notify", "--invoke-timeout", "3000"},
			method: "node.invoke", wantKey: true, wantScopes: write,
			wantParams: `{"command":"system.notify","nodeId":"dev-1","timeoutMs":3000}`,
			payload:    map[string]any{"ok": true, "payload": nil}, wantOut: "Invoked system.notify on dev-1 (no payload)\n"},
		{name: "invoke admin command", args: []string{"nodes", "invoke", "dev-1", "fs.listDir", "--json"},
			method: "node.invoke", wantKey: true, wantScopes: []string{"operator.admin"},
			wantParams: `{"command":"fs.listDir","nodeId":"dev-1","timeoutMs":10000}`,
			payload:    map[string]any{"ok": true, "payload": map[string]any{}}, wantOut: "{\n  \"ok\": true,\n  \"payload\": {}\n}\n"},
		{name: "describe by name", args: []string{"nodes", "describe", "Build Box"}, method: "node.describe", wantParams: `{"nodeId":"dev-1"}`,
			wantScopes: read, payload: map[string]any{"nodeId": "dev-1"}},
		{name: "invoke by id prefix", args: []string{"nodes", "invoke", "--node", "dev-1-long", "--command", "system.which", "--json"},
			method: "node.invoke", wantKey: true, wantScopes: write,
			wantParams: `{"command":"system.which","nodeId":"dev-1-long-id","timeoutMs":10000}`,
			payload:    map[string]any{"ok": true}, wantOut: "{\n  \"ok\": true\n}\n"},
		{name: "unknown node passed on", args: []string{"nodes", "describe", "zzz"}, method: "node.describe", wantParams: `{"nodeId":"zzz"}`,
			wantScopes: read, payload: map[string]any{"nodeId": "zzz"}},
	})
}

// runNodeCases is runRPCCases for commands that first resolve the node:
// the fake answers node.list with nodeListPayload, and the case's method
// must be the second request.
func runNodeCases(t *testing.T, tests []rpcCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("node.list", nodeListPayload)
			srv.Reply(tc.method, tc.payload)
			stdout, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr)
			}
			if n := len(srv.Connects()); n != 1 {
				t.Errorf("%d connects, want 1", n)
			}
			conn, _ := srv.LastConnect()
			if got := strings.Join(conn.Params.Scopes, " "); got != strings.Join(tc.wantScopes, " ") {
				t.Errorf("scopes = %s, want %v", got, tc.wantScopes)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[0].Method != "node.list" {
				t.Fatalf("requests = %+v, want node.list then %s", reqs, tc.method)
			}
			var params map[string]any
			if err := json.Unmarshal(reqs[1].Params, &params); err != nil {
				t.Fatalf("params %s: %v", reqs[1].Params, err)
			}
			key, _ := params["idempotencyKey"].(string)
			delete(params, "idempotencyKey")
			if _, err := uuid.Parse(key); tc.wantKey && err != nil {
				t.Errorf("idempotencyKey = %q, want a UUID", key)
			} else if !tc.wantKey && key != "" {
				t.Errorf("unexpected idempotencyKey %q", key)
			}
			got, _ := json.Marshal(params)
			if reqs[1].Method != tc.method || string(got) != tc.wantParams {
				t.Errorf("sent %s %s\nwant %s %s", reqs[1].Method, got, tc.method, tc.wantParams)
			}
			if tc.wantOut != "" && stdout != tc.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.wantOut)
			}
		})
	}
}

func TestPickNode(t *testing.T) {
	nodes := []nodeEntry{{NodeID: "abcdef123", DisplayName: "Mac"}, {NodeID: "abcdef456", DisplayName: "mac"}, {NodeID: "mac", DisplayName: "Phone"}, {NodeID: "zz9999"}}
	tests := []struct{ ref, want, err string }{
		{"mac", "mac", ""},           // an exact id wins over names
		{"Phone", "mac", ""},         // display name
		{"PHONE", "mac", ""},         // any case
		{"zz999", "zz999", ""},       // prefixes need 6 characters
		{"zz9999", "zz9999", ""},     // exact id
		{"abcdef1", "abcdef123", ""}, // unique prefix
		{"abcdef", "", "matches 2 nodes"},
		{"nope", "nope", ""}, // passed on
	}
	for _, tc := range tests {
		got, err := pickNode(nodes, tc.ref)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("pickNode(%q) err %v, want %q", tc.ref, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("pickNode(%q) = %q, %v; want %q", tc.ref, got, err, tc.want)
		}
	}
}

func TestNodesUsage(t *testing.T) {
	runUsageCases(t, false, []usageCase{
		{"no subcommand", []string{"nodes"}, "missing subcommand (one of approve, canvas, describe, invoke, list, pending, reject, rename, status)"},
		{"unknown subcommand", []string{"nodes", "remove"}, `openclaw nodes has no command "remove"`},
		{"describe without node", []string{"nodes", "describe"}, "missing argument (usage: openclaw nodes describe NODE"},
		{"rename without name", []string{"nodes", "rename", "dev-1"}, "missing argument"},
		{"rename empty name", []string{"nodes", "rename", "dev-1", " "}, "the new name is empty"},
		{"invoke without command", []string{"nodes", "invoke", "dev-1"}, "missing argument"},
		{"invoke too many", []string{"nodes", "invoke", "--node", "dev-1", "a", "b"}, `unexpected argument "b"`},
		{"invoke bad params", []string{"nodes", "invoke", "dev-1", "system.which", "--params", "[1]"}, "--params must be a JSON object"},
		{"invoke system.run", []string{"nodes", "invoke", "dev-1", "system.run", "--params", `{"command":["id"]}`}, "system.run is refused: commands on a node run only through exec approvals"},
		{"invoke system.run.prepare", []string{"nodes", "invoke", "dev-1", "system.run.prepare"}, "system.run.prepare is refused"},
		{"approve without id", []string{"nodes", "approve"}, "missing argument"},
	})
}

// TestNodesGatewayErrors: the gateway's refusals are reported as they
// came, by code and detail code.
func TestNodesGatewayErrors(t *testing.T) {
	tests := []struct {
		name, method string
		args         []string
		err          *protocol.Error
		wantStderr   string
	}{
		{"approve unknown request", "node.pair.approve", []string{"nodes", "approve", "nope"},
			protocol.Errorf(protocol.CodeInvalidRequest, "unknown requestId: nope"),
			"nodes approve failed: INVALID_REQUEST: unknown requestId: nope\n"},
		{"invoke offline node", "node.invoke", []string{"nodes", "invoke", "dev-2", "system.which"},
			protocol.Errorf(protocol.CodeUnavailable, "node not connected").WithDetails(map[string]any{"code": protocol.DetailNotConnected}),
			"nodes invoke failed: UNAVAILABLE NOT_CONNECTED: node not connected\n"},
		{"describe unknown", "node.describe", []string{"nodes", "describe", "zzz"},
			protocol.Errorf(protocol.CodeInvalidRequest, "unknown nodeId: zzz").WithDetails(map[string]any{"code": protocol.DetailUnknownNode}),
			"nodes describe failed: INVALID_REQUEST UNKNOWN_NODE: unknown nodeId: zzz\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("node.list", nodeListPayload)
			srv.Fail(tc.method, tc.err)
			stdout, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			if err == nil || stdout != "" || stderr != tc.wantStderr {
				t.Errorf("err %v stdout %q stderr %q, want %q", err, stdout, stderr, tc.wantStderr)
			}
			stdout, _, _ = runCLI(t, append(tc.args, "--json", "--url", srv.URL(), "--token", testToken)...)
			var env struct {
				OK    bool
				Error errorBody
			}
			if err := json.Unmarshal([]byte(stdout), &env); err != nil || env.OK || env.Error.Code != tc.err.Code ||
				!strings.Contains(env.Error.Message, tc.err.Message) {
				t.Errorf("--json: %q (%v)", stdout, err)
			}
		})
	}
}

// TestNodesListLastConnected checks --last-connected keeps the nodes
// connected within the duration (lastConnectedAtMs, else connectedAtMs),
// in text and JSON, and refuses a bad duration before calling.
func TestNodesListLastConnected(t *testing.T) {
	now := time.Now()
	ago := func(d time.Duration) int64 { return now.Add(-d).UnixMilli() }
	answer := map[string]any{"ts": 1, "nodes": []any{
		map[string]any{"nodeId": "recent-now", "connected": true, "connectedAtMs": ago(time.Hour)},
		map[string]any{"nodeId": "recent-gone", "connected": false, "lastConnectedAtMs": ago(3 * time.Hour), "connectedAtMs": ago(100 * time.Hour)},
		map[string]any{"nodeId": "stale", "connected": false, "lastConnectedAtMs": ago(72 * time.Hour)},
		map[string]any{"nodeId": "never", "connected": false},
	}}
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
		wantErr string
	}{
		{name: "24h", args: []string{"--last-connected", "24h"}, want: []string{"recent-now", "recent-gone"}, notWant: []string{"stale", "never"}},
		{name: "7d", args: []string{"--last-connected", "7d"}, want: []string{"recent-now", "recent-gone", "stale"}, notWant: []string{"never"}},
		{name: "with connected", args: []string{"--last-connected", "24h", "--connected"}, want: []string{"recent-now"}, notWant: []string{"recent-gone", "stale"}},
		{name: "json", args: []string{"--last-connected=2h", "--json"}, want: []string{`"nodeId": "recent-now"`, `"ts": 1`}, notWant: []string{"recent-gone", "stale"}},
		{name: "json connected only", args: []string{"--connected", "--json"}, want: []string{"recent-now"}, notWant: []string{"recent-gone", "stale", "never"}},
		{name: "no filter lists all", args: []string{"--json"}, want: []string{"recent-now", "recent-gone", "stale", "never"}},
		{name: "bad duration", args: []string{"--last-connected", "yesterday"}, wantErr: `invalid --last-connected "yesterday"`},
		{name: "zero duration", args: []string{"--last-connected", "0"}, wantErr: "invalid --last-connected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("node.list", answer)
			out, stderr, err := runCLI(t, append(append([]string{"nodes", "list"}, tc.args...), "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tc.wantErr) || len(srv.Requests()) != 0 {
					t.Fatalf("err %v stderr %q requests %d; want %q before any call", err, stderr, len(srv.Requests()), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}
