package channels

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/speech/speechtest"
)

// TestTTSPrefsOverConfig: the stored preference (tts.enable, tts.disable,
// /tts on|off) decides whether replies are spoken, over tts.auto.
func TestTTSPrefsOverConfig(t *testing.T) {
	for _, tc := range []struct {
		name   string
		auto   string // tts.auto in the config
		enable *bool  // the preference set before the message; nil for none
		spoken bool
	}{
		{"config always, no preference", "always", nil, true},
		{"config always, disabled", "always", new(false), false},
		{"config off, enabled", "off", new(true), true},
		{"config off, no preference", "off", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newVoiceHarness(t, openPolicy, true, func(cfg *config.Config, fake *speechtest.Server) {
				speakAlways(cfg, fake)
				cfg.TTS.Auto = tc.auto
			})
			if tc.enable != nil {
				if err := h.manager.SetTTSEnabled(context.Background(), *tc.enable); err != nil {
					t.Fatal(err)
				}
			}
			h.ad.push(t, dmFrom("1", "42", "talk to me"))
			<-h.got
			want := 1
			if tc.spoken {
				want = 2
			}
			got := h.ad.waitSent(t, want)
			// The voice note is synthesized before the text goes out, so
			// by now the provider has been asked if it ever will be.
			if n := len(h.fake.Requests()); (n > 0) != tc.spoken {
				t.Fatalf("provider asked %d times, sent %+v", n, got)
			}
			if tc.spoken && (len(got[1].Attachments) != 1 || !got[1].Attachments[0].Voice) {
				t.Fatalf("voice message %+v", got[1])
			}
		})
	}
}

// TestTTSProviderPreference: a preferred provider is used for replies and
// refused when it does not speak here; the cached preference changes only
// with a stored one.
func TestTTSProviderPreference(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, speakAlways)
	ctx := context.Background()
	for _, tc := range []struct {
		id, want string
		ok       bool
	}{
		{"ElevenLabs", "elevenlabs", true},
		{"espeak", "elevenlabs", false},
		{"openai", "openai", true},
	} {
		_, err := h.manager.SetTTSProvider(ctx, tc.id)
		if (err == nil) != tc.ok {
			t.Fatalf("SetTTSProvider(%q) = %v", tc.id, err)
		}
		st, err := h.manager.TTSState(ctx)
		if err != nil || st.Provider != tc.want {
			t.Fatalf("after %q: %+v, %v", tc.id, st, err)
		}
	}
}

// TestTTSLimitCutsSpokenReplies: /tts limit moves where a spoken reply is
// cut, within 100-4096 characters; the text shown is never cut.
func TestTTSLimitCutsSpokenReplies(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, speakAlways)
	ctx := context.Background()
	for _, n := range []int{99, 4097, -1} {
		if err := h.manager.SetTTSLimit(ctx, n); !errors.Is(err, ErrTTSChoice) {
			t.Fatalf("SetTTSLimit(%d) = %v, want ErrTTSChoice", n, err)
		}
	}
	if err := h.manager.SetTTSLimit(ctx, 120); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("Every word here is worth hearing. ", 20)
	h.agent.reply = func(d Dispatch) string { h.got <- d; return long }
	h.ad.push(t, dmFrom("1", "42", "talk at length"))
	<-h.got
	got := h.ad.waitSent(t, 2)
	reqs := h.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("provider got %d requests", len(reqs))
	}
	if in := fmt.Sprint(reqs[0].JSON["input"]); len([]rune(in)) > 120 || len(in) < 60 {
		t.Fatalf("spoken %d characters: %q", len([]rune(in)), in)
	}
	if !strings.Contains(got[0].Text, strings.TrimSpace(long)[:200]) {
		t.Fatalf("the shown text was cut: %q", got[0].Text)
	}
	if st, err := h.manager.TTSState(ctx); err != nil || st.MaxLength != 120 {
		t.Fatalf("state %+v, %v", st, err)
	}
}

// TestTTSPersonaPreference: /tts persona picks a configured persona (any
// case), whose settings then reach the provider; an unknown one is
// refused with the personas there are, and off clears the choice.
func TestTTSPersonaPreference(t *testing.T) {
	h := newVoiceHarness(t, openPolicy, true, func(cfg *config.Config, fake *speechtest.Server) {
		speakAlways(cfg, fake)
		cfg.TTS.Personas = map[string]config.TTSPersona{"butler": {Providers: map[string]config.TTSProvider{"openai": {SpeakerVoice: "cedar"}}}}
	})
	ctx := context.Background()
	if _, err := h.manager.SetTTSPersona(ctx, "pirate"); !errors.Is(err, ErrTTSChoice) || !strings.Contains(err.Error(), "butler") {
		t.Fatalf("unknown persona: %v", err)
	}
	if id, err := h.manager.SetTTSPersona(ctx, "Butler"); err != nil || id != "butler" {
		t.Fatalf("SetTTSPersona = %q, %v", id, err)
	}
	h.ad.push(t, dmFrom("1", "42", "talk to me"))
	<-h.got
	h.ad.waitSent(t, 2)
	reqs := h.fake.Requests()
	if len(reqs) != 1 || reqs[0].JSON["voice"] != "cedar" {
		t.Fatalf("provider got %+v, want the persona's voice", reqs)
	}
	if id, err := h.manager.SetTTSPersona(ctx, "off"); err != nil || id != "" {
		t.Fatalf("clear: %q, %v", id, err)
	}
}
