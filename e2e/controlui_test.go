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
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

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
	host := fmt.Sprintf("127.0.0.1:%d", g.Port)
	checkStrictCSP(t, "/", h.Get("Content-Security-Policy"), host)
	for _, path := range []string{"/ui/views.js", "/ui/app.css", "/webchat/", "/webchat/app.js", "/ui/no-such.js"} {
		_, _, h := get(path)
		checkStrictCSP(t, path, h.Get("Content-Security-Policy"), host)
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
	r := ours.run(t, "dashboard", "--no-open")
	r.mustSucceed(t)
	if got := strings.TrimSpace(r.Stdout); got != base+"/" {
		t.Errorf("openclaw dashboard printed %q, want %q", got, base+"/")
	}
	r = ours.run(t, "dashboard", "--no-open", "--url", "wss://gw.example.com:8443/?token=secret")
	r.mustSucceed(t)
	if got := strings.TrimSpace(r.Stdout); got != "https://gw.example.com:8443/" {
		t.Errorf("openclaw dashboard --url printed %q", got)
	}
}

// checkStrictCSP fails unless csp forbids inline script and every other
// origin: each directive allows only 'none', 'self', data: images or a
// WebSocket back to host, and the directives that matter are present.
func checkStrictCSP(t *testing.T, path, csp, host string) {
	t.Helper()
	dirs := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			continue
		}
		if _, dup := dirs[f[0]]; dup {
			t.Errorf("GET %s: CSP repeats %s: %q", path, f[0], csp)
		}
		dirs[f[0]] = f[1:]
	}
	for name, want := range map[string]string{"default-src": "'none'", "script-src": "'self'", "style-src": "'self'",
		"base-uri": "'none'", "form-action": "'none'", "frame-ancestors": "'none'"} {
		if got := strings.Join(dirs[name], " "); got != want {
			t.Errorf("GET %s: CSP %s is %q, want %q (whole policy %q)", path, name, got, want, csp)
		}
	}
	for name, sources := range dirs {
		for _, src := range sources {
			ok := src == "'none'" || src == "'self'" ||
				(name == "img-src" && src == "data:") ||
				(name == "connect-src" && (src == "ws://"+host || src == "wss://"+host))
			if !ok {
				t.Errorf("GET %s: CSP %s allows %s (whole policy %q)", path, name, src, csp)
			}
		}
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
	r := ours.run(t, "dashboard", "--no-open")
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

// uiMarkdownReply is the fake model's Markdown answer: elements the page
// must render, and three attacks it must show as inert text.
const uiMarkdownReply = "## Build result\n\n" +
	"Here is **bold**, *emphasis* and a [safe link](https://example.com/docs).\n\n" +
	"- first item\n- second item\n\n" +
	"```go\nfmt.Println(\"hello from a code block\")\n```\n\n" +
	"<script>window.__xss = 'script'</script>\n\n" +
	"<img src=x onerror=\"window.__xss = 'img'\">\n\n" +
	"[click me](javascript:window.__xss='link')\n"

// uiViewsModel answers the view test's messages by what they ask for: the
// Markdown reply, a tool call, a guarded exec call, a reply that never
// comes (to be aborted), and an echo otherwise.
func uiViewsModel(t *testing.T) *fakemodel.Server {
	model := fakemodel.New(t)
	model.Respond(func(rec fakemodel.Recorded) (fakemodel.Reply, bool) {
		if len(rec.Messages) == 0 {
			return fakemodel.Reply{}, false
		}
		last := rec.Messages[len(rec.Messages)-1]
		answered := last.ToolCallID
		for _, b := range last.Blocks {
			if b.Type == "tool_result" {
				answered = b.ToolUseID
			}
		}
		switch answered {
		case "t1":
			return fakemodel.Reply{Text: "The status tool answered."}, true
		case "e1":
			return fakemodel.Reply{Text: "done after approval"}, true
		}
		if last.Role != "user" {
			return fakemodel.Reply{}, false
		}
		switch text := last.Text; {
		case strings.Contains(text, "markdown please"):
			return fakemodel.Reply{Text: uiMarkdownReply, ChunkDelay: 5 * time.Millisecond}, true
		case strings.Contains(text, "tool please"):
			return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "t1", Name: "session_status", Arguments: `{}`}}}, true
		case strings.Contains(text, "exec please"):
			return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "e1", Name: "exec", Arguments: `{"command":"echo 'ui-views-approved <img src=x onerror=window.__xss=1>'"}`}}}, true
		case strings.Contains(text, "slow please"):
			return fakemodel.Reply{Text: "never sent", Delay: 10 * time.Minute}, true // ends when the run is aborted
		}
		return fakemodel.Reply{}, false
	})
	return model
}

// uiShots is where TestControlUIViews saves its screenshots:
// OPENCLAW_UI_SHOTS when set (to keep them), else the test's temp dir.
func uiShots(t *testing.T) string {
	dir := os.Getenv("OPENCLAW_UI_SHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("OPENCLAW_UI_SHOTS: %v", err)
	}
	return dir
}

// TestControlUIViews walks every view of the Control UI in headless
// Chromium against the real gateway and a fake model, asserting by DOM
// queries what a user must see, and saves a screenshot of each view in
// the light and the dark theme: the empty chat, a Markdown reply (with
// attacks in it that must stay inert), a tool card that opens and closes,
// an approval asked inline and allowed, Esc stopping a running reply, the
// keyboard shortcuts, every other view, and a phone-sized viewport where
// a new message scrolls into view.
func TestControlUIViews(t *testing.T) {
	needOurGateway(t)
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("the Control UI view test needs Chromium at %s: %v", chromiumPath, err)
	}
	execPath := needChromium(t)
	t.Parallel()

	dir := uiShots(t)
	model := uiViewsModel(t)
	cfg := fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  tools: { guard: { rules: [{ tool: "exec", action: "require_approval" }] } },
}
`, model.URL()+"/v1")
	g := startGateway(t, gatewayOpts{Config: cfg})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)
	b.do(t, "a desktop viewport", chromedp.EmulateViewport(1280, 860))

	n := 0
	shot := func(name string) {
		t.Helper()
		n++
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		p := filepath.Join(dir, fmt.Sprintf("controlui-%02d-%s.png", n, name))
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", p)
	}
	// setTheme clicks the toggle until the page shows theme.
	setTheme := func(theme string) {
		t.Helper()
		// Until the user picks, the system's theme shows and nothing is
		// set on <html>; two clicks at most make the pick explicit.
		for i := 0; i < 2 && eval[string](t, b, `document.documentElement.dataset.theme ?? ''`) != theme; i++ {
			b.do(t, "switch the theme", chromedp.Click(chromedp.ID("theme")))
		}
		waitFor[bool](t, b, theme+" theme", `document.getElementById('theme').dataset.current === `+js(theme)+`
			&& document.documentElement.dataset.theme === `+js(theme))
	}
	// bodyLuma is the relative brightness (0-255) of the page background.
	bodyLuma := func() float64 {
		t.Helper()
		return eval[float64](t, b, `(() => {
			const m = getComputedStyle(document.body).backgroundColor.match(/[\d.]+/g).map(Number);
			return 0.299 * m[0] + 0.587 * m[1] + 0.114 * m[2];
		})()`)
	}
	lastAssistant := `[...document.querySelectorAll('#messages li.msg.assistant')].pop()`
	send := func(text string) {
		t.Helper()
		b.do(t, "send "+text,
			chromedp.SendKeys(chromedp.ID("input"), text),
			chromedp.Click(chromedp.ID("send")),
		)
	}

	// The login form is what a new visitor sees.
	b.do(t, "open the page", chromedp.Navigate(fmt.Sprintf("http://127.0.0.1:%d/", g.Port)), chromedp.WaitVisible(chromedp.ID("token")))
	shot("login")
	controlUILogin(t, b, g, ours)

	// The empty conversation says what to do next, in both themes.
	setTheme("light")
	waitFor[bool](t, b, "the empty state", `(() => {
		const e = document.getElementById('chat-empty');
		return e.checkVisibility() && e.textContent.includes('Type below and press Enter')
			&& e.querySelectorAll('#suggestions button').length > 0 && document.getElementById('messages').children.length === 0;
	})()`)
	light := bodyLuma()
	shot("chat-empty-light")
	setTheme("dark")
	if dark := bodyLuma(); dark >= light || dark > 80 {
		t.Errorf("dark theme background brightness %.0f, light %.0f: the dark theme is not dark", dark, light)
	}
	shot("chat-empty-dark")
	setTheme("light")
	// A suggestion fills the box; it is not sent by itself.
	b.do(t, "pick a suggestion", chromedp.Click(`#suggestions button`))
	if got := eval[string](t, b, `document.getElementById('input').value`); got == "" {
		t.Errorf("a suggestion left the message box empty")
	}
	eval[bool](t, b, `(document.getElementById('input').value = '', true)`)

	// The Markdown reply is rendered as elements; the attacks in it are
	// shown as text and run nothing.
	send("markdown please")
	waitFor[bool](t, b, "the Markdown reply", `(() => {
		const li = `+lastAssistant+`;
		return !!li && li.dataset.done === 'true' && !!li.querySelector('.body pre code');
	})()`)
	type rendered struct {
		Heading, Strong, Em, Code, LinkHref, FirstItem string
		Items                                          int
		EmptyShown                                     bool
	}
	got := eval[rendered](t, b, `(() => {
		const body = `+lastAssistant+`.querySelector('.body');
		return {
			heading: body.querySelector('h3, h4')?.textContent ?? '',
			strong: body.querySelector('strong')?.textContent ?? '',
			em: body.querySelector('em')?.textContent ?? '',
			code: body.querySelector('pre code')?.textContent ?? '',
			linkHref: body.querySelector('a[href^="https:"]')?.getAttribute('href') ?? '',
			firstItem: body.querySelector('ul > li')?.textContent ?? '',
			items: body.querySelectorAll('ul > li').length,
			emptyShown: document.getElementById('chat-empty').checkVisibility(),
		};
	})()`)
	want := rendered{Heading: "Build result", Strong: "bold", Em: "emphasis", Code: `fmt.Println("hello from a code block")`,
		LinkHref: "https://example.com/docs", FirstItem: "first item", Items: 2}
	if got != want {
		t.Errorf("rendered Markdown\n got %+v\nwant %+v", got, want)
	}
	type inert struct {
		Scripts, Images, Handlers, BadLinks int
		Fired                               string
		ShownAsText                         bool
	}
	inertNow := func() inert {
		t.Helper()
		return eval[inert](t, b, `(() => {
		const m = document.getElementById('messages');
		const all = [...m.querySelectorAll('*')];
		return {
			scripts: m.querySelectorAll('script, iframe, object, embed').length,
			images: m.querySelectorAll('img').length,
			handlers: all.filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
			badLinks: [...m.querySelectorAll('a[href]')].filter((a) => !/^(https?|mailto):/.test(a.getAttribute('href'))).length,
			fired: String(window.__xss ?? ''),
			shownAsText: m.textContent.includes('<script>') && m.textContent.includes('click me'),
		};
	})()`)
	}
	if attack := inertNow(); attack != (inert{ShownAsText: true}) {
		t.Errorf("the attacks in the reply were not inert: %+v", attack)
	}
	shot("chat-reply-light")
	setTheme("dark")
	shot("chat-reply-dark")
	setTheme("light")

	// The page's policy refuses inline script and other origins even when
	// something manages to put a <script> or an <img> into the page.
	waitFor[bool](t, b, "the CSP refusing an inline script", `(() => {
		if (!window.__cspProbe) {
			window.__cspProbe = true;
			document.addEventListener('securitypolicyviolation', (e) => { if (e.violatedDirective.startsWith('script-src')) window.__cspBlocked = true; });
			document.addEventListener('securitypolicyviolation', (e) => { if (e.violatedDirective.startsWith('img-src')) window.__cspImgBlocked = true; });
			const s = document.createElement('script');
			s.textContent = 'window.__inlineRan = true';
			document.body.append(s);
			// Another origin is refused before any request leaves.
			const img = document.createElement('img');
			img.src = 'http://198.51.100.7/pixel.png';
			img.hidden = true;
			document.body.append(img);
		}
		return window.__cspBlocked === true && window.__cspImgBlocked === true && window.__inlineRan !== true;
	})()`)

	// A tool call shows as a card under its reply; its summary opens and
	// closes the arguments and the result.
	send("tool please")
	card := `document.querySelector('#messages li.tool[data-call="t1"]')`
	waitFor[bool](t, b, "the tool card", `(() => {
		const li = `+lastAssistant+`, c = `+card+`;
		return !!li && li.dataset.done === 'true' && li.querySelector('.body').textContent.includes('The status tool answered.')
			&& !!c && c.checkVisibility() && c.querySelector('summary strong').textContent === 'session_status'
			&& c.dataset.phase === 'result' && c.querySelector('.result').textContent.trim() !== '';
	})()`)
	// checkVisibility, not a box size: Chromium lays out a closed
	// <details>'s content and only skips painting it.
	if open := eval[bool](t, b, card+`.querySelector('details').open || `+card+`.querySelector('.result').checkVisibility()`); open {
		t.Errorf("the tool card starts open")
	}
	b.do(t, "open the tool card", chromedp.Click(`#messages li.tool[data-call="t1"] summary`))
	waitFor[bool](t, b, "the open tool card", card+`.querySelector('details').open && `+card+`.querySelector('.result').checkVisibility()`)
	eval[bool](t, b, `(`+card+`.scrollIntoView({block: 'center'}), true)`)
	shot("tool-card-expanded-light")
	setTheme("dark")
	shot("tool-card-expanded-dark")
	setTheme("light")
	b.do(t, "close the tool card", chromedp.Click(`#messages li.tool[data-call="t1"] summary`))
	waitFor[bool](t, b, "the closed tool card", `!`+card+`.querySelector('details').open && !`+card+`.querySelector('.result').checkVisibility()`)

	// A guarded exec call asks inline; Allow once resolves it and the run
	// goes on with the command's output.
	send("exec please")
	approval := `document.querySelector('#messages li.msg.approval')`
	waitFor[bool](t, b, "the inline approval", `(() => {
		const a = `+approval+`;
		return !!a && a.checkVisibility() && a.querySelector('.approval-title').textContent.includes('exec')
			&& a.querySelector('.args').textContent.includes("echo 'ui-views-approved <img src=x onerror=window.__xss=1>'")
			&& !a.querySelector('img') && !!a.querySelector('button.decide-allow-once');
	})()`)
	shot("approval-pending-light")
	setTheme("dark")
	shot("approval-pending-dark")
	setTheme("light")
	b.do(t, "allow once", chromedp.Click(`#messages li.msg.approval button.decide-allow-once`))
	waitFor[bool](t, b, "the allowed approval and the finished run", `(() => {
		const a = `+approval+`, li = `+lastAssistant+`;
		const c = document.querySelector('#messages li.tool[data-call="e1"]');
		return a.dataset.decision === 'allow-once' && a.querySelector('.approval-state').textContent === 'Allowed once' && !a.querySelector('button')
			&& !!li && li.dataset.done === 'true' && li.querySelector('.body').textContent.includes('done after approval')
			&& !!c && c.querySelector('.result').textContent.includes('ui-views-approved');
	})()`)
	shot("approval-allowed")
	// The markup in the command, its approval card and its output is
	// text too.
	if attack := inertNow(); attack != (inert{ShownAsText: true}) {
		t.Errorf("markup in a tool call or its result was not inert: %+v", attack)
	}

	// Enter in the box sends; Esc, with the focus still in the box, stops
	// the reply that is running.
	b.do(t, "send slow please with Enter", chromedp.SendKeys(chromedp.ID("input"), "slow please"+kb.Enter))
	waitFor[bool](t, b, "the Stop button", `!document.getElementById('stop').disabled && document.activeElement === document.getElementById('input')`)
	if !poll(time.Minute, func() bool {
		for _, r := range model.Requests() {
			if m := r.Messages; len(m) > 0 && strings.Contains(m[len(m)-1].Text, "slow please") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the model never got the slow message\npage: %s", b.pageState())
	}
	shot("reply-running")
	b.do(t, "press Esc", chromedp.KeyEvent(kb.Escape))
	waitFor[bool](t, b, "the stopped reply", `(() => {
		const li = `+lastAssistant+`;
		return li.dataset.done === 'true' && li.classList.contains('stopped') && document.getElementById('stop').disabled;
	})()`)

	// Shortcuts: "?" lists them, Alt+digit opens a view, Ctrl+K comes back
	// to the message box.
	b.do(t, "leave the message box", chromedp.Blur(chromedp.ID("input")), chromedp.KeyEvent("?"))
	waitFor[bool](t, b, "the shortcuts dialog", `document.getElementById('shortcuts').open`)
	shot("shortcuts")
	b.do(t, "close the dialog", chromedp.KeyEvent(kb.Escape))
	waitFor[bool](t, b, "the closed dialog", `!document.getElementById('shortcuts').open`)
	views := eval[[]string](t, b, `[...document.querySelectorAll('#nav [data-view]')].map((b) => b.dataset.view)`)
	if len(views) < 2 || views[0] != "chat" {
		t.Fatalf("navigation views %v", views)
	}
	b.do(t, "Alt+2", chromedp.KeyEvent("2", chromedp.KeyModifiers(chromedp.ModifierAlt)))
	waitFor[bool](t, b, "the second view by Alt+2", `document.body.dataset.view === `+js(views[1])+` && !document.getElementById('view-'+`+js(views[1])+`).hidden`)
	b.do(t, "Ctrl+K", chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	waitFor[bool](t, b, "the message box by Ctrl+K", `document.body.dataset.view === 'chat' && document.activeElement === document.getElementById('input')`)

	// Every other view, in both themes: on screen alone, with a heading or
	// an empty state that says what to do, and no error.
	for _, theme := range []string{"light", "dark"} {
		setTheme(theme)
		for _, v := range views[1:] {
			openView(t, b, v)
			waitFor[bool](t, b, "the "+v+" view's content", `(() => {
				const s = document.getElementById('view-'+`+js(v)+`);
				const others = [...document.querySelectorAll('#chat > section')].filter((x) => x !== s && x.getBoundingClientRect().height > 0);
				const head = [...s.querySelectorAll('h2, h3')].find((h) => h.getBoundingClientRect().height > 0 && h.textContent.trim() !== '');
				return s.getBoundingClientRect().height > 0 && others.length === 0 && !!head && document.getElementById('notice').hidden;
			})()`)
			shot(v + "-" + theme)
		}
	}
	setTheme("light")
	openView(t, b, "chat")

	// A phone: the layout fits 390 px and a new message and its reply
	// scroll into view at the bottom of a long conversation.
	b.do(t, "a phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	waitFor[bool](t, b, "the phone layout", `window.innerWidth === 390`)
	eval[bool](t, b, `(document.getElementById('messages').scrollTop = 0, true)`)
	send("phone hello")
	waitFor[bool](t, b, "the phone reply in view", `(() => {
		const li = `+lastAssistant+`, m = document.getElementById('messages');
		if (!li || li.dataset.done !== 'true' || !li.textContent.includes('phone hello')) return false;
		const r = li.getBoundingClientRect(), box = m.getBoundingClientRect();
		return m.scrollHeight > m.clientHeight && r.bottom <= Math.min(box.bottom, window.innerHeight) + 1 && r.top >= box.top - 1;
	})()`)
	if w := eval[float64](t, b, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("on a phone the page is %.0f px wide, wider than the 390 px screen", w)
	}
	// The top bar's name, state and buttons sit side by side, none over
	// another, all on screen.
	if bar := eval[string](t, b, `(() => {
		const items = ['.brand h1', '#conn-state', '#shortcuts-button', '#theme', '#logout'].map((s) => document.querySelector('#topbar ' + s))
			.filter((e) => e && e.checkVisibility()).map((e) => ({ id: e.id || e.tagName, r: e.getBoundingClientRect() })).sort((a, b) => a.r.left - b.r.left);
		for (let i = 0; i < items.length; i++) {
			if (items[i].r.right > 390) return items[i].id + ' ends off screen at ' + items[i].r.right;
			if (i > 0 && items[i - 1].r.right > items[i].r.left + 0.5) return items[i - 1].id + ' overlaps ' + items[i].id;
		}
		return '';
	})()`); bar != "" {
		t.Errorf("on a phone the top bar is broken: %s", bar)
	}
	if !eval[bool](t, b, `(() => { const r = document.getElementById('send').getBoundingClientRect(); return r.width > 0 && r.right <= 390 && r.bottom <= window.innerHeight; })()`) {
		t.Errorf("on a phone the Send button is off screen")
	}
	shot("phone-chat-light")
	setTheme("dark")
	shot("phone-chat-dark")
}
