package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestControlUIHTTP checks what the real gateway serves at "/": the
// Control UI page with a strict CSP for a browser GET, while /webchat/
// stays WebChat and other paths stay 404.
func TestControlUIHTTP(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	base := fmt.Sprintf("http://127.0.0.1:%d", g.Port)
	get := func(path string) (int, string, http.Header) {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b), res.Header
	}
	code, body, h := get("/")
	if code != 200 || !strings.Contains(body, `src="ui/views.js"`) || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / = %d %q", code, body)
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self' ws://127.0.0.1:") {
		t.Errorf("CSP %q", csp)
	}
	if code, body, _ := get("/webchat/"); code != 200 || !strings.Contains(body, "WebChat") {
		t.Errorf("GET /webchat/ = %d", code)
	}
	if code, _, _ := get("/no-such-page"); code != 404 {
		t.Errorf("GET /no-such-page = %d, want 404", code)
	}
	if code, _, _ := get("/ui/views.js"); code != 200 {
		t.Errorf("GET /ui/views.js = %d", code)
	}

	// openclaw dashboard prints the local address, never the token.
	ours := ourClient(t, g)
	r := ours.run(t, "dashboard")
	r.mustSucceed(t)
	if got := strings.TrimSpace(r.Stdout); got != base+"/" {
		t.Errorf("openclaw dashboard printed %q, want %q", got, base+"/")
	}
	r = ours.run(t, "dashboard", "--url", "wss://gw.example.com:8443/?token=secret")
	r.mustSucceed(t)
	if got := strings.TrimSpace(r.Stdout); got != "https://gw.example.com:8443/" {
		t.Errorf("openclaw dashboard --url printed %q", got)
	}
}

// TestControlUIInBrowser drives the Control UI in headless Chromium: log
// in with the token (pairing approved by our CLI), chat with a streamed
// reply, move an extension tool to core, and run a cron job.
func TestControlUIInBrowser(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)

	controlUILogin(t, b, g, ours)
	if href := eval[string](t, b, `location.href`); strings.Contains(href, g.Token) {
		t.Errorf("token in the URL %q", href)
	}
	if got := eval[string](t, b, `sessionStorage.getItem('openclaw.control.token')`); got != g.Token {
		t.Errorf("session storage holds %q, want the token", got)
	}

	// Chat: a message gets the fake model's streamed echo.
	b.do(t, "send a message",
		chromedp.SendKeys(chromedp.ID("input"), "hello control ui"),
		chromedp.Click(chromedp.ID("send")),
	)
	waitFor[bool](t, b, "the reply", `(() => {
		const li = [...document.querySelectorAll('#messages li.msg.assistant')].pop();
		return !!li && li.dataset.done === 'true' && li.querySelector('.body').textContent.includes('hello control ui');
	})()`)

	// /new starts over: the old exchange leaves the screen and the rest of
	// the message opens the new conversation.
	b.do(t, "start over",
		chromedp.SendKeys(chromedp.ID("input"), "/new second topic"),
		chromedp.Click(chromedp.ID("send")),
	)
	waitFor[bool](t, b, "the new conversation", `(() => {
		const li = [...document.querySelectorAll('#messages li.msg.assistant')];
		return li.length === 1 && li[0].dataset.done === 'true' && li[0].querySelector('.body').textContent.includes('second topic')
			&& !document.getElementById('messages').textContent.includes('hello control ui');
	})()`)

	// Tools: move one extension tool to core.
	b.do(t, "open Tools", chromedp.Click(`#nav [data-view="tools"]`))
	name := waitFor[string](t, b, "an extension tool", `(() => {
		const tr = [...document.querySelectorAll('#tools tr')].find((tr) => tr.querySelector('select.tier')?.value === 'extension'
			&& tr.children[1].textContent !== 'mcp');
		return tr ? tr.dataset.name : '';
	})()`)
	eval[bool](t, b, `(() => {
		const sel = document.querySelector('#tools tr[data-name=`+js(name)+`] select.tier');
		sel.value = 'core';
		sel.dispatchEvent(new Event('change'));
		return true;
	})()`)
	if !poll(browserDeadline/4, func() bool {
		r := ours.run(t, "gateway", "call", "tools.list", "--json")
		var out struct {
			Tools []struct{ Name, Tier string } `json:"tools"`
		}
		if r.Err != nil || json.Unmarshal([]byte(r.Stdout), &out) != nil {
			return false
		}
		for _, tl := range out.Tools {
			if tl.Name == name {
				return tl.Tier == "core"
			}
		}
		return false
	}) {
		t.Fatalf("tool %s did not become core\npage: %s", name, b.pageState())
	}

	// Cron: a job added by our CLI is listed; Run now makes a history entry.
	id := addedID(t, ours.run(t, "cron", "add", "--name", "ui-job", "--every", "1h", "--message", "cron from the ui", "--json"))
	b.do(t, "open Cron", chromedp.Click(`#nav [data-view="cron"]`))
	waitFor[bool](t, b, "the job", `!!document.querySelector('#cron tr[data-id=`+js(id)+`]')`)
	b.do(t, "run now", chromedp.Click(`#cron tr[data-id=`+js(id)+`] button.run`))
	if !poll(browserDeadline/4, func() bool {
		return eval[bool](t, b, `(() => {
			const n = document.querySelectorAll('#cron-runs .run-entry').length;
			if (n === 0) document.querySelector('#cron tr[data-id=`+js(id)+`] button.history').click();
			return n > 0;
		})()`)
	}) {
		t.Fatalf("no history entry\npage: %s", b.pageState())
	}
}

// TestControlUIApproval: a guarded exec call waits in Approvals; Allow
// once lets it run and the chat shows the tool call with its result.
func TestControlUIApproval(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "e1", Name: "exec", Arguments: `{"command":"echo ui-approved-output"}`}}},
		fakemodel.Reply{Text: "done after approval"},
	)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), `{ guard: { rules: [{ tool: "exec", action: "require_approval" }] } }`)})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)

	controlUILogin(t, b, g, ours)

	b.do(t, "send a message",
		chromedp.SendKeys(chromedp.ID("input"), "run echo please"),
		chromedp.Click(chromedp.ID("send")),
		chromedp.Click(`#nav [data-view="approvals"]`),
	)
	waitFor[bool](t, b, "the pending approval", `[...document.querySelectorAll('#approvals li.card')].some((li) =>
		li.querySelector('.tool-name').textContent === 'exec' && li.querySelector('.args').textContent.includes('ui-approved-output'))`)
	b.do(t, "allow once",
		chromedp.Click(`#approvals li.card button.decide-allow-once`),
		chromedp.Click(`#nav [data-view="chat"]`),
	)
	waitFor[bool](t, b, "the tool result and the reply", `(() => {
		const li = [...document.querySelectorAll('#messages li.msg.assistant')].pop();
		if (!li || li.dataset.done !== 'true' || !li.querySelector('.body').textContent.includes('done after approval')) return false;
		const tool = li.querySelector('.tools li.tool');
		return !!tool && tool.querySelector('strong').textContent === 'exec' && tool.querySelector('.result').textContent.includes('ui-approved-output')
			&& /^\d+(\.\d)? m?s$/.test(tool.querySelector('.duration').textContent);
	})()`)
	waitFor[bool](t, b, "the empty approvals list", `document.querySelectorAll('#approvals li.card').length === 0`)

	// After a reload the history shows the call again, with its arguments
	// and result.
	b.do(t, "reload", chromedp.Reload())
	waitFor[bool](t, b, "the tool call in the history", `document.body.dataset.state === 'connected' && (() => {
		const tool = document.querySelector('#messages li.msg.assistant .tools li.tool');
		return !!tool && tool.querySelector('strong').textContent === 'exec'
			&& tool.querySelector('.args').textContent.includes('echo ui-approved-output')
			&& tool.querySelector('.result').textContent.includes('ui-approved-output') && tool.dataset.phase === 'result';
	})()`)

	// The audit log shows the call; its filters narrow it.
	openView(t, b, "approvals")
	waitFor[bool](t, b, "the audit entry", `[...document.querySelectorAll('#audit tr.audit-entry')].some((tr) =>
		tr.children[1].textContent === 'exec' && tr.dataset.status === 'succeeded')`)
	b.do(t, "filter blocked calls", chromedp.SetValue(chromedp.ID("audit-status"), "blocked"), chromedp.Click(`#audit-filters button[type="submit"]`))
	waitFor[bool](t, b, "no blocked entries", `document.querySelectorAll('#audit tr.audit-entry').length === 0`)
	b.do(t, "filter by tool", chromedp.SetValue(chromedp.ID("audit-status"), ""), chromedp.SendKeys(chromedp.ID("audit-tool"), "exec"),
		chromedp.Click(`#audit-filters button[type="submit"]`))
	waitFor[bool](t, b, "the exec entry again", `document.querySelectorAll('#audit tr.audit-entry').length === 1`)

	// The same list over the CLI, in OpenClaw's shape.
	r := ours.run(t, "gateway", "call", "audit.list", "--params", `{"kind":"tool_action","status":"succeeded"}`, "--json")
	r.mustSucceed(t)
	var out struct {
		Events []struct {
			Kind, Status, ToolName, AgentID, Redaction string
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || len(out.Events) != 1 {
		t.Fatalf("audit.list: %v %s", err, r.Stdout)
	}
	if e := out.Events[0]; e.Kind != "tool_action" || e.ToolName != "exec" || e.AgentID != "main" || e.Redaction != "metadata_only" {
		t.Errorf("audit event %+v", e)
	}
	if r := ours.run(t, "gateway", "call", "audit.list", "--params", `{"status":"exploded"}`); r.Err == nil {
		t.Errorf("audit.list accepted an unknown status: %s", r.Stdout)
	}
}

// TestControlUIBasePath: with gateway.controlUi.basePath the page, its
// files and the bus live under the prefix (as behind a reverse proxy that
// forwards one path), the root no longer serves the UI, and the page logs
// in and chats from there.
func TestControlUIBasePath(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	model := fakemodel.New(t)
	cfg := strings.Replace(agentConfig(model.URL()), `gateway: { mode: "local" }`, `gateway: { mode: "local", controlUi: { basePath: "/oc" } }`, 1)
	g := startGateway(t, gatewayOpts{Config: cfg})
	ours := ourClient(t, g)
	base := fmt.Sprintf("http://127.0.0.1:%d", g.Port)
	for path, want := range map[string]int{"/oc/": 200, "/oc/ui/views.js": 200, "/oc/webchat/app.js": 200, "/ui/views.js": 404} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, res.StatusCode, want)
		}
	}
	if res, err := http.Get(base + "/"); err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("GET / should not be the UI under a basePath: %v", err)
	}
	r := ours.run(t, "dashboard")
	r.mustSucceed(t)
	if got := strings.TrimSpace(r.Stdout); got != base+"/oc/" {
		t.Errorf("openclaw dashboard printed %q, want %q", got, base+"/oc/")
	}

	b := startBrowser(t, execPath)
	screenshotOnFailure(t, b)
	controlUILoginAt(t, b, g, ours, "/oc/")
	b.do(t, "send a message",
		chromedp.SendKeys(chromedp.ID("input"), "hello under a base path"),
		chromedp.Click(chromedp.ID("send")),
	)
	waitFor[bool](t, b, "the reply", `(() => {
		const li = [...document.querySelectorAll('#messages li.msg.assistant')].pop();
		return !!li && li.dataset.done === 'true' && li.querySelector('.body').textContent.includes('hello under a base path');
	})()`)
}

// controlUILogin opens the Control UI, logs in with the gateway token,
// approves the browser's device pairing with our CLI, and waits until the
// page is connected with its navigation shown.
func controlUILogin(t *testing.T, b *browser, g *gateway, ours *client) {
	t.Helper()
	controlUILoginAt(t, b, g, ours, "/")
}

// controlUILoginAt is controlUILogin for a page at path (a basePath).
func controlUILoginAt(t *testing.T, b *browser, g *gateway, ours *client, path string) {
	t.Helper()
	b.do(t, "log in",
		chromedp.Navigate(fmt.Sprintf("http://127.0.0.1:%d%s", g.Port, path)),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), g.Token),
		chromedp.Click(chromedp.ID("login-button")),
	)
	requestID := waitFor[string](t, b, "the pairing request", `document.getElementById('notice').dataset.code === 'PAIRING_REQUIRED'
		&& document.getElementById('notice').textContent.includes('openclaw devices approve')
		&& document.getElementById('notice').dataset.requestId`)
	ours.run(t, "devices", "approve", requestID).mustSucceed(t)
	waitFor[bool](t, b, "the connection after approval", `document.body.dataset.state === 'connected'
		&& !document.getElementById('nav').hidden && !document.getElementById('input').disabled`)
}

// openView clicks a view's button in the navigation and waits until the
// view is on screen.
func openView(t *testing.T, b *browser, name string) {
	t.Helper()
	b.do(t, "open "+name, chromedp.Click(`#nav [data-view="`+name+`"]`))
	waitFor[bool](t, b, "the "+name+" view", `document.body.dataset.view === `+js(name)+` && !document.getElementById(`+js("view-"+name)+`).hidden`)
}

// screenshotOnFailure saves, when the test fails, a screenshot of the tab
// as it was and then of every view, under t.TempDir().
func screenshotOnFailure(t *testing.T, b *browser) {
	dir := t.TempDir()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		shot := func(name string) {
			png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Logf("screenshot %s: %v", name, err)
				return
			}
			p := filepath.Join(dir, "controlui-"+name+".png")
			if err := os.WriteFile(p, png, 0o600); err == nil {
				t.Logf("screenshot: %s", p)
			}
		}
		shot("failure")
		names, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#nav [data-view]')].map((b) => b.dataset.view)`))
		if err != nil {
			return
		}
		for _, name := range names {
			if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(document.querySelector('#nav [data-view=`+js(name)+`]').click(), true)`)); err == nil {
				shot(name)
			}
		}
	})
}

// TestControlUIToolsOffered: the Tools view shows which tools a caller is
// offered and which layer decided, for the chat's session by default and
// for another provider when asked, and Explain gives the reason.
func TestControlUIToolsOffered(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), `{ byProvider: { "fake/echo-1": { deny: ["sessions_spawn"] } } }`)})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)
	controlUILogin(t, b, g, ours)

	openView(t, b, "tools")
	offered := func(tool string) string {
		return `document.querySelector('#tools tr[data-name=` + js(tool) + `]')?.dataset.offered`
	}
	waitFor[bool](t, b, "the offered column", offered("read")+` === 'true' && `+offered("sessions_spawn")+` === 'false'
		&& `+offered("sessions_send")+` === 'false'
		&& document.querySelector('#tools tr[data-name="sessions_spawn"] .offered').textContent.includes('tools.byProvider[fake/echo-1].deny')
		&& document.getElementById('tools-summary').textContent.includes('agent main with fake/echo-1')`)

	// Another provider is not under that byProvider rule; the agent's own
	// deny still holds.
	b.do(t, "ask for another provider",
		chromedp.SendKeys(chromedp.ID("tools-provider"), "other/model-x"),
		chromedp.Click(`#tools-caller button[type="submit"]`),
	)
	waitFor[bool](t, b, "the other provider's view", offered("sessions_spawn")+` === 'true' && `+offered("sessions_send")+` === 'false'
		&& document.getElementById('tools-summary').textContent.includes('other/model-x')`)

	b.do(t, "explain sessions_send", chromedp.Click(`#tools tr[data-name="sessions_send"] button.explain`))
	waitFor[bool](t, b, "the reason", `(() => {
		const v = document.querySelector('#tool-explain[data-tool="sessions_send"] .verdict');
		return !!v && v.dataset.allowed === 'false' && v.textContent.includes('agents') && document.querySelectorAll('#tool-explain .layers li').length > 0;
	})()`)
}
