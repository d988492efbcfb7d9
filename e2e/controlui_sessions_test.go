package e2e

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestControlUISessions drives the Control UI's Sessions view: a chat
// makes a session with usage; the view lists it with its tokens, previews
// its messages, follows runs and sessions made elsewhere, opens another
// session in the chat, resets the first (after a confirming click) and
// deletes it.
func TestControlUISessions(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	const (
		mainKey   = "agent:main:main"
		otherKey  = "agent:main:ui-second"
		userText  = "hello sessions view"
		otherText = "a run from the command line"
	)
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)

	// preview asks the gateway, through our CLI, for a session's messages;
	// ok is false when the session is missing or the call failed.
	preview := func(key string) (texts []string, ok bool) {
		params, _ := json.Marshal(map[string]any{"keys": []string{key}, "limit": 50})
		r := ours.run(t, "gateway", "call", "sessions.preview", "--json", "--params", string(params))
		var out struct {
			Previews []struct {
				Key, Status string
				Items       []struct{ Role, Text string }
			}
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || len(out.Previews) != 1 || out.Previews[0].Status != "ok" {
			return nil, false
		}
		for _, it := range out.Previews[0].Items {
			texts = append(texts, it.Text)
		}
		return texts, true
	}
	listed := func(key string) (found bool, ok bool) {
		r := ours.run(t, "gateway", "call", "sessions.list", "--json", "--params", `{}`)
		var out struct{ Sessions []struct{ Key string } }
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil {
			return false, false
		}
		for _, s := range out.Sessions {
			if s.Key == key {
				return true, true
			}
		}
		return false, true
	}
	row := func(key string) string { return `#sessions tr[data-key=` + js(key) + `]` }
	total := func(key string) string {
		return `Number(document.querySelector(` + js(row(key)+` td.tokens`) + `)?.dataset.total || 0)`
	}

	// A phone's screen: the whole test runs there, and the view (one card
	// per session) must never be wider than the page.
	b.do(t, "a phone-sized viewport", chromedp.EmulateViewport(390, 844))
	controlUILogin(t, b, g, ours)

	// A chat turn makes the main session, with usage.
	b.do(t, "send a message",
		chromedp.SendKeys(chromedp.ID("input"), userText),
		chromedp.Click(chromedp.ID("send")),
	)
	waitFor[bool](t, b, "the reply", `(() => {
		const li = [...document.querySelectorAll('#messages li.msg.assistant')].pop();
		return !!li && li.dataset.done === 'true' && li.querySelector('.body').textContent.includes(`+js(userText)+`);
	})()`)
	ours.run(t, "gateway", "call", "sessions.create", "--json", "--params",
		`{"key":"`+otherKey+`","label":"Second session"}`).mustSucceed(t)

	// The list: both sessions, the main one with non-zero tokens, the
	// other with its label.
	openView(t, b, "sessions")
	waitFor[bool](t, b, "the session rows", `!!document.querySelector(`+js(row(otherKey))+`) && `+total(mainKey)+` > 0`)
	if got := eval[string](t, b, `document.querySelector(`+js(row(otherKey)+` td.name .title`)+`)?.textContent ?? ''`); got != "Second session" {
		t.Errorf("the other session's title = %q, want its label", got)
	}
	if got := eval[string](t, b, `document.querySelector(`+js(row(mainKey)+` td.agent`)+`)?.textContent ?? ''`); got != "main" {
		t.Errorf("the main session's agent = %q, want main", got)
	}
	if !eval[bool](t, b, `document.getElementById('sessions-empty').hidden`) {
		t.Errorf("the view says there are no sessions\npage: %s", b.pageState())
	}
	if !eval[bool](t, b, `document.documentElement.scrollWidth <= window.innerWidth`) {
		t.Errorf("the Sessions view is wider than a phone's screen: %v > %v", eval[float64](t, b, `document.documentElement.scrollWidth`), eval[float64](t, b, `window.innerWidth`))
	}
	before := eval[float64](t, b, total(mainKey))

	// A session made elsewhere shows up by itself (sessions.changed).
	const thirdKey = "agent:main:ui-third"
	ours.run(t, "gateway", "call", "sessions.create", "--json", "--params", `{"key":"`+thirdKey+`"}`).mustSucceed(t)
	waitFor[bool](t, b, "the session made by our CLI", `!!document.querySelector(`+js(row(thirdKey))+`)`)

	// Preview: the message text.
	b.do(t, "preview the main session", chromedp.Click(row(mainKey)+` button.preview`))
	waitFor[bool](t, b, "the preview", `document.getElementById('session-preview').dataset.key === `+js(mainKey)+`
		&& [...document.querySelectorAll('#session-preview .preview-item[data-role="user"]')].some((li) => li.textContent.includes(`+js(userText)+`))
		&& [...document.querySelectorAll('#session-preview .preview-item[data-role="assistant"]')].length > 0`)

	// A run made elsewhere (our CLI) refreshes the shown list and preview
	// when it ends.
	ours.run(t, "gateway", "call", "chat.send", "--json", "--params",
		`{"sessionKey":"`+mainKey+`","message":"`+otherText+`","idempotencyKey":"ui-sessions-run-1"}`).mustSucceed(t)
	waitFor[bool](t, b, "the tokens of the second run", total(mainKey)+` > `+strconv.FormatFloat(before, 'f', -1, 64))
	waitFor[bool](t, b, "the second run in the preview", `[...document.querySelectorAll('#session-preview .preview-item')].some((li) => li.textContent.includes(`+js(otherText)+`))`)

	// Open in chat: the chat switches to the other session.
	b.do(t, "open the other session in the chat", chromedp.Click(row(otherKey)+` button.open`))
	waitFor[bool](t, b, "the chat on the other session", `document.body.dataset.view === 'chat' && !document.getElementById('view-chat').hidden
		&& document.getElementById('session').value === `+js(otherKey)+`
		&& sessionStorage.getItem('openclaw.control.session') === `+js(otherKey))
	openView(t, b, "sessions")
	waitFor[bool](t, b, "the other session marked as the chat's", `!!document.querySelector(`+js(row(otherKey)+`.current`)+`)
		&& !document.querySelector(`+js(row(mainKey)+`.current`)+`)`)

	// Reset: the first click only asks; the second empties the history.
	b.do(t, "click reset once", chromedp.Click(row(mainKey)+` button.reset`))
	waitFor[bool](t, b, "the reset confirmation", `document.querySelector(`+js(row(mainKey)+` button.reset`)+`)?.textContent === 'Confirm reset'`)
	if texts, ok := preview(mainKey); !ok || len(texts) == 0 {
		t.Fatalf("one click on Reset changed the session: ok=%v, %q", ok, texts)
	}
	b.do(t, "confirm the reset", chromedp.Click(row(mainKey)+` button.reset.confirming`))
	if !poll(browserDeadline/4, func() bool {
		texts, ok := preview(mainKey)
		return ok && len(texts) == 0
	}) {
		texts, ok := preview(mainKey)
		t.Fatalf("the main session still has messages after reset: ok=%v, %q\npage: %s", ok, texts, b.pageState())
	}
	waitFor[bool](t, b, "the empty preview", `document.getElementById('session-preview').dataset.key === `+js(mainKey)+`
		&& document.querySelectorAll('#session-preview .preview-item').length === 0
		&& !!document.querySelector('#session-preview .empty')
		&& document.querySelector(`+js(row(mainKey)+` button.reset`)+`)?.textContent === 'Reset'`)
	if found, ok := listed(mainKey); !ok || !found {
		t.Fatalf("the main session is gone after a reset (ok=%v)", ok)
	}

	// Delete: the first click only asks; the second removes the row.
	b.do(t, "click delete once", chromedp.Click(row(mainKey)+` button.delete`))
	waitFor[bool](t, b, "the delete confirmation", `document.querySelector(`+js(row(mainKey)+` button.delete`)+`)?.textContent === 'Confirm delete'`)
	if found, ok := listed(mainKey); !ok || !found {
		t.Fatalf("one click on Delete removed the session (ok=%v)", ok)
	}
	b.do(t, "confirm the delete", chromedp.Click(row(mainKey)+` button.delete.confirming`))
	waitFor[bool](t, b, "the row gone", `!document.querySelector(`+js(row(mainKey))+`) && !!document.querySelector(`+js(row(otherKey))+`)
		&& document.getElementById('session-preview').hidden`)
	if !poll(browserDeadline/4, func() bool {
		found, ok := listed(mainKey)
		return ok && !found
	}) {
		t.Fatalf("sessions.list still has %s after delete", mainKey)
	}
	ours.run(t, "gateway", "call", "sessions.delete", "--json", "--params", `{"key":"`+thirdKey+`"}`).mustSucceed(t)
	waitFor[bool](t, b, "the row of the session deleted by our CLI gone", `!document.querySelector(`+js(row(thirdKey))+`)`)
	if !eval[bool](t, b, `document.getElementById('notice').hidden`) {
		t.Errorf("the page shows an error\npage: %s", b.pageState())
	}
}
