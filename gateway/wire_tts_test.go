package gateway

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/speech/speechtest"
)

// ttsConfig points the openai speech provider at the fake.
func ttsConfig(fake *speechtest.Server) string {
	return fmt.Sprintf(`tts: { providers: { openai: { apiKey: %q, baseUrl: %q } } },`, speechtest.Key, fake.OpenAIBase())
}

// TestWireTTS pins the answers of the tts.* methods that change the
// speech preferences or synthesize (results and error texts), and that
// the audio they return is what the provider sent.
func TestWireTTS(t *testing.T) {
	fake := speechtest.New(t)
	_, c := startWithConfig(t, fakemodel.New(t), ttsConfig(fake))

	checkWire(t, "tts.enable", call[any](t, c, "tts.enable", map[string]any{}))
	checkWire(t, "tts.status.enabled", call[any](t, c, "tts.status", map[string]any{}))
	checkWire(t, "tts.setProvider", call[any](t, c, "tts.setProvider", map[string]any{"provider": "ElevenLabs"}))
	checkWire(t, "tts.providers.preferred", call[any](t, c, "tts.providers", map[string]any{}))
	checkWire(t, "tts.setProvider.back", call[any](t, c, "tts.setProvider", map[string]any{"provider": "openai"}))
	checkWire(t, "tts.personas", call[any](t, c, "tts.personas", map[string]any{}))
	checkWire(t, "tts.setPersona.off", call[any](t, c, "tts.setPersona", map[string]any{"persona": "off"}))
	checkWire(t, "tts.disable", call[any](t, c, "tts.disable", map[string]any{}))
	checkWire(t, "tts.status.disabled", call[any](t, c, "tts.status", map[string]any{}))

	conv := call[map[string]any](t, c, "tts.convert", map[string]any{"text": "Read this aloud, please.", "channel": "telegram"})
	checkWire(t, "tts.convert", conv, "audioPath")
	audioPath, _ := conv["audioPath"].(string)
	if data, err := os.ReadFile(audioPath); err != nil || len(data) == 0 || !strings.HasSuffix(audioPath, ".ogg") {
		t.Fatalf("tts.convert audio at %q: %d bytes, %v", audioPath, len(data), err)
	}
	checkWire(t, "tts.convert.chosen", call[any](t, c, "tts.convert", map[string]any{"text": "Once more.", "provider": "openai", "modelId": "tts-1", "voiceId": "alloy"}), "audioPath")
	reqs := fake.Requests()
	if last := reqs[len(reqs)-1].JSON; last["model"] != "tts-1" || last["voice"] != "alloy" {
		t.Fatalf("provider got %v, want the chosen model and voice", last)
	}

	spoke := call[map[string]any](t, c, "tts.speak", map[string]any{"text": "Speak this inline."})
	checkWire(t, "tts.speak", spoke, "audioBase64")
	if b, err := base64.StdEncoding.DecodeString(fmt.Sprint(spoke["audioBase64"])); err != nil || len(b) == 0 {
		t.Fatalf("tts.speak audio: %d bytes, %v", len(b), err)
	}

	errs := map[string]string{}
	for _, tc := range []struct {
		name, method string
		params       any
	}{
		{"setProvider-unknown", "tts.setProvider", map[string]any{"provider": "espeak"}},
		{"setProvider-none", "tts.setProvider", map[string]any{}},
		{"setPersona-unknown", "tts.setPersona", map[string]any{"persona": "narrator"}},
		{"convert-no-text", "tts.convert", map[string]any{"text": "  "}},
		{"convert-bad-provider", "tts.convert", map[string]any{"text": "hi there", "provider": "espeak"}},
		{"convert-bad-voice", "tts.convert", map[string]any{"text": "hi there", "voiceId": "../../etc"}},
		{"convert-too-long", "tts.convert", map[string]any{"text": strings.Repeat("a", 4097)}},
		{"speak-no-text", "tts.speak", map[string]any{}},
		{"speak-blank", "tts.speak", map[string]any{"text": " "}},
		{"speak-unknown-field", "tts.speak", map[string]any{"text": "hi", "voice": "alloy"}},
		{"speak-too-long", "tts.speak", map[string]any{"text": strings.Repeat("a", 4097)}},
	} {
		errs[tc.name] = callErr(t, c, tc.method, tc.params)
	}
	checkWire(t, "tts.errors", errs)

	// A provider failure is UNAVAILABLE, not the caller's fault.
	fake.Fail(500, `{"error":{"message":"boom"}}`)
	if got := callErr(t, c, "tts.speak", map[string]any{"text": "Speak this inline."}); !strings.Contains(got, "UNAVAILABLE") {
		t.Fatalf("tts.speak on a failing provider: %s", got)
	}
}

// TestTTSReadScopeCannotChange performs the attack: a client holding only
// operator.read tries to switch speech on, change the provider and spend
// the provider's credit; every call is refused, nothing reaches the
// provider and the preferences are as they were.
func TestTTSReadScopeCannotChange(t *testing.T) {
	fake := speechtest.New(t)
	r, _ := startWithConfig(t, fakemodel.New(t), ttsConfig(fake))
	reader, err := r.dial(t, "t0k3n-automation", "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method string
		params any
	}{
		{"tts.enable", map[string]any{}},
		{"tts.disable", map[string]any{}},
		{"tts.setProvider", map[string]any{"provider": "elevenlabs"}},
		{"tts.setPersona", map[string]any{"persona": "off"}},
		{"tts.convert", map[string]any{"text": "spend the owner's credit"}},
		{"tts.speak", map[string]any{"text": "spend the owner's credit"}},
	} {
		if got := callErr(t, reader, tc.method, tc.params); !strings.Contains(got, "missing scope: operator.write") {
			t.Errorf("%s by a read-scoped client: %s", tc.method, got)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the provider got %d requests", n)
	}
	st := call[map[string]any](t, reader, "tts.status", map[string]any{})
	if st["enabled"] != false || st["provider"] != "openai" {
		t.Fatalf("status after the refused calls: %v", st)
	}
}

// TestTTSPrefsSurviveRestart: tts.enable and tts.setProvider are kept in
// the state database, so a restarted gateway speaks as it was told.
func TestTTSPrefsSurviveRestart(t *testing.T) {
	fake := speechtest.New(t)
	model := fakemodel.New(t)
	r, c := startWithConfig(t, model, ttsConfig(fake))
	call[any](t, c, "tts.enable", map[string]any{})
	call[any](t, c, "tts.setProvider", map[string]any{"provider": "elevenlabs"})
	c.Close()
	r.cancel()
	select {
	case <-r.done:
		r.done <- nil // for the cleanup
	case <-time.After(15 * time.Second):
		t.Fatal("gateway did not stop")
	}

	again := startGatewayIn(t, r.dir, nil)
	c2, err := again.dial(t, "t0k3n-automation", "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	st := call[map[string]any](t, c2, "tts.status", map[string]any{})
	if st["enabled"] != true || st["auto"] != "always" || st["provider"] != "elevenlabs" {
		t.Fatalf("status after restart: %v", st)
	}
}

// TestTTSChatCommandIsTheOwners performs the attack over Telegram: Bob, a
// sender the allowlist admits, types /tts off in his chat; voice replies
// stay on for everyone. Ann, the owner, types the same and they go off.
// Both may read /tts status.
func TestTTSChatCommandIsTheOwners(t *testing.T) {
	fake := speechtest.New(t)
	ann := telegramtest.User{ID: 4001, Username: "ann", FirstName: "Ann"}
	bob := telegramtest.User{ID: 4002, Username: "bob", FirstName: "Bob"}
	tg, c := startSharedTelegram(t, fakemodel.New(t), []telegramtest.User{ann, bob},
		`commands: { ownerAllowFrom: ["telegram:4001"] }, `+ttsConfig(fake))
	call[any](t, c, "tts.enable", map[string]any{})
	answer := func(from telegramtest.User, text string) string {
		t.Helper()
		n := len(sentTo(tg)[fmt.Sprint(from.ID)])
		tg.AddPrivateText(from, text)
		deadline := time.Now().Add(30 * time.Second)
		for {
			if got := sentTo(tg)[fmt.Sprint(from.ID)]; len(got) > n {
				return got[n].Text
			}
			if time.Now().After(deadline) {
				t.Fatalf("no answer to %q", text)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	enabled := func() any { return call[map[string]any](t, c, "tts.status", map[string]any{})["enabled"] }

	if got := answer(bob, "/tts off"); !strings.Contains(got, "Only the owner") {
		t.Fatalf("Bob's /tts off answered %q", got)
	}
	if enabled() != true {
		t.Fatal("a stranger's /tts off turned speech off")
	}
	if got := answer(bob, "/tts status"); !strings.Contains(got, "Text-to-speech: always") {
		t.Fatalf("Bob's /tts status answered %q", got)
	}
	if got := answer(ann, "/tts off"); !strings.Contains(got, "Text-to-speech is off") {
		t.Fatalf("Ann's /tts off answered %q", got)
	}
	if enabled() != false {
		t.Fatal("the owner's /tts off left speech on")
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("command answers were spoken: %d provider calls", n)
	}

	// /tts audio says one text in the sender's chat, speech off or not,
	// and leaves the preference alone.
	if got := answer(bob, "/tts audio Hello there, Ann"); !strings.Contains(got, "Speaking that once") {
		t.Fatalf("Bob's /tts audio answered %q", got)
	}
	voice := tg.WaitCalls("sendVoice", 1, 30*time.Second)
	if voice[0].Params.Get("chat_id") != "4002" {
		t.Fatalf("the voice note went to %q", voice[0].Params.Get("chat_id"))
	}
	if reqs := fake.Requests(); len(reqs) != 1 || reqs[0].JSON["input"] != "Hello there, Ann" {
		t.Fatalf("provider got %+v", reqs)
	}
	if enabled() != false {
		t.Fatal("/tts audio turned speech on")
	}
}
