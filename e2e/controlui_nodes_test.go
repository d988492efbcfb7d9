package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestControlUINodes drives the Control UI's Nodes & devices view in
// headless Chromium. With local auto-approval off, our node host
// (`openclaw node run`) first asks for its device to be paired, then for
// its commands: both requests show up in the view and are approved in the
// browser. The node is then listed connected with its commands, renamed
// in the browser (our CLI sees the new name), its device renamed in the
// browser as well (device.pair.rename), and system.which invoked from the
// browser shows its result; params that are not JSON are refused in the
// page. At last the view must fit a phone's width.
func TestControlUINodes(t *testing.T) {
	needOurGateway(t)
	bin := needOurBin(t)
	execPath := needChromium(t)
	t.Parallel()

	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: fmt.Sprintf(`{
  gateway: { mode: "local", nodes: { pairing: { autoApproveLocal: false } } },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
}
`, model.URL()+"/v1")})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)

	controlUILogin(t, b, g, ours)
	openView(t, b, "nodes")
	waitFor[bool](t, b, "this browser among the paired devices", `[...document.querySelectorAll('#devices li[data-device-id]')].some((li) =>
		li.querySelector('.mine')?.textContent === 'this browser' && li.dataset.connected === 'true' && !!li.querySelector('button.remove'))`)
	waitFor[bool](t, b, "no node yet", `!document.getElementById('nodes-empty').hidden && document.querySelectorAll('#nodes li').length === 0
		&& !document.getElementById('node-requests-empty').hidden`)

	const name = "go-e2e-ui-node"
	dir := t.TempDir()
	env, _, _ := isolatedEnv(t, dir)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	node := startProc(t, "our node host", env, dir, bin, "node", "run",
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", name)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("node host:\n%s", node.report())
		}
	})

	// Layer one: the node host's device, approved in the browser. The
	// request arrives through device.pair.requested; no reload.
	devReq := waitFor[string](t, b, "the node host's device pairing request", `(() => {
		const li = [...document.querySelectorAll('#device-requests li[data-request-id]')].find((li) =>
			li.querySelector('.meta').textContent.includes('node-host') && li.querySelector('.role .value').textContent === 'node');
		return li ? li.dataset.requestId : '';
	})()`)
	if n := eval[int](t, b, `Number(document.querySelector('#nav [data-view="nodes"]').textContent.match(/\((\d+)\)/)?.[1] || 0)`); n < 1 {
		t.Errorf("the navigation does not count the pending request")
	}
	b.do(t, "approve the device", chromedp.Click(fmt.Sprintf(`#device-requests li[data-request-id=%q] button.approve`, devReq)))
	waitFor[bool](t, b, "the node host among the paired devices", `!document.querySelector('#device-requests li[data-request-id=`+js(devReq)+`]')
		&& [...document.querySelectorAll('#devices li[data-device-id]')].some((li) => li.querySelector('.roles .value').textContent.includes('node'))`)

	// Layer two: the node's commands, approved in the browser.
	type pending struct{ RequestID, NodeID, Commands string }
	req := waitFor[pending](t, b, "the node pairing request", `(() => {
		const li = [...document.querySelectorAll('#node-requests li[data-request-id]')].find((li) => li.querySelector('.name').textContent === `+js(name)+`);
		return li ? { RequestID: li.dataset.requestId, NodeID: li.dataset.nodeId, Commands: li.querySelector('.commands .value').textContent } : null;
	})()`)
	if req.NodeID == "" || !strings.Contains(req.Commands, "system.which") {
		t.Fatalf("node pairing request %+v", req)
	}
	card := fmt.Sprintf(`#nodes li[data-node-id=%q]`, req.NodeID)
	waitFor[bool](t, b, "the node listed as awaiting approval", `(() => {
		const li = document.querySelector(`+js(card)+`);
		return !!li && li.dataset.connected === 'true' && li.dataset.approval === 'pending' && !li.querySelector('.waiting').hidden
			&& li.querySelector('.waiting .label').textContent.startsWith('Awaiting approval')
			&& li.querySelector('.waiting .value').textContent.includes('system.which');
	})()`)
	b.do(t, "approve the node", chromedp.Click(fmt.Sprintf(`#node-requests li[data-request-id=%q] button.approve`, req.RequestID)))
	waitFor[bool](t, b, "the node connected with its commands", `(() => {
		const li = document.querySelector(`+js(card)+`);
		if (!li || document.querySelector('#node-requests li[data-request-id=`+js(req.RequestID)+`]')) return false;
		return li.dataset.connected === 'true' && li.dataset.approval === 'approved'
			&& li.querySelector('.state').textContent === 'connected'
			&& li.querySelector('.commands .value').textContent.includes('system.which')
			&& !li.querySelector('.waiting .value').textContent.includes('system.which')
			&& [...li.querySelectorAll('select.invoke-command option')].some((o) => o.value === 'system.which')
			&& ![...li.querySelectorAll('select.invoke-command option')].some((o) => o.value === 'system.run')
			&& li.querySelector('button.remove').disabled;
	})()`)
	if got := nodeField(t, ours, req.NodeID, "approvalState"); got != "approved" {
		t.Fatalf("node.list approvalState after approval in the browser = %v", got)
	}

	// Rename in the browser; our CLI sees the new name.
	const renamed = "renamed in the ui"
	b.do(t, "open the rename field", chromedp.Click(card+` button.rename`))
	waitFor[bool](t, b, "the rename field with the current name", `(() => {
		const f = document.querySelector(`+js(card+` .rename-form`)+`);
		return !f.hidden && f.querySelector('.rename-input').value === `+js(name)+`;
	})()`)
	eval[bool](t, b, `(document.querySelector(`+js(card+` .rename-input`)+`).value = '', true)`)
	b.do(t, "rename",
		chromedp.SendKeys(card+` .rename-input`, renamed),
		chromedp.Click(card+` button.rename-save`),
	)
	waitFor[bool](t, b, "the new name", `(() => {
		const li = document.querySelector(`+js(card)+`);
		return li.querySelector('.name').textContent === `+js(renamed)+` && li.querySelector('.rename-form').hidden;
	})()`)
	if !poll(browserDeadline/4, func() bool { return nodeField(t, ours, req.NodeID, "displayName") == renamed }) {
		t.Fatalf("node.list does not show the new name %q", renamed)
	}
	r := ours.run(t, "nodes", "status")
	r.mustSucceed(t)
	if line := lineWith(r.Stdout, req.NodeID); !strings.Contains(line, renamed) {
		t.Fatalf("nodes status does not show the new name:\n%s", r)
	}

	// The node host's device is renamed in the browser too
	// (device.pair.rename); our CLI sees the label.
	devCard := waitFor[string](t, b, "the node host's device card", `(() => {
		const li = [...document.querySelectorAll('#devices li[data-device-id]')].find((li) => li.querySelector('.roles .value').textContent === 'node');
		return li ? '#devices li[data-device-id="' + li.dataset.deviceId + '"]' : '';
	})()`)
	deviceID := eval[string](t, b, `document.querySelector(`+js(devCard)+`).dataset.deviceId`)
	b.do(t, "open the device's rename field", chromedp.Click(devCard+` button.rename`))
	waitFor[bool](t, b, "the device's rename field", `!document.querySelector(`+js(devCard+` .rename-form`)+`).hidden`)
	eval[bool](t, b, `(document.querySelector(`+js(devCard+` .rename-input`)+`).value = '', true)`)
	b.do(t, "rename the device",
		chromedp.SendKeys(devCard+` .rename-input`, "build box"),
		chromedp.Click(devCard+` button.rename-save`),
	)
	waitFor[bool](t, b, "the device's new name", `(() => {
		const li = document.querySelector(`+js(devCard)+`);
		return !!li && li.querySelector('.name').textContent === 'build box' && li.querySelector('.rename-form').hidden;
	})()`)
	r = ours.run(t, "gateway", "call", "device.pair.list", "--json")
	r.mustSucceed(t)
	m, _ := decodeJSON(t, r).(map[string]any)
	if i := slices.IndexFunc(asList(m["paired"]), func(d map[string]any) bool { return d["deviceId"] == deviceID }); i < 0 || asList(m["paired"])[i]["operatorLabel"] != "build box" {
		t.Fatalf("device.pair.list after the rename in the browser:\n%s", r)
	}

	// Params that are not JSON are refused in the page.
	setInvoke(t, b, card, "system.which", `{"bins": [`)
	b.do(t, "invoke with bad params", chromedp.Click(card+` button.invoke`))
	waitFor[bool](t, b, "the params error", `(() => {
		const out = document.querySelector(`+js(card+` .invoke-result`)+`);
		return !out.hidden && out.dataset.status === 'error' && out.textContent.includes('not JSON');
	})()`)

	// system.which runs on the node; the page shows the path it found.
	setInvoke(t, b, card, "system.which", `{"bins": ["sh"]}`)
	b.do(t, "invoke system.which", chromedp.Click(card+` button.invoke`))
	out := waitFor[string](t, b, "the invoke result", `(() => {
		const out = document.querySelector(`+js(card+` .invoke-result`)+`);
		return !out.hidden && (out.dataset.status === 'ok' || out.dataset.status === 'error') ? out.dataset.status + ' ' + out.textContent : '';
	})()`)
	if !strings.HasPrefix(out, "ok ") || !strings.Contains(out, `"sh"`) || !strings.Contains(out, `/sh"`) {
		t.Fatalf("invoke result %q", out)
	}
	// The result, and the params, outlive a reload of the lists.
	b.do(t, "refresh", chromedp.Click(`#nodes-refresh`))
	waitFor[bool](t, b, "the result after a refresh", `(() => {
		const li = document.querySelector(`+js(card)+`);
		return li.querySelector('.invoke-result').dataset.status === 'ok' && li.querySelector('.invoke-params').value === '{"bins": ["sh"]}';
	})()`)
	if node.exited() {
		t.Fatalf("node host exited")
	}

	// On a phone-sized screen the view does not scroll sideways.
	b.do(t, "phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	waitFor[bool](t, b, "the view fitting the phone's width", `innerWidth === 390 && document.documentElement.scrollWidth <= innerWidth
		&& document.querySelector(`+js(card)+`).getBoundingClientRect().right <= innerWidth`)
	if p := os.Getenv("E2E_NODES_SHOT"); p != "" {
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		if err == nil {
			os.WriteFile(p, png, 0o600)
		}
	}
}

// setInvoke picks a command in a node card's invoke form and fills its
// params.
func setInvoke(t *testing.T, b *browser, card, command, params string) {
	t.Helper()
	if !eval[bool](t, b, `(() => {
		const li = document.querySelector(`+js(card)+`);
		const sel = li.querySelector('select.invoke-command');
		sel.value = `+js(command)+`;
		li.querySelector('.invoke-params').value = `+js(params)+`;
		return sel.value === `+js(command)+`;
	})()`) {
		t.Fatalf("cannot pick %s in the invoke form", command)
	}
}

// nodeField returns one field of a node in node.list, asked with our CLI.
func nodeField(t *testing.T, ours *client, nodeID, field string) any {
	t.Helper()
	r := ours.run(t, "gateway", "call", "node.list", "--json")
	r.mustSucceed(t)
	m, _ := decodeJSON(t, r).(map[string]any)
	i := slices.IndexFunc(asList(m["nodes"]), func(n map[string]any) bool { return n["nodeId"] == nodeID })
	if i < 0 {
		return nil
	}
	return asList(m["nodes"])[i][field]
}
