package speech_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/speech"
	"github.com/openclaw-go/openclaw/speech/speechtest"
)

func noEnv(string) string { return "" }

func ttsFor(fake *speechtest.Server, provider string) config.TTS {
	var t config.TTS
	t.Auto, t.Provider = "always", provider
	t.Providers = map[string]config.TTSProvider{
		"openai":     {APIKey: config.SecretInput{Value: speechtest.Key}, BaseURL: fake.OpenAIBase(), SpeakerVoice: "alloy"},
		"elevenlabs": {APIKey: config.SecretInput{Value: speechtest.Key}, BaseURL: fake.ElevenLabsBase(), SpeakerVoiceID: "EXAVITQu4vr4xnSDxMaL"},
	}
	return t
}

// TestSpeakWire: each provider gets its real request shape and is asked
// for Ogg/Opus when the target plays voice notes, MP3 otherwise.
func TestSpeakWire(t *testing.T) {
	for _, tc := range []struct {
		name, provider string
		voiceNote      bool
		check          func(t *testing.T, r speechtest.Request)
		want           []byte
	}{
		{"openai voice note", "openai", true, func(t *testing.T, r speechtest.Request) {
			if r.Path != "/v1/audio/speech" || r.Auth != "Bearer "+speechtest.Key || r.JSON["response_format"] != "opus" ||
				r.JSON["voice"] != "alloy" || r.JSON["model"] != speech.OpenAITTSModel || r.JSON["input"] != "Hello there, this is a test." {
				t.Errorf("request %+v", r)
			}
		}, speechtest.OggBytes},
		{"openai file", "openai", false, func(t *testing.T, r speechtest.Request) {
			if r.JSON["response_format"] != "mp3" {
				t.Errorf("format %v", r.JSON["response_format"])
			}
		}, speechtest.MP3Bytes},
		{"elevenlabs voice note", "elevenlabs", true, func(t *testing.T, r speechtest.Request) {
			if r.Path != "/v1/text-to-speech/EXAVITQu4vr4xnSDxMaL" || r.Query != "output_format=opus_48000_64" || r.Auth != speechtest.Key ||
				r.JSON["model_id"] != speech.ElevenLabsModel || r.JSON["text"] != "Hello there, this is a test." {
				t.Errorf("request %+v", r)
			}
			if strings.Contains(r.Query, speechtest.Key) || strings.Contains(r.Path, speechtest.Key) {
				t.Error("the key is in the URL")
			}
		}, speechtest.OggBytes},
		{"elevenlabs file", "elevenlabs", false, func(t *testing.T, r speechtest.Request) {
			if r.Query != "output_format=mp3_44100_128" {
				t.Errorf("query %q", r.Query)
			}
		}, speechtest.MP3Bytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := speechtest.New(t)
			c := &speech.Client{Getenv: noEnv}
			p := c.PlanReply(ttsFor(fake, tc.provider), "Hello there, this is a **test**.", false)
			if !p.Speak || p.Provider != tc.provider {
				t.Fatalf("plan %+v", p)
			}
			a, err := c.Speak(context.Background(), p, tc.voiceNote)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Data, tc.want) || a.VoiceNote != tc.voiceNote {
				t.Errorf("audio %q… voiceNote %v", a.Data[:4], a.VoiceNote)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			tc.check(t, reqs[0])
		})
	}
}

// TestProviderErrors: quota, rate and key failures are told plainly, and
// the key never shows in an error.
func TestProviderErrors(t *testing.T) {
	for _, tc := range []struct {
		name, provider string
		status         int
		body           string
		want           error
		words          string
	}{
		{"openai quota", "openai", 429, speechtest.OpenAIQuotaBody, speech.ErrQuota, "out of quota or credit"},
		{"openai rate", "openai", 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, speech.ErrRateLimited, "rate limited"},
		{"payment", "openai", 402, `{}`, speech.ErrQuota, "HTTP 402"},
		{"openai bad key echoed", "openai", 401, `{"error":{"message":"Incorrect API key provided: ` + speechtest.Key + `.","code":"invalid_api_key"}}`, speech.ErrAuth, "API key refused"},
		{"elevenlabs quota", "elevenlabs", 401, speechtest.ElevenLabsQuotaBody, speech.ErrQuota, "credits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := speechtest.New(t)
			fake.Fail(tc.status, tc.body)
			c := &speech.Client{Getenv: noEnv}
			_, err := c.Speak(context.Background(), c.PlanReply(ttsFor(fake, tc.provider), "Something worth saying aloud.", false), true)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.words) || strings.Contains(err.Error(), speechtest.Key) {
				t.Errorf("error %q", err)
			}
		})
	}
}

// TestEndlessAudioIsCut: a provider that never stops sending is cut at
// MaxAudioBytes.
func TestEndlessAudioIsCut(t *testing.T) {
	fake := speechtest.New(t)
	fake.Endless()
	c := &speech.Client{Getenv: noEnv}
	_, err := c.Speak(context.Background(), c.PlanReply(ttsFor(fake, "openai"), "Something worth saying aloud.", false), true)
	if !errors.Is(err, speech.ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
}

// TestTimeout: a provider that does not answer is given up on after
// tts.timeoutMs.
func TestTimeout(t *testing.T) {
	block := make(chan struct{})
	fake := speechtest.New(t)
	tts := ttsFor(fake, "openai")
	hang := newHangServer(t, block)
	p := tts.Providers["openai"]
	p.BaseURL = hang
	tts.Providers["openai"] = p
	tts.TimeoutMs = 50
	c := &speech.Client{Getenv: noEnv}
	_, err := c.Speak(context.Background(), c.PlanReply(tts, "Something worth saying aloud.", false), true)
	close(block)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
}

// TestTranscribe: the real multipart request, the transcript back, and
// the size and silence limits applied before any upload.
func TestTranscribe(t *testing.T) {
	fake := speechtest.New(t)
	fake.SetTranscript("  what is the weather  ")
	c := &speech.Client{Getenv: noEnv}
	cfg := &config.Config{}
	cfg.Tools.Media.Audio.BaseURL = fake.OpenAIBase()
	cfg.Tools.Media.Audio.Language = "en"
	cfg.Tools.Media.Audio.MaxBytes = 4096
	cfg.Models.Providers = map[string]config.ModelProvider{"openai": {APIKey: config.SecretInput{Value: speechtest.Key}}}
	s, ok := c.STTFor(cfg)
	if !ok {
		t.Fatal("no transcription settings")
	}
	audio := append([]byte("OggS"), make([]byte, 2000)...)
	text, err := c.Transcribe(context.Background(), s, audio, "file_12", "audio/ogg")
	if err != nil || text != "what is the weather" {
		t.Fatalf("text %q err %v", text, err)
	}
	r := fake.Requests()[0]
	if r.Path != "/v1/audio/transcriptions" || r.Fields["model"] != config.DefaultAudioModel || r.Fields["language"] != "en" ||
		r.FileName != "file_12.ogg" || !bytes.Equal(r.File, audio) || r.Auth != "Bearer "+speechtest.Key {
		t.Errorf("request %+v", r)
	}
	if _, err := c.Transcribe(context.Background(), s, make([]byte, 5000), "big.ogg", "audio/ogg"); !errors.Is(err, speech.ErrTooLarge) {
		t.Errorf("oversize: %v", err)
	}
	if text, err := c.Transcribe(context.Background(), s, make([]byte, 100), "tiny.ogg", "audio/ogg"); text != "" || err != nil {
		t.Errorf("tiny: %q %v", text, err)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests: oversize or silent audio was uploaded", n)
	}
	off := false
	cfg.Tools.Media.Audio.Enabled = &off
	if _, ok := c.STTFor(cfg); ok {
		t.Error("enabled false still transcribes")
	}
}

// TestPlanReply: auto modes, skips and directives, as OpenClaw's.
func TestPlanReply(t *testing.T) {
	fake := speechtest.New(t)
	c := &speech.Client{Getenv: noEnv}
	long := strings.Repeat("word ", 1000)
	for _, tc := range []struct {
		name, auto, reply string
		inbound           bool
		speak             bool
		visible, text     string
	}{
		{"off", "off", "A reply long enough.", false, false, "A reply long enough.", ""},
		{"always", "always", "A reply long enough.", false, true, "A reply long enough.", "A reply long enough."},
		{"short", "always", "Ok!", false, false, "Ok!", ""},
		{"code", "always", "```go\nfunc main() { println(1) }\n```", false, false, "```go\nfunc main() { println(1) }\n```", ""},
		{"inbound text", "inbound", "A reply long enough.", false, false, "A reply long enough.", ""},
		{"inbound voice", "inbound", "A reply long enough.", true, true, "A reply long enough.", "A reply long enough."},
		{"tagged none", "tagged", "A reply long enough.", false, false, "A reply long enough.", ""},
		{"tagged", "tagged", "Here you go. [[tts:speakerVoice=nova]]", false, true, "Here you go.", "Here you go."},
		{"audio only text", "tagged", "Shown.\n[[tts:text]](laughs) Spoken only.[[/tts:text]]", false, true, "Shown.", "(laughs) Spoken only."},
		{"markdown", "always", "# Title\n**Bold** and [a link](https://example.com).", false, true, "# Title\n**Bold** and [a link](https://example.com).", "Title Bold and a link."},
		{"long cut", "always", long, false, true, strings.TrimSpace(long), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tts := ttsFor(fake, "openai")
			tts.Auto = tc.auto
			p := c.PlanReply(tts, tc.reply, tc.inbound)
			if p.Speak != tc.speak || p.Visible != tc.visible {
				t.Fatalf("plan %+v", p)
			}
			if tc.text != "" && p.Text != tc.text {
				t.Errorf("spoken %q, want %q", p.Text, tc.text)
			}
			if n := len([]rune(p.Text)); n > speech.DefaultMaxLength+1 {
				t.Errorf("spoken text is %d characters", n)
			}
		})
	}
}

// TestSpeakTextBounded: the one-off path refuses text over maxTextLength
// before any call.
func TestSpeakTextBounded(t *testing.T) {
	fake := speechtest.New(t)
	c := &speech.Client{Getenv: noEnv}
	tts := ttsFor(fake, "openai")
	tts.MaxTextLength = 100
	if _, err := c.SpeakText(context.Background(), tts, strings.Repeat("x", 101), true, time.Second); !errors.Is(err, speech.ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
	if len(fake.Requests()) != 0 {
		t.Error("over-long text reached the provider")
	}
}

// TestTranscribeElevenLabs: a tools.media.models entry for elevenlabs
// sends Scribe's multipart request with the key in xi-api-key.
func TestTranscribeElevenLabs(t *testing.T) {
	fake := speechtest.New(t)
	fake.SetTranscript("hallo welt")
	c := &speech.Client{Getenv: func(k string) string {
		if k == "ELEVENLABS_API_KEY" {
			return speechtest.Key
		}
		return ""
	}}
	cfg := &config.Config{}
	cfg.Tools.Media.Models = []config.MediaModelEntry{{Provider: "elevenlabs", Capabilities: []string{"audio"}, BaseURL: fake.ElevenLabsBase()}}
	cfg.Tools.Media.Audio.Language = "de"
	s, ok := c.STTFor(cfg)
	if !ok || s.Provider != "elevenlabs" || s.Model != config.DefaultElevenLabsAudioModel {
		t.Fatalf("settings %+v %v", s, ok)
	}
	text, err := c.Transcribe(context.Background(), s, make([]byte, 3000), "voice.ogg", "audio/ogg")
	if err != nil || text != "hallo welt" {
		t.Fatalf("%q %v", text, err)
	}
	r := fake.Requests()[0]
	if r.Path != "/v1/speech-to-text" || r.Auth != speechtest.Key || r.Fields["model_id"] != "scribe_v2" || r.Fields["language_code"] != "de" {
		t.Errorf("request %+v", r)
	}
	// Without an entry, openai wins when both have keys; elevenlabs is
	// picked when only it has one.
	cfg.Tools.Media.Models = nil
	if s, ok := c.STTFor(cfg); !ok || s.Provider != "elevenlabs" || s.BaseURL != speech.ElevenLabsBaseURL {
		t.Errorf("auto: %+v %v", s, ok)
	}
	cfg.Models.Providers = map[string]config.ModelProvider{"openai": {APIKey: config.SecretInput{Value: "sk-x"}}}
	if s, _ := c.STTFor(cfg); s.Provider != "openai" {
		t.Errorf("auto with both keys: %+v", s)
	}
}
