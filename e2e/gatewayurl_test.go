package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestToolsOnAnotherGateway: the gateway-backed tools of one gateway act
// on a second gateway named by gatewayUrl with that gateway's token: a job
// added through gateway A's automations tool is on gateway B; the nodes
// tool lists B's nodes. An override without its own token never connects,
// and a wrong token is refused by B without the token appearing in the
// answer.
func TestToolsOnAnotherGateway(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	a := startGateway(t, gatewayOpts{})
	b := startGateway(t, gatewayOpts{})
	ca, cb := ourClient(t, a), ourClient(t, b)

	job := `{"action":"add","gatewayUrl":"` + b.URL + `","gatewayToken":"` + b.Token + `","timeoutMs":20000,` +
		`"job":{"name":"from-a","schedule":{"kind":"every","everyMs":3600000},"sessionTarget":"main","payload":{"kind":"systemEvent","text":"hello from a"}}}`
	if ok, out := invokeTool(t, ca, "automations", job); !ok {
		t.Fatalf("add on b through a: %s", out)
	}
	jobs := func(c *client) string {
		r := c.run(t, "gateway", "call", "cron.list", "--params", `{"includeDisabled":true}`)
		r.mustSucceed(t)
		return r.Stdout
	}
	if got := jobs(cb); !strings.Contains(got, `"from-a"`) {
		t.Fatalf("b's jobs lack the job added through a: %s", got)
	}
	if got := jobs(ca); strings.Contains(got, `"from-a"`) {
		t.Fatalf("the job landed on a too: %s", got)
	}

	ok, out := invokeTool(t, ca, "nodes", `{"action":"status","gatewayUrl":"`+b.URL+`","gatewayToken":"`+b.Token+`"}`)
	var st struct {
		Nodes []any `json:"nodes"`
	}
	if !ok || json.Unmarshal([]byte(out), &st) != nil || st.Nodes == nil {
		t.Fatalf("nodes status on b: ok=%v %s", ok, out)
	}

	// An override without its own token is refused before connecting: a's
	// token is never lent to another address.
	if ok, out := invokeTool(t, ca, "automations", `{"action":"list","gatewayUrl":"`+b.URL+`"}`); ok || !strings.Contains(out, "needs gatewayToken") {
		t.Fatalf("override without a token: ok=%v %s", ok, out)
	}
	// A wrong token: b refuses, and the answer does not repeat it.
	const wrong = "not-b-token-5f1c"
	ok, out = invokeTool(t, ca, "automations", `{"action":"list","gatewayUrl":"`+b.URL+`","gatewayToken":"`+wrong+`"}`)
	if ok || !strings.Contains(strings.ToLower(out), "token") || strings.Contains(out, wrong) || strings.Contains(out, a.Token) {
		t.Fatalf("wrong token: ok=%v %s", ok, out)
	}
}
