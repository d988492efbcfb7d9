package config

import (
	"strings"
	"testing"
)

// TestTTSKeys: the tts section decodes in OpenClaw's shape, an agent's
// block deep-merges over it, and what does not speak here says so.
func TestTTSKeys(t *testing.T) {
	src := `{
  tts: {
    auto: "inbound", provider: "openai", maxTextLength: 2000, persona: "alfred",
    providers: {
      openai: { apiKey: "${OPENAI_API_KEY}", speakerVoice: "alloy", model: "gpt-4o-mini-tts" },
      elevenlabs: { apiKey: "el-key", voiceSettings: { stability: 0.4, useSpeakerBoost: false } },
      microsoft: { lang: "en-US" },
    },
  },
  agents: { entries: { main: {}, reader: { tts: { auto: "always", providers: { openai: { speakerVoice: "shimmer" } } } } } },
  tools: { media: {
    models: [{ provider: "openai", model: "gpt-4o-mini-transcribe", capabilities: ["audio"] }, { type: "cli", command: "whisper" }],
    audio: { enabled: true, maxBytes: 1048576, language: "de" },
  } },
}`
	snap, errs, warns := parseTest(t, src, map[string]string{"OPENAI_API_KEY": "sk-test"})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	c := snap.Config
	if !c.TTS.Configured() || c.TTS.AutoMode() != "inbound" || c.TTS.MaxTextLength != 2000 {
		t.Errorf("tts %+v", c.TTS)
	}
	if k := c.TTS.Providers["openai"].APIKey.Value; k != "sk-test" {
		t.Errorf("openai key %q", k)
	}
	if vs := c.TTS.Providers["elevenlabs"].VoiceSettings; !vs.Configured() || vs.Stability != 0.4 || vs.UseSpeakerBoost == nil || *vs.UseSpeakerBoost {
		t.Errorf("voiceSettings %+v", vs)
	}
	r := c.TTSFor("reader")
	if r.AutoMode() != "always" || r.Providers["openai"].SpeakerVoice != "shimmer" || r.Providers["openai"].APIKey.Value != "sk-test" || r.MaxTextLength != 2000 {
		t.Errorf("reader's tts %+v", r)
	}
	if c.TTS.Providers["openai"].SpeakerVoice != "alloy" {
		t.Error("merging an agent's tts changed the global section")
	}
	if m := c.TTSFor("main"); m.AutoMode() != "inbound" || m.Providers["openai"].SpeakerVoice != "alloy" {
		t.Errorf("main's tts %+v", m)
	}
	if a := c.Tools.Media.Audio; a.MaxBytes != 1048576 || a.Language != "de" || !c.Tools.Media.Models[0].HandlesAudio() || c.Tools.Media.Models[1].HandlesAudio() {
		t.Errorf("media %+v", c.Tools.Media)
	}
	for _, want := range []string{
		`tts.persona: persona "alfred" is not in tts.personas: replies speak without a persona`,
		`tts.providers.microsoft: provider "microsoft" is not in effect here`,
		`tools.media.models[1]: is not in effect here: CLI media models are not run`,
	} {
		if !strings.Contains(strings.Join(warns, "\n"), want) {
			t.Errorf("no warning %q in\n%s", want, strings.Join(warns, "\n"))
		}
	}
}

// TestTTSLegacyEnabled: the older enabled switch means auto "always".
func TestTTSLegacyEnabled(t *testing.T) {
	snap, errs, _ := parseTest(t, `{ tts: { enabled: true } }`, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := snap.Config.TTS.AutoMode(); got != "always" {
		t.Errorf("auto %q", got)
	}
	snap, _, _ = parseTest(t, `{ tts: { enabled: true, auto: "tagged" } }`, nil)
	if got := snap.Config.TTS.AutoMode(); got != "tagged" {
		t.Errorf("auto %q, want auto to win", got)
	}
}

// TestTTSPersonas: the persona in effect (a /tts persona choice, else
// tts.persona, any case) brings its provider and lays its provider
// settings over tts.providers; fallbackPolicy "fail" lets only the
// providers it has settings for speak.
func TestTTSPersonas(t *testing.T) {
	src := `{tts: {provider: "openai", persona: "Narrator",
  providers: {openai: {apiKey: "sk-1", speakerVoice: "alloy"}, elevenlabs: {apiKey: "el-1", model: "eleven_multilingual_v2"}},
  personas: {
    narrator: {label: "Narrator", provider: "elevenlabs", providers: {elevenlabs: {speakerVoiceId: "EXAVITQu4vr4xnSDxMaL"}}},
    strict: {fallbackPolicy: "fail", providers: {elevenlabs: {speakerVoiceId: "v2"}}},
  }}}`
	snap, errs, warns := parseTest(t, src, nil)
	if len(errs)+len(warns) > 0 {
		t.Fatalf("errors %v, warnings %v", errs, warns)
	}
	tts := snap.Config.TTS
	n := tts.WithPersona("")
	if n.Persona != "narrator" || n.Provider != "elevenlabs" || n.Providers["elevenlabs"].SpeakerVoiceID != "EXAVITQu4vr4xnSDxMaL" ||
		n.Providers["elevenlabs"].APIKey.Value != "el-1" || n.Providers["elevenlabs"].Model != "eleven_multilingual_v2" {
		t.Errorf("narrator: %+v", n)
	}
	if tts.Providers["elevenlabs"].SpeakerVoiceID != "" {
		t.Error("the persona's settings leaked into tts.providers")
	}
	s := tts.WithPersona("STRICT")
	if s.Provider != "openai" || s.PersonaAllows("openai") || !s.PersonaAllows("elevenlabs") {
		t.Errorf("strict: provider %q, allows openai %v, elevenlabs %v", s.Provider, s.PersonaAllows("openai"), s.PersonaAllows("elevenlabs"))
	}
	if off := tts.WithPersona("nobody"); off.Persona != "" || off.Provider != "openai" || !off.PersonaAllows("openai") {
		t.Errorf("an unknown persona: %+v", off)
	}
}
