package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// configViewFile is the gateway's config in TestControlUIConfig, one key
// per line so the test knows where each is. The provider's apiKey is a
// secret: config.get shows it redacted, and saving must keep it.
const configViewFile = `{
  // The Config view's e2e config.
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, apiKey: "sk-config-view-secret", api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
}
`

// TestControlUIConfig drives the Config view in headless Chromium: the
// file's text is shown; a JSON5 syntax error, a wrong-typed value and an
// unknown key are refused with their line (and column), the problem moves
// the cursor there, and the file stays as it was; a valid change is saved,
// applied (our CLI sees it over RPC) and logged in the Logs panel; a save
// over another client's edit is refused.
func TestControlUIConfig(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: fmt.Sprintf(configViewFile, model.URL()+"/v1")})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)

	orig, err := os.ReadFile(g.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	const secret, redacted = "sk-config-view-secret", "__OPENCLAW_REDACTED__"
	hide := func(s string) string { return strings.ReplaceAll(s, secret, redacted) }
	shown := hide(string(orig)) // the text config.get gives the page
	if shown == string(orig) {
		t.Fatalf("no secret in the config:\n%s", orig)
	}
	lines := strings.Split(shown, "\n")
	withLine := func(n int, text string) string { // n is 1-based
		l := append([]string(nil), lines...)
		l[n-1] = text
		return strings.Join(l, "\n")
	}
	unchanged := func(what string) {
		t.Helper()
		if now, err := os.ReadFile(g.ConfigPath); err != nil || string(now) != string(orig) {
			t.Fatalf("%s changed the config file (%v):\n%s", what, err, now)
		}
	}
	setText := func(text string) {
		t.Helper()
		eval[bool](t, b, `(() => {
			const ta = document.getElementById('config-text');
			ta.value = `+js(text)+`;
			ta.dispatchEvent(new Event('input', { bubbles: true }));
			return true;
		})()`)
	}
	// press clicks a button and waits for the answer the status shows.
	press := func(id, want string) {
		t.Helper()
		eval[bool](t, b, `(document.getElementById('config-status').dataset.state = 'pressed', true)`)
		b.do(t, "press "+id, chromedp.Click(chromedp.ID(id)))
		state := waitFor[string](t, b, id+"'s answer", `(() => {
			const s = document.getElementById('config-status').dataset.state;
			return s !== 'pressed' && s !== 'busy' && s;
		})()`)
		if state != want {
			t.Fatalf("after %s the status is %q (%s), want %q\npage: %s", id, state,
				eval[string](t, b, `document.getElementById('config-status').textContent`), want, b.pageState())
		}
	}
	type shownError struct {
		Line, Column, Path, Text string
	}
	shownErrors := func() []shownError {
		t.Helper()
		return eval[[]shownError](t, b, `[...document.querySelectorAll('#config-errors li.config-error')].map((li) => ({
			Line: li.dataset.line || '', Column: li.dataset.column || '', Path: li.dataset.path || '', Text: li.textContent,
		}))`)
	}

	controlUILogin(t, b, g, ours)
	openView(t, b, "config")

	// The file's text, as it is on disk but for the secret.
	waitFor[bool](t, b, "the config text", `document.getElementById('config-text').value === `+js(shown)+`
		&& document.getElementById('config-status').dataset.state === 'clean'`)
	if got := eval[string](t, b, `document.getElementById('config-path').textContent`); !strings.Contains(got, g.ConfigPath) {
		t.Errorf("config path shown as %q, want %s", got, g.ConfigPath)
	}

	// The Logs panel shows the gateway's log.
	waitFor[bool](t, b, "a log line", `[...document.querySelectorAll('#logs li.log-line')].some((li) => li.textContent.includes('gateway listening'))`)

	// A syntax error: line 3 loses its comma, so line 4 column 3 is wrong.
	syntax := withLine(3, `  gateway: { mode: "local" }`)
	setText(syntax)
	press("config-save", "invalid")
	errs := shownErrors()
	if len(errs) != 1 || errs[0].Line != "4" || errs[0].Column != "3" || !strings.HasPrefix(errs[0].Text, "line 4, column 3: ") {
		t.Fatalf("syntax error shown as %+v", errs)
	}
	unchanged("saving a syntax error")

	// Clicking the problem puts the cursor there.
	b.do(t, "click the problem", chromedp.Click(`#config-errors li.config-error[data-line="4"]`))
	wantOffset := strings.Index(syntax, "\n  models:") + 3 // line 4, column 3
	sel := waitFor[[]int](t, b, "the cursor at the problem", `document.activeElement === document.getElementById('config-text')
		&& [document.getElementById('config-text').selectionStart, document.getElementById('config-text').selectionEnd]`)
	if sel[0] != wantOffset || sel[1] <= sel[0] {
		t.Errorf("selection after clicking the problem = %v, want it to start at %d", sel, wantOffset)
	}

	// A wrong-typed value and an unknown key: Validate lists both with
	// their key paths and lines, and Save refuses them too.
	bad := withLine(3, `  gateway: { mode: "local", port: "nope" },`)
	bad = strings.Replace(bad, "\n}\n", "\n  bogusKey: true,\n}\n", 1)
	setText(bad)
	press("config-validate", "invalid")
	check := func(what string) {
		t.Helper()
		errs := shownErrors()
		if len(errs) != 2 || errs[0].Path != "gateway.port" || errs[0].Line != "3" || !strings.HasPrefix(errs[0].Text, "line 3, column ") ||
			!strings.Contains(errs[0].Text, "gateway.port: expected a number") ||
			errs[1].Path != "bogusKey" || errs[1].Line != "6" || !strings.Contains(errs[1].Text, "unknown key") {
			t.Fatalf("%s: problems shown as %+v", what, errs)
		}
	}
	check("validate")
	unchanged("validating")
	press("config-save", "invalid")
	check("save")
	unchanged("saving a wrong type and an unknown key")

	// A valid change: a second agent. Validate passes without writing,
	// Save writes and applies it.
	good := withLine(5, `  agents: { defaults: { model: "fake/echo-1" }, entries: { main: {}, "ui-helper": { name: "UI Helper" } } },`)
	setText(good)
	press("config-validate", "valid")
	if n := eval[int](t, b, `document.querySelectorAll('#config-errors li').length`); n != 0 {
		t.Errorf("%d problems listed for a valid text", n)
	}
	unchanged("validating a valid text")
	press("config-save", "saved")
	want := strings.ReplaceAll(good, redacted, secret) // the secret kept
	if now, _ := os.ReadFile(g.ConfigPath); string(now) != want {
		t.Fatalf("config file after saving:\n%s\nwant:\n%s", now, want)
	}
	waitFor[bool](t, b, "the saved text, reloaded", `document.getElementById('config-text').value === `+js(good))

	// The gateway runs it: config.get and agents.list over our CLI.
	r := ours.run(t, "gateway", "call", "config.get", "--json")
	r.mustSucceed(t)
	var got struct {
		Hash   string `json:"hash"`
		Config struct {
			Agents struct {
				Entries map[string]struct {
					Name string `json:"name"`
				} `json:"entries"`
			} `json:"agents"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || got.Config.Agents.Entries["ui-helper"].Name != "UI Helper" {
		t.Fatalf("config.get after saving (%v):\n%s", err, r)
	}
	r = ours.run(t, "gateway", "call", "agents.list", "--json")
	r.mustSucceed(t)
	if !strings.Contains(r.Stdout, `"ui-helper"`) || !strings.Contains(r.Stdout, `"UI Helper"`) {
		t.Errorf("agents.list after saving lacks the new agent:\n%s", r)
	}

	// The reload is in the log, and the Logs panel follows it.
	waitFor[bool](t, b, "the reload in the Logs panel", `[...document.querySelectorAll('#logs li.log-line')].some((li) => li.textContent.includes('config reloaded'))`)

	// A concurrent edit: another client changes the file while the page
	// has unsaved changes; Save is refused and the other edit is kept.
	setText(strings.Replace(good, "UI Helper", "UI Helper 2", 1))
	ours.run(t, "gateway", "call", "config.patch", "--params", `{"raw":"{agents:{entries:{'ui-helper':{name:'Edited Elsewhere'}}}}"}`).mustSucceed(t)
	elsewhere, err := os.ReadFile(g.ConfigPath)
	if err != nil || !strings.Contains(string(elsewhere), "Edited Elsewhere") {
		t.Fatalf("config file after the other client's patch (%v):\n%s", err, elsewhere)
	}
	press("config-save", "conflict")
	if msg := eval[string](t, b, `document.getElementById('config-status').textContent`); !strings.Contains(msg, "changed by someone else") {
		t.Errorf("conflict shown as %q", msg)
	}
	if now, _ := os.ReadFile(g.ConfigPath); string(now) != string(elsewhere) {
		t.Fatalf("a refused save changed the file:\n%s", now)
	}
	// Reload shows the other client's text.
	b.do(t, "reload", chromedp.Click(chromedp.ID("config-reload")))
	waitFor[bool](t, b, "the other client's text", `document.getElementById('config-text').value === `+js(hide(string(elsewhere))))
}
