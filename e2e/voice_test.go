package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/speech/speechtest"
)

// TestTelegramVoiceEndToEnd: the real binary, a Telegram user on the fake
// Bot API and both speech providers faked. Ann's voice note reaches the
// model as its transcript, the answer comes back as a Telegram voice note
// (sendVoice, Ogg/Opus asked of the provider), and a stranger's voice note
// costs no provider call. The provider key shows in no output.
func TestTelegramVoiceEndToEnd(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	speech := speechtest.New(t)
	speech.SetTranscript("what is the weather tomorrow")
	const token = "123456:TEST-token-voice"
	tg := telegramtest.New(t, token)
	g := startGateway(t, gatewayOpts{
		Config: telegramConfig(model.URL(), tg.URL(), token, `tts: {
    auto: "inbound", provider: "openai",
    providers: { openai: { apiKey: "${OPENAI_API_KEY}", baseUrl: "`+speech.OpenAIBase()+`", speakerVoice: "alloy" } },
  },
  tools: { media: { audio: { baseUrl: "`+speech.OpenAIBase()+`" } } },`),
		Env: []string{"OPENAI_API_KEY=" + speechtest.Key},
	})
	ann := telegramtest.User{ID: 2001, Username: "ann", FirstName: "Ann"}
	recording := append([]byte("OggS"), bytes.Repeat([]byte{7}, 4000)...)

	tg.AddVoice(ann, telegramtest.Voice{Bytes: recording, Duration: 3})
	echo := waitSentWhere(t, tg, "answering the voice note in text", func(m telegramtest.Message) bool {
		return m.ChatID == "2001" && strings.Contains(m.Text, "what is the weather tomorrow")
	})
	if !strings.Contains(echo.Text, "echo:") {
		t.Errorf("reply %+v", echo)
	}
	voice := waitSentWhere(t, tg, "as a voice note", func(m telegramtest.Message) bool { return m.Method == "sendVoice" })
	if voice.ChatID != "2001" || !bytes.Equal(voice.FileBytes, speechtest.OggBytes) {
		t.Errorf("voice note %+v", voice)
	}
	var stt, tts int
	for _, r := range speech.Requests() {
		switch r.Path {
		case "/v1/audio/transcriptions":
			stt++
			if !bytes.Equal(r.File, recording) {
				t.Errorf("transcribed %d bytes, want the recording", len(r.File))
			}
		case "/v1/audio/speech":
			tts++
			if r.JSON["response_format"] != "opus" || r.JSON["voice"] != "alloy" {
				t.Errorf("speech request %+v", r.JSON)
			}
		}
	}
	if stt != 1 || tts != 1 {
		t.Fatalf("%d transcriptions and %d syntheses, want 1 and 1", stt, tts)
	}

	// A stranger (not in allowFrom) sends a voice note: the gate answers
	// with a pairing code, and no provider is called.
	mallory := telegramtest.User{ID: 6666, Username: "mallory", FirstName: "Mallory"}
	tg.AddVoice(mallory, telegramtest.Voice{Bytes: recording})
	waitSentWhere(t, tg, "with the stranger's pairing code", func(m telegramtest.Message) bool {
		return m.ChatID == "6666" && strings.Contains(m.Text, "pairing code")
	})
	if n := len(speech.Requests()); n != 2 {
		t.Fatalf("%d provider calls after the stranger's voice note, want still 2", n)
	}

	// The key is in no log or output.
	out := g.proc.report()
	logs, _ := os.ReadFile(filepath.Join(g.StateDir, "logs", "gateway.log"))
	if strings.Contains(out, speechtest.Key) || strings.Contains(string(logs), speechtest.Key) {
		t.Error("the speech provider key appears in the gateway's output or log")
	}
}
