package agents

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// fakeTTS is a TTSSwitch in memory.
type fakeTTS struct {
	mu       sync.Mutex
	auto     string
	provider string
	changes  int
}

func (f *fakeTTS) TTSStatus(ctx context.Context) (TTSStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return TTSStatus{Auto: f.auto, Provider: f.provider, Configured: []string{"openai"}}, nil
}

func (f *fakeTTS) SetTTSEnabled(ctx context.Context, on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes++
	f.auto = "off"
	if on {
		f.auto = "always"
	}
	return nil
}

func (f *fakeTTS) SetTTSProvider(ctx context.Context, id string) (string, error) {
	if id != "openai" && id != "elevenlabs" {
		return "", errors.New("provider " + id + " does not speak here")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes++
	f.provider = id
	return id, nil
}

func (f *fakeTTS) SetTTSLimit(ctx context.Context, n int) error {
	if n < 100 || n > 4096 {
		return errors.New("limit is outside 100-4096 characters")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes++
	return nil
}

func (f *fakeTTS) SetTTSPersona(ctx context.Context, id string) (string, error) {
	if id != "off" {
		return "", errors.New("persona " + id + " is not configured")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes++
	return "", nil
}

// TestTTSCommand: /tts reads for any admitted sender and changes the
// gateway-wide preference only for the owner or a gateway client; a chat
// stranger's /tts off changes nothing for anyone (the attack), and the
// model never sees the command.
func TestTTSCommand(t *testing.T) {
	operator := &CommandSender{ID: "operator:cli", Operator: true}
	stranger := &CommandSender{ID: "telegram:666"}
	owner := &CommandSender{ID: "telegram:1"}
	cases := []struct {
		name    string
		msg     string
		sender  *CommandSender
		owner   bool
		want    string
		auto    string // the preference afterwards
		changes int
	}{
		{"status by a stranger", "/tts", stranger, false, "Text-to-speech: always (config tts.auto)", "always", 0},
		{"status word", "/tts status", stranger, false, "Provider: openai", "always", 0},
		{"stranger off", "/tts off", stranger, false, "Only the owner may change", "always", 0},
		{"stranger provider", "/tts provider elevenlabs", stranger, false, "Only the owner may change", "always", 0},
		{"stranger persona", "/tts persona off", stranger, false, "Only the owner may change", "always", 0},
		{"owner off", "/tts off", owner, true, "Text-to-speech is off", "off", 1},
		{"owner on, any case", "/TTS ON", owner, true, "Text-to-speech is on", "always", 1},
		{"operator off", "/tts off", operator, false, "Text-to-speech is off", "off", 1},
		{"owner provider", "/tts provider ElevenLabs", owner, true, "spoken with elevenlabs", "always", 1},
		{"owner bad provider", "/tts provider espeak", owner, true, "Provider not changed: provider espeak does not speak here", "always", 0},
		{"owner persona off", "/tts persona off", owner, true, "Speech persona cleared.", "always", 1},
		{"owner persona unknown", "/tts persona narrator", owner, true, "Persona not changed", "always", 0},
		{"stranger limit", "/tts limit 200", stranger, false, "Only the owner may change", "always", 0},
		{"owner limit", "/tts limit 2000", owner, true, "cut at 2000 characters", "always", 1},
		{"owner limit out of range", "/tts limit 50", owner, true, "Limit not changed: limit is outside 100-4096", "always", 0},
		{"owner limit not a number", "/tts limit lots", owner, true, "Usage: /tts limit", "always", 0},
		{"summary", "/tts summary off", stranger, false, "never summarized", "always", 0},
		{"unsupported", "/tts chat on", owner, true, "/tts chat is not supported", "always", 0},
		{"nonsense", "/tts loudly", owner, true, "Usage: /tts on|off|status", "always", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", nil)
			tts := &fakeTTS{auto: "always", provider: "openai"}
			f.svc.UseTTS(tts)
			res := f.run(t, StartRequest{Message: tc.msg, Commands: tc.sender, Owner: tc.owner})
			if n := len(f.model.Requests()); n != 0 {
				t.Fatalf("%q reached the model (%d calls)", tc.msg, n)
			}
			if !strings.Contains(res.Text, tc.want) {
				t.Errorf("%q answered %q, want %q in it", tc.msg, res.Text, tc.want)
			}
			if tts.auto != tc.auto || tts.changes != tc.changes {
				t.Errorf("after %q: auto %q with %d changes, want %q with %d", tc.msg, tts.auto, tts.changes, tc.auto, tc.changes)
			}
		})
	}
}

// TestTTSCommandWithoutSpeech: a gateway without speech says so.
func TestTTSCommandWithoutSpeech(t *testing.T) {
	f := newFixture(t, "", nil)
	res := f.run(t, StartRequest{Message: "/tts on", Commands: &CommandSender{ID: "telegram:1"}, Owner: true})
	if !strings.Contains(res.Text, "not available") {
		t.Fatalf("answer %q", res.Text)
	}
}

// TestStatusShowsTTS: /status tells the speech mode when replies are
// spoken, and says nothing of it when they are not.
func TestStatusShowsTTS(t *testing.T) {
	for _, tc := range []struct {
		auto string
		want bool
	}{{"always", true}, {"inbound", true}, {"off", false}} {
		t.Run(tc.auto, func(t *testing.T) {
			f := newFixture(t, "", nil)
			f.svc.UseTTS(&fakeTTS{auto: tc.auto, provider: "openai"})
			res := f.run(t, StartRequest{Message: "/status", Commands: &CommandSender{ID: "telegram:1"}})
			if got := strings.Contains(res.Text, "TTS: "+tc.auto+" · provider openai"); got != tc.want {
				t.Fatalf("/status with tts %s:\n%s", tc.auto, res.Text)
			}
		})
	}
}

// TestTTSAudioCommand: /tts audio hands its text, as written, to the
// channel to say once, for any admitted sender, without touching the
// preference; a gateway client, which has no chat to speak into, is
// pointed at the methods instead.
func TestTTSAudioCommand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sender *CommandSender
		msg    string
		speak  string
		want   string
	}{
		{"chat sender", &CommandSender{ID: "telegram:666"}, "/tts audio Hello there, Friend", "Hello there, Friend", "Speaking that once"},
		{"no text", &CommandSender{ID: "telegram:666"}, "/tts audio", "", "Usage: /tts audio <text>"},
		{"operator", &CommandSender{ID: "operator:cli", Operator: true}, "/tts audio Hello there", "", "use tts.speak or tts.convert"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", nil)
			tts := &fakeTTS{auto: "off", provider: "openai"}
			f.svc.UseTTS(tts)
			res := f.run(t, StartRequest{Message: tc.msg, Commands: tc.sender})
			if res.Speak != tc.speak || !strings.Contains(res.Text, tc.want) || !res.Command {
				t.Fatalf("%q: speak %q, answer %q (command %v)", tc.msg, res.Speak, res.Text, res.Command)
			}
			if tts.changes != 0 || len(f.model.Requests()) != 0 {
				t.Fatalf("%q changed the preference (%d) or reached the model (%d)", tc.msg, tts.changes, len(f.model.Requests()))
			}
		})
	}
}

// TestTTSLatestCommand: /tts latest hands the session's last reply to
// the channel to say once; before any reply it says there is none.
func TestTTSLatestCommand(t *testing.T) {
	f := newFixture(t, "", nil)
	f.svc.UseTTS(&fakeTTS{auto: "off", provider: "openai"})
	chat := &CommandSender{ID: "telegram:42"}
	if res := f.run(t, StartRequest{Message: "/tts latest", Commands: chat}); res.Speak != "" || !strings.Contains(res.Text, "no reply in this session") {
		t.Fatalf("before any reply: speak %q, answer %q", res.Speak, res.Text)
	}
	reply := f.run(t, StartRequest{Message: "say something worth hearing"})
	res := f.run(t, StartRequest{Message: "/tts latest", Commands: chat})
	if res.Speak == "" || res.Speak != reply.Text || !strings.Contains(res.Text, "Speaking the latest reply") {
		t.Fatalf("speak %q (reply was %q), answer %q", res.Speak, reply.Text, res.Text)
	}
}
