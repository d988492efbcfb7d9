package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// chromiumPath is Debian's Chromium, which the browser tests drive.
const chromiumPath = "/usr/bin/chromium"

// browserDeadline bounds one browser test from start to end; each wait
// inside it is a condition, not a duration.
const browserDeadline = 4 * time.Minute

// needChromium returns the browser, skips with OPENCLAW_E2E_SKIP_BROWSER=1,
// and otherwise fails saying how to install it.
func needChromium(t *testing.T) string {
	t.Helper()
	if os.Getenv("OPENCLAW_E2E_SKIP_BROWSER") == "1" {
		t.Skip("browser tests skipped (OPENCLAW_E2E_SKIP_BROWSER=1)")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("the WebChat browser test needs Chromium at %s (%v).\n"+
			"Install it with: sudo apt-get update && sudo apt-get install -y chromium\n"+
			"or set OPENCLAW_E2E_SKIP_BROWSER=1 to skip the browser tests.", chromiumPath, err)
	}
	return chromiumPath
}

// browser is one headless Chromium with one tab.
type browser struct {
	ctx    context.Context // the tab, bounded by browserDeadline
	output syncBuffer      // the browser's stdout and stderr
	logs   syncBuffer      // the page's console
}

// startBrowser starts headless Chromium with a private profile; the test's
// cleanup stops it. On failure the browser's output and the page's console
// are logged.
func startBrowser(t *testing.T, execPath string) *browser {
	t.Helper()
	profile, err := os.MkdirTemp("", "openclaw-e2e-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(profile) }) // after the browser has exited (cleanups run last-in first-out)
	b := &browser{}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(execPath),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.CombinedOutput(&b.output),
	)
	t.Cleanup(cancelAlloc) // waits for the browser process to end
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelTab)
	// The first action starts the browser; it lives as long as tabCtx.
	if err := chromedp.Do(tabCtx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start %s: %v\n%s", execPath, err, clip(b.output.String()))
	}
	go func() {
		for m, err := range chromedp.Console(tabCtx) {
			if err != nil {
				return
			}
			fmt.Fprintf(&b.logs, "%s\n", m)
		}
	}()
	ctx, cancel := context.WithTimeout(tabCtx, browserDeadline)
	t.Cleanup(cancel)
	b.ctx = ctx
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- page console:\n%s\n--- browser output:\n%s", clip(b.logs.String()), clip(b.output.String()))
		}
	})
	return b
}

// do runs actions in the tab and fails the test on error.
func (b *browser) do(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatalf("%s: %v\npage: %s", what, err, b.pageState())
	}
}

// waitFor polls a JavaScript expression until it is truthy and returns
// its value. The wait ends at the test's browser deadline.
func waitFor[T any](t *testing.T, b *browser, what, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Poll[T](expr,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0)))
	if err != nil {
		t.Fatalf("waiting for %s: %v\npage: %s", what, err, b.pageState())
	}
	return v
}

// eval evaluates a JavaScript expression.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v\npage: %s", expr, err, b.pageState())
	}
	return v
}

// pageState describes what the page shows, for failure messages.
func (b *browser) pageState() string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](`(() => ({
		url: location.href,
		state: document.body && document.body.dataset.state,
		connState: document.getElementById('conn-state')?.textContent,
		notice: document.getElementById('notice')?.hidden ? '' : document.getElementById('notice')?.textContent.trim(),
		messages: [...document.querySelectorAll('#messages li')].map((li) => li.className + ': ' + li.textContent.trim()),
	}))()`))
	if err != nil {
		return "(cannot read the page: " + err.Error() + ")"
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}

// js quotes s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestWebChatInBrowser drives the WebChat page in headless Chromium
// against the built gateway with a fake model: a wrong token is refused
// with its code; the right one from a new browser asks for pairing, which
// our CLI approves; a message gets a streamed reply; Stop aborts a run;
// after a reload the history shows both sides again; after a gateway
// restart the page reconnects by itself.
func TestWebChatInBrowser(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	const (
		userText  = "hello from the browser"
		replyText = "A streamed reply with `inline code`, in words.\n\n```\nfmt.Println(\"hi\")\n```\n\nThe end."
		slowText  = "please take your time"
	)
	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{Text: replyText, ChunkDelay: 20 * time.Millisecond},
		fakemodel.Reply{Text: "never sent", Delay: 10 * time.Minute}, // ends when the run is aborted
	)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	b := startBrowser(t, execPath)
	page := fmt.Sprintf("http://127.0.0.1:%d/webchat/", g.Port)

	// A wrong token: the page shows the refusal's code and asks again.
	b.do(t, "log in with a wrong token",
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), "wrong-"+g.Token),
		chromedp.Click(chromedp.ID("login-button")),
	)
	waitFor[bool](t, b, "the token refusal", `document.getElementById('notice').dataset.code === 'AUTH_TOKEN_MISMATCH'
		&& document.getElementById('notice-code').textContent.includes('AUTH_TOKEN_MISMATCH')
		&& !document.getElementById('login').hidden`)

	// The right token from a browser the gateway has not seen: pairing is
	// required, and the page says which request to approve.
	b.do(t, "log in",
		chromedp.SendKeys(chromedp.ID("token"), g.Token),
		chromedp.Click(chromedp.ID("login-button")),
	)
	requestID := waitFor[string](t, b, "the pairing request", `document.getElementById('notice').dataset.code === 'PAIRING_REQUIRED'
		&& document.getElementById('notice').textContent.includes('openclaw devices approve')
		&& document.getElementById('notice').dataset.requestId`)
	ourClient(t, g).run(t, "devices", "approve", requestID).mustSucceed(t)
	waitFor[bool](t, b, "the connection after approval", `document.body.dataset.state === 'connected'
		&& !document.getElementById('input').disabled && document.getElementById('notice').hidden`)

	// The token is in this tab's session storage, never in the URL.
	if href := eval[string](t, b, `location.href`); strings.Contains(href, g.Token) || href != page {
		t.Errorf("page URL is %q, want %q", href, page)
	}
	if got := eval[string](t, b, `sessionStorage.getItem('openclaw.webchat.token')`); got != g.Token {
		t.Errorf("session storage holds %q, want the token", got)
	}
	if got := eval[string](t, b, `document.cookie + JSON.stringify(localStorage)`); strings.Contains(got, g.Token) {
		t.Errorf("the token leaked into cookies or local storage: %q", got)
	}

	// Send a message; watch the reply stream in.
	eval[bool](t, b, `(() => {
		window.partialSeen = false;
		new MutationObserver(() => {
			const li = [...document.querySelectorAll('#messages li.msg.assistant')].pop();
			const text = li ? li.querySelector('.body').textContent : '';
			if (li && li.classList.contains('streaming') && text !== '' && !text.includes('The end.')) window.partialSeen = true;
		}).observe(document.getElementById('messages'), {subtree: true, childList: true, characterData: true, attributes: true});
		return true;
	})()`)
	b.do(t, "send a message",
		chromedp.SendKeys(chromedp.ID("input"), userText),
		chromedp.Click(chromedp.ID("send")),
	)
	waitFor[bool](t, b, "the streamed reply", `(() => {
		const li = [...document.querySelectorAll('#messages li.msg.assistant')].pop();
		return !!li && li.dataset.done === 'true' && li.querySelector('.body').textContent.includes('The end.');
	})()`)
	if !eval[bool](t, b, `window.partialSeen`) {
		t.Errorf("the reply never showed partly streamed\npage: %s", b.pageState())
	}
	// The Markdown subset: a code block and an inline code span, as text.
	if got := eval[string](t, b, `[...document.querySelectorAll('#messages li.msg.assistant pre code')].pop()?.textContent ?? ''`); got != `fmt.Println("hi")` {
		t.Errorf("code block text = %q", got)
	}
	if got := eval[string](t, b, `[...document.querySelectorAll('#messages li.msg.assistant p code')].pop()?.textContent ?? ''`); got != "inline code" {
		t.Errorf("inline code text = %q", got)
	}

	// A slow run: Stop aborts it and the page says so.
	b.do(t, "send a slow message",
		chromedp.SendKeys(chromedp.ID("input"), slowText),
		chromedp.Click(chromedp.ID("send")),
	)
	waitFor[bool](t, b, "the Stop button", `!document.getElementById('stop').disabled`)
	// Stop once the model holds the request, so the abort meets a
	// running model call.
	if !poll(time.Minute, func() bool { return len(model.Requests()) == 2 }) {
		t.Fatalf("the model got %d requests, want 2\npage: %s", len(model.Requests()), b.pageState())
	}
	b.do(t, "stop the run", chromedp.Click(chromedp.ID("stop")))
	status := waitFor[string](t, b, "the end of the stopped run", `(() => {
		const li = [...document.querySelectorAll('#messages li.msg.assistant')].pop();
		return li && li.dataset.done === 'true' && li.className + ': ' + li.querySelector('.status').textContent;
	})()`)
	if status != "msg assistant stopped: stopped before any reply" {
		t.Errorf("stopped run shows %q, want the stopped state", status)
	}

	// Reload: the token survives in the tab, the device is paired, and the
	// history shows both sides of the conversation.
	b.do(t, "reload", chromedp.Reload())
	waitFor[bool](t, b, "the history after reload", `(() => {
		if (document.body.dataset.state !== 'connected' || !document.getElementById('messages').dataset.loaded) return false;
		const texts = (sel) => [...document.querySelectorAll(sel)].map((li) => li.querySelector('.body').textContent);
		const users = texts('#messages li.msg.user'), assistants = texts('#messages li.msg.assistant');
		return users.some((t) => t.includes(`+js(userText)+`)) && users.some((t) => t.includes(`+js(slowText)+`))
			&& assistants.some((t) => t.includes('A streamed reply with inline code') && t.includes('The end.'));
	})()`)
	if got := eval[string](t, b, `[...document.querySelectorAll('#messages li.msg.assistant pre code')].pop()?.textContent ?? ''`); got != `fmt.Println("hi")` {
		t.Errorf("code block after reload = %q", got)
	}

	// The gateway restarts: the page shows the lost connection, comes back
	// by itself and loads the history again.
	eval[bool](t, b, `(() => {
		window.sawReconnecting = false;
		window.historyBefore = document.getElementById('messages').dataset.loaded;
		new MutationObserver(() => {
			if (document.body.dataset.state === 'reconnecting') window.sawReconnecting = true;
		}).observe(document.body, {attributes: true, attributeFilter: ['data-state']});
		return true;
	})()`)
	g.restart(t)
	waitFor[bool](t, b, "the reconnect after a gateway restart", `window.sawReconnecting
		&& document.body.dataset.state === 'connected'
		&& document.getElementById('messages').dataset.loaded !== window.historyBefore
		&& [...document.querySelectorAll('#messages li.msg.user')].some((li) => li.textContent.includes(`+js(userText)+`))`)
}
