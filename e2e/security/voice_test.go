package security

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/speech"
	"github.com/openclaw-go/openclaw/speech/speechtest"
)

// voiceConfig is a Telegram bot that transcribes voice notes and speaks
// every reply, both on the fake speech providers.
func voiceConfig(modelURL, apiRoot, token, speechBase string) string {
	return echoConfig(modelURL, fmt.Sprintf(`channels: { telegram: { botToken: %q, apiRoot: %q, allowFrom: [7001], mediaMaxMb: 1 } },
  tts: { auto: "always", provider: "openai", providers: { openai: { baseUrl: %q } } },
  tools: { media: { audio: { baseUrl: %q } } },`, token, apiRoot, speechBase, speechBase))
}

// TestVoiceAttacksCostNothing: a stranger's voice note is neither
// downloaded nor transcribed (no spending on strangers), an allowed
// sender's voice note over mediaMaxMb is refused before the download and
// never uploaded, and the provider key stays out of the log.
func TestVoiceAttacksCostNothing(t *testing.T) {
	t.Parallel()
	model := fakemodel.New(t)
	fake := speechtest.New(t)
	const token = "7001:TEST-voice-attacks"
	tg := telegramtest.New(t, token)
	g := harness.Start(t, harness.Opts{Config: voiceConfig(model.URL(), tg.URL(), token, fake.OpenAIBase()),
		Env: []string{"OPENAI_API_KEY=" + speechtest.Key}})
	_ = g

	mallory := telegramtest.User{ID: 6666, Username: "mallory", FirstName: "Mallory"}
	tg.AddVoice(mallory, telegramtest.Voice{Bytes: bytes.Repeat([]byte{1}, 8000)})
	if !harness.Poll(60*time.Second, func() bool {
		for _, m := range tg.Sent() {
			if m.ChatID == "6666" && strings.Contains(m.Text, "pairing code") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no pairing answer to the stranger; sent %+v", tg.Sent())
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the stranger's voice note cost %d provider calls", n)
	}
	for _, c := range tg.Calls("getFile") {
		t.Errorf("the stranger's voice note was fetched: %+v", c)
	}

	ann := telegramtest.User{ID: 7001, Username: "ann", FirstName: "Ann"}
	tg.AddVoice(ann, telegramtest.Voice{Bytes: bytes.Repeat([]byte{2}, 2<<20)})
	if !harness.Poll(60*time.Second, func() bool {
		for _, m := range tg.Sent() {
			if m.ChatID == "7001" && strings.Contains(m.Text, "echo:") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no answer to Ann; sent %+v", tg.Sent())
	}
	for _, r := range fake.Requests() {
		if r.Path == "/v1/audio/transcriptions" {
			t.Errorf("a voice note over mediaMaxMb was uploaded (%d bytes)", len(r.File))
		}
	}
	logs, _ := os.ReadFile(filepath.Join(g.StateDir, "logs", "gateway.log"))
	if bytes.Contains(logs, []byte(speechtest.Key)) {
		t.Error("the speech key is in the gateway log")
	}
}

// TestInjectedReplyCannotSpeakANovel: a prompt-injected model answers
// with a huge text; what reaches the speech provider is cut to
// speech.DefaultMaxLength characters, and the [[tts]] tags it wrote to
// pick a voice by path are ignored.
func TestInjectedReplyCannotSpeakANovel(t *testing.T) {
	t.Parallel()
	model := fakemodel.New(t)
	fake := speechtest.New(t)
	const token = "7002:TEST-voice-novel"
	tg := telegramtest.New(t, token)
	harness.Start(t, harness.Opts{Config: voiceConfig(model.URL(), tg.URL(), token, fake.OpenAIBase()),
		Env: []string{"OPENAI_API_KEY=" + speechtest.Key}})
	model.Script(fakemodel.Reply{Text: "[[tts:voice=../../admin model=x/../../y]] " + strings.Repeat("All work and no play. ", 400)})
	tg.AddPrivateText(telegramtest.User{ID: 7001, Username: "ann", FirstName: "Ann"}, "tell me a story")
	if !harness.Poll(90*time.Second, func() bool {
		for _, r := range fake.Requests() {
			if r.Path == "/v1/audio/speech" {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no synthesis; sent %+v", tg.Sent())
	}
	for _, r := range fake.Requests() {
		if r.Path != "/v1/audio/speech" {
			continue
		}
		in, _ := r.JSON["input"].(string)
		if n := len([]rune(in)); n > speech.DefaultMaxLength+1 {
			t.Errorf("%d characters sent to the provider", n)
		}
		if r.JSON["voice"] != speech.OpenAIVoice || r.JSON["model"] != speech.OpenAITTSModel {
			t.Errorf("the injected voice or model reached the provider: %v %v", r.JSON["voice"], r.JSON["model"])
		}
	}
	for _, m := range tg.Sent() {
		if strings.Contains(m.Text, "[[tts") {
			t.Errorf("a tag reached the chat: %.80q", m.Text)
		}
	}
}
