package channels

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/speech"
	"github.com/openclaw-go/openclaw/speech/speechtest"
)

// voiceHarness is a manager on one account whose adapter can fetch
// media, with the speech providers faked.
type voiceHarness struct {
	ad      *mediaAdapter
	agent   *echoAgent
	fake    *speechtest.Server
	ws      string
	got     chan Dispatch
	logs    *syncBuffer
	manager *Manager
}

// syncBuffer is a log sink tests read while the manager writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newVoiceHarness(t *testing.T, policy AccountPolicy, voiceNotes bool, tune func(cfg *config.Config, fake *speechtest.Server)) *voiceHarness {
	t.Helper()
	h := &voiceHarness{ws: t.TempDir(), fake: speechtest.New(t), got: make(chan Dispatch, 10), logs: &syncBuffer{}}
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h.ad = &mediaAdapter{memAdapter: newMem(), files: map[string]string{}}
	h.agent = &echoAgent{reply: func(d Dispatch) string { h.got <- d; return "Here is a reply worth speaking aloud." }}
	net := Network{Name: "telegram", Label: "Telegram", VoiceNotes: voiceNotes, Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "v",
			Policy: policy, New: func() (Adapter, error) { return h.ad, nil }}}
	}}
	cfg := &config.Config{}
	cfg.Models.Providers = map[string]config.ModelProvider{"openai": {APIKey: config.SecretInput{Value: speechtest.Key}}}
	cfg.Tools.Media.Audio.BaseURL = h.fake.OpenAIBase()
	if tune != nil {
		tune(cfg, h.fake)
	}
	m := New(cfg, Options{Store: st, Dispatcher: h.agent, Networks: []Network{net}, Log: slog.New(slog.NewTextHandler(h.logs, nil)),
		Speech:       &speech.Client{Getenv: func(string) string { return "" }},
		DefaultAgent: func(*config.Config) string { return "main" },
		Workspace:    func(string) (string, error) { return h.ws, nil }})
	m.Start(context.Background())
	t.Cleanup(func() { m.Close(context.Background()) })
	h.manager = m
	return h
}

func speakAlways(cfg *config.Config, fake *speechtest.Server) {
	cfg.TTS.Auto = "always"
	cfg.TTS.Providers = map[string]config.TTSProvider{"openai": {APIKey: config.SecretInput{Value: speechtest.Key}, BaseURL: fake.OpenAIBase()}}
}

var openPolicy = AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}

func voiceFrom(event, sender, fileID string) Inbound {
	in := dmFrom(event, sender, "")
	in.Media = []Media{{Kind: "voice", FileID: fileID, MIME: "audio/ogg", Size: 4096}}
	return in
}

// TestVoiceNoteTranscribed: an inbound voice note reaches the agent as its
// transcript, and the provider got the recording.
func TestVoiceNoteTranscribed(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, nil)
	h.fake.SetTranscript("what is the weather tomorrow")
	audio := "OggS" + strings.Repeat("\x01", 4000)
	h.ad.files["v1"] = audio
	h.ad.push(t, voiceFrom("1", "42", "v1"))
	d := <-h.got
	if !strings.Contains(d.Text, "Transcript:\nwhat is the weather tomorrow") {
		t.Fatalf("agent saw %q", d.Text)
	}
	reqs := h.fake.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/audio/transcriptions" || string(reqs[0].File) != audio {
		t.Fatalf("provider got %+v", reqs)
	}
	h.ad.waitSent(t, 1)
}

// TestStrangerVoiceNotTranscribed performs the spending attack: a sender
// the DM policy does not admit sends a voice note; it is neither
// downloaded nor transcribed, and the stranger gets only a pairing code.
func TestStrangerVoiceNotTranscribed(t *testing.T) {
	h := newVoiceHarness(t, AccountPolicy{DMPolicy: "pairing"}, true, speakAlways)
	h.ad.files["v1"] = "OggS" + strings.Repeat("\x01", 4000)
	h.ad.push(t, voiceFrom("1", "666", "v1"))
	got := h.ad.waitSent(t, 1)
	if len(got[0].Attachments) != 0 || !strings.Contains(strings.ToLower(got[0].Text), "pair") {
		t.Fatalf("stranger got %+v", got[0])
	}
	if reqs := h.fake.Requests(); len(reqs) != 0 {
		t.Fatalf("the stranger's voice cost %d provider calls: %+v", len(reqs), reqs)
	}
	if files, _ := filepath.Glob(filepath.Join(h.ws, "inbox", "*", "*")); len(files) != 0 {
		t.Errorf("the stranger's voice was saved: %v", files)
	}
}

// endless is a download that never ends (mediaAdapter serves it as the
// file "endless").
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestEndlessVoiceDownloadCut performs the endless-download attack: a
// voice note whose body never ends is cut at the media cap, nothing is
// kept and nothing is sent to the provider.
func TestEndlessVoiceDownloadCut(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, func(cfg *config.Config, _ *speechtest.Server) { cfg.Agents.Defaults.MediaMaxMb = 1 })
	h.ad.push(t, voiceFrom("1", "42", "endless"))
	d := <-h.got
	if strings.Contains(d.Text, "Transcript") || !strings.Contains(d.Text, "not saved: larger than 1 MB") {
		t.Fatalf("agent saw %q", d.Text)
	}
	if files, _ := filepath.Glob(filepath.Join(h.ws, "inbox", "*", "*")); len(files) != 0 {
		t.Errorf("the cut download was kept: %v", files)
	}
	if reqs := h.fake.Requests(); len(reqs) != 0 {
		t.Fatalf("%d provider calls", len(reqs))
	}
}

// TestReplySpokenAsVoiceNote: with tts.auto "always" the reply is sent as
// text and then as a voice note in Ogg/Opus, asked of the provider as
// opus.
func TestReplySpokenAsVoiceNote(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, speakAlways)
	h.ad.push(t, dmFrom("1", "42", "talk to me"))
	<-h.got
	got := h.ad.waitSent(t, 2)
	if got[0].Text != "Here is a reply worth speaking aloud." || len(got[0].Attachments) != 0 {
		t.Errorf("text message %+v", got[0])
	}
	at := got[1].Attachments
	if len(at) != 1 || !at[0].Voice || at[0].MIME != "audio/ogg" || got[1].Text != "" {
		t.Fatalf("voice message %+v", got[1])
	}
	b, err := os.ReadFile(at[0].Path)
	if err != nil || !bytes.Equal(b, speechtest.OggBytes) {
		t.Errorf("voice file %q: %v", at[0].Path, err)
	}
	reqs := h.fake.Requests()
	if len(reqs) != 1 || reqs[0].JSON["response_format"] != "opus" || reqs[0].JSON["input"] != "Here is a reply worth speaking aloud." {
		t.Errorf("provider got %+v", reqs)
	}
}

// TestReplyAudioFileWithoutVoiceNotes: a network without voice messages
// gets an MP3 file.
func TestReplyAudioFileWithoutVoiceNotes(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, false, speakAlways)
	h.ad.push(t, dmFrom("1", "42", "talk to me"))
	<-h.got
	got := h.ad.waitSent(t, 2)
	if at := got[1].Attachments; len(at) != 1 || at[0].Voice || at[0].MIME != "audio/mpeg" {
		t.Fatalf("audio message %+v", got[1])
	}
}

// TestInboundModeSpeaksOnlyAfterVoice: tts.auto "inbound" answers a voice
// note with a voice note and a text message with text.
func TestInboundModeSpeaksOnlyAfterVoice(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, func(cfg *config.Config, fake *speechtest.Server) {
		speakAlways(cfg, fake)
		cfg.TTS.Auto = "inbound"
	})
	h.ad.push(t, dmFrom("1", "42", "typed"))
	<-h.got
	if got := h.ad.waitSent(t, 1); len(got[0].Attachments) != 0 {
		t.Fatalf("a typed message got %+v", got[0])
	}
	h.ad.files["v2"] = "OggS" + strings.Repeat("\x01", 4000)
	h.ad.push(t, voiceFrom("2", "42", "v2"))
	<-h.got
	got := h.ad.waitSent(t, 2)
	if at := got[1].Attachments; len(at) != 1 || !at[0].Voice {
		t.Fatalf("a voice note got %+v", got)
	}
}

// TestVoiceReplyQuotaFallsBackToText: a provider out of quota leaves the
// text reply alone.
func TestVoiceReplyQuotaFallsBackToText(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, speakAlways)
	h.fake.Fail(429, speechtest.OpenAIQuotaBody)
	h.ad.push(t, dmFrom("1", "42", "talk to me"))
	<-h.got
	got := h.ad.waitSent(t, 1)
	if got[0].Text != "Here is a reply worth speaking aloud." {
		t.Fatalf("got %+v", got[0])
	}
	logs := h.logs.String()
	if !strings.Contains(logs, "out of quota or credit") || strings.Contains(logs, speechtest.Key) {
		t.Errorf("logs:\n%s", logs)
	}
}

// TestTranscriptionQuotaToldToAgent: a transcription refused for quota
// reaches the agent as a plain note, not a silent drop, and never with
// the key.
func TestTranscriptionQuotaToldToAgent(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, nil)
	h.fake.Fail(429, speechtest.OpenAIQuotaBody)
	h.ad.files["v1"] = "OggS" + strings.Repeat("\x01", 4000)
	h.ad.push(t, voiceFrom("1", "42", "v1"))
	d := <-h.got
	if !strings.Contains(d.Text, "not transcribed: openai transcription: out of quota or credit") || strings.Contains(d.Text, speechtest.Key) {
		t.Fatalf("agent saw %q", d.Text)
	}
}

// TestSendVoiceTool: the tts tool's path queues a voice message to the
// chat, and refuses text over tts.maxTextLength before any provider call
// (a prompt-injected model cannot make the gateway read a novel aloud).
func TestSendVoiceTool(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, func(cfg *config.Config, fake *speechtest.Server) {
		speakAlways(cfg, fake)
		cfg.TTS.Auto = "off" // the tool speaks whatever auto says
		cfg.TTS.MaxTextLength = 200
	})
	m := h.manager
	res, err := m.SendVoice(context.Background(), VoiceRequest{Channel: "telegram", To: Target{ChatID: "42"}, AgentID: "main",
		Text: "Spoken on request.", IdempotencyKey: "tool-1"})
	if err != nil {
		t.Fatal(err)
	}
	got := h.ad.waitSent(t, 1)
	if at := got[0].Attachments; len(at) != 1 || !at[0].Voice || res.ChatID != "42" {
		t.Fatalf("sent %+v (%+v)", got[0], res)
	}
	if _, err := m.SendVoice(context.Background(), VoiceRequest{Channel: "telegram", To: Target{ChatID: "42"}, AgentID: "main",
		Text: strings.Repeat("a", 201), IdempotencyKey: "tool-2"}); !errors.Is(err, speech.ErrTooLarge) {
		t.Fatalf("over-long text: %v", err)
	}
	if n := len(h.fake.Requests()); n != 1 {
		t.Errorf("%d provider calls, want 1", n)
	}
}

// TestTranscriptEcho: with echoTranscript the chat sees what was heard,
// in echoFormat, besides the reply.
func TestTranscriptEcho(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, func(cfg *config.Config, _ *speechtest.Server) {
		cfg.Tools.Media.Audio.EchoTranscript = true
		cfg.Tools.Media.Audio.EchoFormat = "heard: {transcript}"
	})
	h.fake.SetTranscript("call mum")
	h.ad.files["v1"] = "OggS" + strings.Repeat("\x01", 4000)
	h.ad.push(t, voiceFrom("1", "42", "v1"))
	<-h.got
	var texts []string
	for _, o := range h.ad.waitSent(t, 2) {
		texts = append(texts, o.Text)
	}
	if !slices.Contains(texts, "heard: call mum") {
		t.Fatalf("sent %q", texts)
	}
}

// TestOutboxPruned: generated audio older than a week is removed when new
// audio is saved; today's stays.
func TestOutboxPruned(t *testing.T) {
	ws := t.TempDir()
	old := filepath.Join(ws, "outbox", "2020-01-02")
	if err := os.MkdirAll(old, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(old, "voice.ogg"), []byte("x"), 0o600)
	rel, err := saveOutbound(ws, "voice-1.ogg", []byte("OggS"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("old outbox folder kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, rel)); err != nil {
		t.Errorf("new audio gone: %v", err)
	}
}

// TestReplySpokenByLocalProgram: tts.provider "tts-local-cli" speaks a
// reply with a program on this machine (given the text as one argument,
// writing the file it is told): the chat gets the program's Ogg/Opus as
// a voice note.
func TestReplySpokenByLocalProgram(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "speak.sh")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nprintf 'OggS%s' \"$2\" > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newVoiceHarness(t, openPolicy, true, func(cfg *config.Config, _ *speechtest.Server) {
		cfg.TTS.Auto, cfg.TTS.Provider = "always", "tts-local-cli"
		cfg.TTS.Providers = map[string]config.TTSProvider{"tts-local-cli": {Command: prog, Args: []string{"{{OutputPath}}", "{{Text}}"}, OutputFormat: "opus"}}
	})
	h.ad.push(t, dmFrom("1", "42", "talk to me"))
	<-h.got
	got := h.ad.waitSent(t, 2)
	at := got[1].Attachments
	if len(at) != 1 || !at[0].Voice || at[0].MIME != "audio/ogg" {
		t.Fatalf("voice message %+v", got[1])
	}
	if b, err := os.ReadFile(at[0].Path); err != nil || string(b) != "OggSHere is a reply worth speaking aloud." {
		t.Errorf("voice file %q: %v", b, err)
	}
	if reqs := h.fake.Requests(); len(reqs) != 0 {
		t.Errorf("a remote provider was called: %+v", reqs)
	}
}
