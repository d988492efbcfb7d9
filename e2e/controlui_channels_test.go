package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// TestControlUIChannels drives the Channels view in headless Chromium
// against the built gateway with a Telegram bot on the fake Bot API and
// dmPolicy "pairing": the account shows connected; a stranger's DM shows
// up as a pairing request, which is approved in the browser, after which
// the stranger's next DM gets the agent's answer; a second stranger is
// dismissed and stays a stranger; Stop, Start and Log out work, and a
// refused token shows as logged out with its error. An unlinked WhatsApp
// account shows as logged out with its Link button.
//
// The WhatsApp QR link itself is not driven here: the gateway binary
// always builds a real whatsmeow client that dials WhatsApp's servers
// (whatsapptest.Fake is an in-process whatsapp.Client the separate
// gateway process cannot use), so there is no QR code without the
// network.
func TestControlUIChannels(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	model := fakemodel.New(t)
	const token = "424242:TEST-controlui-channels"
	tg := telegramtest.New(t, token)
	g := startGateway(t, gatewayOpts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  channels: {
    telegram: { botToken: %q, apiRoot: %q, dmPolicy: "pairing" },
    whatsapp: { allowFrom: ["+4917612345678"] },
  },
}
`, model.URL()+"/v1", token, tg.URL())})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)

	controlUILogin(t, b, g, ours)
	openView(t, b, "channels")
	const card = `#channels li.channel[data-channel="telegram"][data-account="default"]`
	waitFor[bool](t, b, "the connected Telegram account", `(() => {
		const li = document.querySelector(`+js(card)+`);
		return !!li && li.dataset.state === 'connected' && li.querySelector('.state').textContent === 'connected'
			&& li.querySelector('.facts').textContent.includes(`+js(telegramtest.BotUsername)+`)
			&& li.querySelector('.facts').textContent.includes('DMs: pairing')
			&& !!li.querySelector('button.stop') && !li.querySelector('button.start') && !li.querySelector('.last-error');
	})()`)

	// The never linked WhatsApp account says so and offers the link.
	const wa = `#channels li.channel[data-channel="whatsapp"][data-account="default"]`
	waitFor[bool](t, b, "the unlinked WhatsApp account", `(() => {
		const li = document.querySelector(`+js(wa)+`);
		return !!li && li.dataset.state === 'logged-out' && li.querySelector('.state').textContent === 'logged out'
			&& (li.querySelector('.detail')?.textContent || '').includes('channels login --channel whatsapp')
			&& li.querySelector('button.link')?.textContent === 'Link WhatsApp' && !!li.querySelector('button.stop');
	})()`)

	// A stranger writes: the bot answers with a code, and the request
	// appears in the view without a reload (the channels.pairing.requested event).
	zoe := telegramtest.User{ID: 4242, Username: "zoe", FirstName: "Zoe"}
	tg.AddPrivateText(zoe, "hello before approval")
	code := pairingCode(t, tg, "4242")
	req := `#pairing li.pairing[data-channel="telegram"][data-account="default"][data-code=` + js(code) + `]`
	waitFor[bool](t, b, "Zoe's pairing request", `(() => {
		const li = document.querySelector(`+js(req)+`);
		return !!li && li.dataset.sender === '4242' && li.querySelector('.sender').textContent.includes('@zoe')
			&& li.querySelector('.code').textContent === `+js(code)+` && !!li.dataset.request
			&& document.querySelector('#nav [data-view="channels"]').textContent === 'Channels (1)';
	})()`)

	// Approve in the browser.
	b.do(t, "approve Zoe", chromedp.Click(req+` button.approve`))
	waitFor[bool](t, b, "the approval", `document.getElementById('pairing-result').dataset.outcome === 'approved'
		&& document.getElementById('pairing-result').textContent.includes('4242')
		&& !document.querySelector(`+js(req)+`) && !document.getElementById('pairing-empty').hidden
		&& document.querySelector('#nav [data-view="channels"]').textContent === 'Channels'`)
	list := ours.run(t, "pairing", "list", "telegram")
	list.mustSucceed(t)
	if strings.Contains(list.Stdout, code) {
		t.Fatalf("the approved request is still listed:\n%s", list.Stdout)
	}
	// "Tell approved people" is on by default: Zoe heard it.
	waitSentWhere(t, tg, "telling Zoe she is approved", func(m telegramtest.Message) bool {
		return m.ChatID == "4242" && strings.Contains(m.Text, "approved")
	})
	// Now her DMs reach the agent, and the agent's answer reaches her.
	tg.AddPrivateText(zoe, "hello after approval")
	waitSentWhere(t, tg, "the agent's answer to Zoe", func(m telegramtest.Message) bool {
		return m.ChatID == "4242" && strings.Contains(m.Text, "echo: hello after approval")
	})
	for _, r := range model.Requests() {
		if strings.Contains(fmt.Sprint(r.Messages), "hello before approval") {
			t.Errorf("a message from before the approval reached the model: %+v", r.Messages)
		}
	}
	// The account's card says when it last received and sent.
	b.do(t, "refresh", chromedp.Click(`#view-channels button.refresh`))
	waitFor[bool](t, b, "the traffic times", `(() => {
		const tr = document.querySelector('#channels li.channel[data-channel="telegram"] .traffic');
		return !!tr && Number(tr.dataset.in) > 0 && Number(tr.dataset.out) >= Number(tr.dataset.in);
	})()`)

	// A second stranger is dismissed: the request goes, and a new message
	// from them gets a new code, not the agent.
	maxU := telegramtest.User{ID: 5151, FirstName: "Max"}
	tg.AddPrivateText(maxU, "let me in")
	first := pairingCode(t, tg, "5151")
	req = `#pairing li.pairing[data-code=` + js(first) + `]`
	waitFor[bool](t, b, "Max's pairing request", `!!document.querySelector(`+js(req)+`)`)
	b.do(t, "dismiss Max", chromedp.Click(req+` button.dismiss`))
	waitFor[bool](t, b, "the dismissal", `document.getElementById('pairing-result').dataset.outcome === 'dismissed'
		&& !document.querySelector(`+js(req)+`)`)
	if list := ours.run(t, "pairing", "list", "telegram"); list.Code != 0 || strings.Contains(list.Stdout, first) {
		t.Fatalf("after the dismissal, pairing list:\n%s", list)
	}
	tg.AddPrivateText(maxU, "let me in, please")
	second := waitSentWhere(t, tg, "a new code for Max", func(m telegramtest.Message) bool {
		return m.ChatID == "5151" && strings.Contains(m.Text, "pairing code") && !strings.Contains(m.Text, first)
	})
	secondCode := regexp.MustCompile(`[A-HJ-NP-Z2-9]{8}`).FindString(second.Text)
	waitFor[bool](t, b, "Max's new request", `!!document.querySelector(`+js(`#pairing li.pairing[data-code="`+secondCode+`"]`)+`)`)
	for _, m := range tg.Sent() {
		if m.ChatID == "5151" && strings.Contains(m.Text, "echo:") {
			t.Errorf("the dismissed stranger reached the agent: %+v", m)
		}
	}

	// Stop, then Start with a token Telegram refuses once: the account
	// shows logged out with the error; Stop and Start bring it back.
	stateIs := func(what, state, extra string) {
		t.Helper()
		waitFor[bool](t, b, what, `(() => {
			const li = document.querySelector(`+js(card)+`);
			return !!li && li.dataset.state === `+js(state)+` && (`+extra+`);
		})()`)
	}
	b.do(t, "stop Telegram", chromedp.Click(card+` button.stop`))
	stateIs("the stopped account", "stopped", `li.dataset.running === 'false' && !!li.querySelector('button.start') && li.querySelector('.state').textContent === 'stopped'`)
	if st := ours.run(t, "channels", "status"); st.Code != 0 || !strings.Contains(st.Stdout, "stopped") {
		t.Fatalf("channels status after Stop:\n%s", st)
	}
	tg.Fail("getMe", 1, telegramtest.APIError(401, "Unauthorized"))
	b.do(t, "start Telegram", chromedp.Click(card+` button.start`))
	stateIs("the refused token", "logged-out", `li.querySelector('.state').textContent === 'logged out'
		&& (li.querySelector('.last-error')?.textContent || '').includes('Unauthorized')`)
	b.do(t, "stop Telegram again", chromedp.Click(card+` button.stop`))
	stateIs("the stopped account", "stopped", `!!li.querySelector('button.start')`)
	b.do(t, "start Telegram again", chromedp.Click(card+` button.start`))
	stateIs("the reconnected account", "connected", `!!li.querySelector('button.stop') && !li.querySelector('.last-error')`)
	tg.AddPrivateText(zoe, "back again")
	waitSentWhere(t, tg, "the answer after the restart", func(m telegramtest.Message) bool {
		return m.ChatID == "4242" && strings.Contains(m.Text, "echo: back again")
	})

	// Log out asks for a second press; then the account stops.
	b.do(t, "log out once", chromedp.Click(card+` button.logout`))
	if armed := eval[string](t, b, `document.querySelector(`+js(card+` button.logout`)+`).dataset.armed || ''`); armed != "true" {
		t.Fatalf("the first Log out press did not ask again (armed %q)", armed)
	}
	if st := eval[string](t, b, `document.querySelector(`+js(card)+`).dataset.state`); st != "connected" {
		t.Fatalf("one Log out press changed the state to %q", st)
	}
	b.do(t, "log out", chromedp.Click(card+` button.logout`))
	stateIs("the logged-out account", "stopped", `!!li.querySelector('button.start')`)

	// Logging out of WhatsApp (nothing linked, so nothing to tell
	// WhatsApp) stops it; a stopped account offers Start, not the link.
	b.do(t, "log out of WhatsApp", chromedp.Click(wa+` button.logout`), chromedp.Click(wa+` button.logout`))
	waitFor[bool](t, b, "the stopped WhatsApp account", `(() => {
		const li = document.querySelector(`+js(wa)+`);
		return !!li && li.dataset.state === 'stopped' && !!li.querySelector('button.start') && !li.querySelector('button.link');
	})()`)
	if st := ours.run(t, "channels", "status"); st.Code != 0 || strings.Contains(st.Stdout, "logged-out") {
		t.Fatalf("channels status after both log outs:\n%s", st)
	}
}

// pairingCode waits for the bot's pairing message to a chat and returns
// its code.
func pairingCode(t *testing.T, tg *telegramtest.Server, chatID string) string {
	t.Helper()
	m := waitSentWhere(t, tg, "with a pairing code to "+chatID, func(m telegramtest.Message) bool {
		return m.ChatID == chatID && strings.Contains(m.Text, "pairing code")
	})
	code := regexp.MustCompile(`[A-HJ-NP-Z2-9]{8}`).FindString(m.Text)
	if code == "" {
		t.Fatalf("no code in the pairing message %+v", m)
	}
	return code
}
