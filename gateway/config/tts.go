package config

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

func (t *TTS) markPresent() { t.present = true }

// Configured reports whether the section appears in the file.
func (t TTS) Configured() bool { return t.present }

// Configured reports whether voiceSettings appears in the file.
func (v TTSVoiceSettings) Configured() bool { return v.present }

func (v *TTSVoiceSettings) markPresent() { v.present = true }

// TTSProviders are the speech providers this gateway speaks through, in
// the order a missing tts.provider is chosen.
var TTSProviders = []string{"openai", "elevenlabs", "tts-local-cli"}

// Defaults of the tts section.
const (
	DefaultTTSMaxTextLength = 4096
	DefaultTTSTimeoutMs     = 30000
)

// AutoMode is the effective tts.auto: auto, else the legacy enabled, else
// "off".
func (t TTS) AutoMode() string {
	if t.Auto != "" {
		return t.Auto
	}
	if t.Enabled {
		return "always"
	}
	return "off"
}

// TTSFor is the tts section in effect for agentID's replies: tts with the
// agent's own tts block deep-merged over it (the agent's keys win, its
// provider blocks merge key by key into the global ones, so credentials
// may stay global).
func (c *Config) TTSFor(agentID string) TTS {
	out := c.TTS
	out.Providers = maps.Clone(c.TTS.Providers)
	a, ok := c.Agent(agentID)
	if !ok || !a.TTS.present {
		return out
	}
	o := a.TTS
	out.present = true
	out.Auto = cmp.Or(o.Auto, out.Auto)
	if o.Auto == "" && o.Enabled {
		out.Auto, out.Enabled = "always", true
	}
	out.Mode = cmp.Or(o.Mode, out.Mode)
	out.Provider = cmp.Or(o.Provider, out.Provider)
	out.MaxTextLength = cmp.Or(o.MaxTextLength, out.MaxTextLength)
	out.TimeoutMs = cmp.Or(o.TimeoutMs, out.TimeoutMs)
	if o.ModelOverrides.Enabled != nil {
		out.ModelOverrides.Enabled = o.ModelOverrides.Enabled
	}
	out.ModelOverrides.AllowProvider = out.ModelOverrides.AllowProvider || o.ModelOverrides.AllowProvider
	out.Persona = cmp.Or(o.Persona, out.Persona)
	if len(o.Personas) > 0 {
		out.Personas = maps.Clone(out.Personas)
		if out.Personas == nil {
			out.Personas = map[string]TTSPersona{}
		}
		maps.Copy(out.Personas, o.Personas)
	}
	if out.Providers == nil && len(o.Providers) > 0 {
		out.Providers = map[string]TTSProvider{}
	}
	for id, p := range o.Providers {
		out.Providers[id] = mergeTTSProvider(out.Providers[id], p)
	}
	return out
}

func mergeTTSProvider(base, o TTSProvider) TTSProvider {
	if o.APIKey.Value != "" || o.APIKey.Ref != nil || len(o.APIKey.Unresolved) > 0 {
		base.APIKey = o.APIKey
	}
	base.BaseURL = cmp.Or(o.BaseURL, base.BaseURL)
	base.Model = cmp.Or(o.Model, base.Model)
	base.ModelID = cmp.Or(o.ModelID, base.ModelID)
	base.SpeakerVoice = cmp.Or(o.SpeakerVoice, base.SpeakerVoice)
	base.Voice = cmp.Or(o.Voice, base.Voice)
	base.SpeakerVoiceID = cmp.Or(o.SpeakerVoiceID, base.SpeakerVoiceID)
	base.VoiceID = cmp.Or(o.VoiceID, base.VoiceID)
	base.Instructions = cmp.Or(o.Instructions, base.Instructions)
	base.ResponseFormat = cmp.Or(o.ResponseFormat, base.ResponseFormat)
	base.Speed = cmp.Or(o.Speed, base.Speed)
	base.ApplyTextNormalization = cmp.Or(o.ApplyTextNormalization, base.ApplyTextNormalization)
	base.LanguageCode = cmp.Or(o.LanguageCode, base.LanguageCode)
	base.Seed = cmp.Or(o.Seed, base.Seed)
	if o.VoiceSettings.present {
		base.VoiceSettings = o.VoiceSettings
	}
	base.Command = cmp.Or(o.Command, base.Command)
	if o.Args != nil {
		base.Args = o.Args
	}
	base.OutputFormat = cmp.Or(o.OutputFormat, base.OutputFormat)
	base.TimeoutMs = cmp.Or(o.TimeoutMs, base.TimeoutMs)
	base.Cwd = cmp.Or(o.Cwd, base.Cwd)
	if o.Env != nil {
		base.Env = o.Env
	}
	return base
}

// persona finds a persona by id, whatever its case.
func (t TTS) persona(id string) (string, TTSPersona, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	for k, p := range t.Personas {
		if strings.ToLower(k) == id {
			return k, p, true
		}
	}
	return "", TTSPersona{}, false
}

// HasPersona reports whether id (any case) is a configured persona.
func (t TTS) HasPersona(id string) bool {
	_, _, ok := t.persona(id)
	return ok
}

// WithPersona is t as the persona pref (a /tts persona choice), else
// tts.persona, speaks it: the persona's provider over tts.provider, and
// its provider settings laid over tts.providers. An unknown or empty
// persona leaves t as it is. The caller lays a /tts provider choice over
// the result, which wins over the persona's provider.
func (t TTS) WithPersona(pref string) TTS {
	id, p, ok := t.persona(cmp.Or(pref, t.Persona))
	if !ok {
		t.Persona = ""
		return t
	}
	t.Persona = id
	if p.Provider != "" {
		t.Provider = p.Provider
	}
	if len(p.Providers) > 0 {
		base := t.Providers
		t.Providers = make(map[string]TTSProvider, len(base)+len(p.Providers))
		maps.Copy(t.Providers, base)
		for pid, over := range p.Providers {
			t.Providers[pid] = mergeTTSProvider(base[pid], over)
		}
	}
	return t
}

// PersonaAllows reports whether provider may speak for the persona in
// effect (WithPersona's): always, but under fallbackPolicy "fail" for a
// provider the persona has no settings for.
func (t TTS) PersonaAllows(provider string) bool {
	_, p, ok := t.persona(t.Persona)
	if !ok || p.FallbackPolicy != "fail" {
		return true
	}
	_, bound := p.Providers[provider]
	return bound
}

// validateTTS warns about tts settings kept without effect here.
func (d *decoder) validateTTS(c *Config) {
	check := func(prefix string, t TTS) {
		if t.Provider != "" && !slices.Contains(TTSProviders, strings.ToLower(t.Provider)) {
			n, path := d.where(prefix+".provider", prefix)
			d.warnAtPath(n, path, "provider %q is not in effect here: only %s speak, so replies stay text", t.Provider, quoteList(TTSProviders))
		}
		for _, id := range slices.Sorted(maps.Keys(t.Providers)) {
			if !slices.Contains(TTSProviders, id) {
				n, path := d.where(prefix+".providers."+id, prefix+".providers")
				d.warnAtPath(n, path, "provider %q is not in effect here: only %s speak", id, quoteList(TTSProviders))
			}
		}
		if cli, ok := t.Providers["tts-local-cli"]; ok && cli.OutputFormat != "" && !slices.Contains([]string{"mp3", "opus", "wav"}, cli.OutputFormat) {
			n, path := d.where(prefix + ".providers.tts-local-cli.outputFormat")
			d.errorAtPath(n, path, "outputFormat %q: the program's audio is \"mp3\", \"opus\" or \"wav\"", cli.OutputFormat)
		}
		if t.Persona != "" && !t.HasPersona(t.Persona) {
			n, path := d.where(prefix + ".persona")
			d.warnAtPath(n, path, "persona %q is not in %s.personas: replies speak without a persona", t.Persona, prefix)
		}
		for _, pid := range slices.Sorted(maps.Keys(t.Personas)) {
			ps := t.Personas[pid]
			if ps.Provider != "" && !slices.Contains(TTSProviders, strings.ToLower(ps.Provider)) {
				n, path := d.where(prefix + ".personas." + pid + ".provider")
				d.warnAtPath(n, path, "provider %q is not in effect here: only %s speak", ps.Provider, quoteList(TTSProviders))
			}
			for _, id := range slices.Sorted(maps.Keys(ps.Providers)) {
				if !slices.Contains(TTSProviders, id) {
					n, path := d.where(prefix + ".personas." + pid + ".providers." + id)
					d.warnAtPath(n, path, "provider %q is not in effect here: only %s speak", id, quoteList(TTSProviders))
				}
			}
		}
		if t.Mode == "all" {
			n, path := d.where(prefix+".mode", prefix)
			d.warnAtPath(n, path, `mode "all" is not in effect here: tool and block replies are not sent, so only the final reply is spoken`)
		}
	}
	check("tts", c.TTS)
	for _, id := range slices.Sorted(maps.Keys(c.Agents.Entries)) {
		if e := c.Agents.Entries[id]; e.TTS.present {
			check("agents.entries."+id+".tts", e.TTS)
		}
	}
}
