package nodes

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// dialingGateway is a local Gateway that can reach another gateway, whose
// node.* answers come from a script.
type dialingGateway struct {
	Gateway
	dials []string
	calls []string
}

func (d *dialingGateway) DialGateway(_ context.Context, url, token string) (tools.GatewayConn, error) {
	d.dials = append(d.dials, url+" "+token)
	return scriptedConn{d}, nil
}

type scriptedConn struct{ d *dialingGateway }

func (c scriptedConn) Call(_ context.Context, method string, params, out any) error {
	b, _ := json.Marshal(params)
	c.d.calls = append(c.d.calls, method+" "+string(b))
	var answer string
	switch method {
	case "node.list":
		answer = `{"nodes":[{"nodeId":"far-1","displayName":"Far Mac","platform":"macos","connected":true,"paired":true,"caps":[],"commands":["system.notify"]}]}`
	case "node.invoke":
		answer = `{"ok":true,"nodeId":"far-1","command":"system.notify","payload":null,"payloadJSON":"{\"ok\":true}"}`
	case "node.pair.list":
		answer = `{"pending":[],"paired":[]}`
	default:
		answer = `{}`
	}
	return json.Unmarshal([]byte(answer), out)
}

func (scriptedConn) Close() error { return nil }

func TestNodesOnAnotherGateway(t *testing.T) {
	local := &fakeGateway{nodes: []Node{{NodeID: "near-1", Connected: true}}}
	call := func(t *testing.T, d *dialingGateway, args string) (tools.Result, error) {
		t.Helper()
		return Tool(d, nil, nil).Call(context.Background(), tools.Call{Name: "nodes", Args: json.RawMessage(args)})
	}
	t.Run("status lists the other gateway's nodes", func(t *testing.T) {
		d := &dialingGateway{Gateway: local}
		res, err := call(t, d, `{"action":"status","gatewayUrl":"ws://10.0.0.5:18789","gatewayToken":"theirs","timeoutMs":3000}`)
		if err != nil || !strings.Contains(res.Text, `"nodeId":"far-1"`) || strings.Contains(res.Text, "near-1") {
			t.Fatalf("%+v %v", res, err)
		}
		if len(d.dials) != 1 || d.dials[0] != "ws://10.0.0.5:18789 theirs" {
			t.Fatalf("dials %v", d.dials)
		}
	})
	t.Run("notify goes through the other gateway's node.invoke", func(t *testing.T) {
		d := &dialingGateway{Gateway: local}
		res, err := call(t, d, `{"action":"notify","title":"hi","gatewayUrl":"ws://10.0.0.5:18789","gatewayToken":"theirs"}`)
		if err != nil || !strings.Contains(res.Text, `{"ok":true}`) {
			t.Fatalf("%+v %v", res, err)
		}
		last := d.calls[len(d.calls)-1]
		if !strings.HasPrefix(last, `node.invoke {"command":"system.notify","idempotencyKey":"`) || !strings.Contains(last, `"nodeId":"far-1"`) {
			t.Fatalf("calls %v", d.calls)
		}
	})
	t.Run("pending", func(t *testing.T) {
		d := &dialingGateway{Gateway: local}
		if _, err := call(t, d, `{"action":"pending","gatewayUrl":"ws://h:1","gatewayToken":"t"}`); err != nil || d.calls[0] != "node.pair.list {}" {
			t.Fatalf("%v %v", err, d.calls)
		}
	})
	// Attacks by a prompt-injected model.
	for name, args := range map[string]string{
		"override without its own token": `{"action":"status","gatewayUrl":"ws://attacker.example:18789"}`,
		"a URL that is not a gateway":    `{"action":"status","gatewayUrl":"http://169.254.169.254/","gatewayToken":"x"}`,
		"run on another gateway's node":  `{"action":"run","command":["id"],"gatewayUrl":"ws://h:1","gatewayToken":"t"}`,
		"a token with no override":       `{"action":"status","gatewayToken":"t"}`,
		"credentials hidden in the URL":  `{"action":"status","gatewayUrl":"ws://user:pass@h:1","gatewayToken":"t"}`,
		"a negative timeout":             `{"action":"status","timeoutMs":-5}`,
	} {
		t.Run(name, func(t *testing.T) {
			d := &dialingGateway{Gateway: local}
			if res, err := call(t, d, args); err == nil {
				t.Fatalf("accepted: %+v", res)
			}
			if len(d.dials) != 0 {
				t.Fatalf("dialed %v", d.dials)
			}
		})
	}
	t.Run("no dialer: refused, not run here", func(t *testing.T) {
		res, err := Tool(local, nil, nil).Call(context.Background(), tools.Call{Name: "nodes", Args: json.RawMessage(`{"action":"status","gatewayUrl":"ws://h:1","gatewayToken":"t"}`)})
		if err == nil || !strings.Contains(err.Error(), "cannot reach other gateways") {
			t.Fatalf("%+v %v", res, err)
		}
	})
}
