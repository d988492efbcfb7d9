package speech

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// Auto-TTS limits, as OpenClaw's.
const (
	// minSpokenChars: shorter replies are not spoken.
	minSpokenChars = 10
	// DefaultMaxLength is where an automatic reply is cut before it is
	// spoken (OpenClaw summarizes past it when a summary model is set;
	// this gateway cuts).
	DefaultMaxLength = 1500
)

// Plan is what to do with one reply.
type Plan struct {
	// Visible is the reply to show: directives and [[tts:text]] blocks
	// taken out (always, whether it is spoken or not).
	Visible string
	// Speak says a voice note goes with the reply; Text is what it says,
	// Provider who says it.
	Speak    bool
	Text     string
	Provider string
	// Why is the reason a reply is not spoken, for logs.
	Why string

	settings config.TTSProvider
	ov       overrides
	timeout  time.Duration
}

// PlanReply decides whether reply is spoken under t (the tts section in
// effect for the agent, config.TTSFor): tts.auto, the reply's directives
// (obeyed unless modelOverrides.enabled is false), and OpenClaw's skips
// (very short replies, replies that are mostly code). inboundVoice says
// the message answered was a voice note (auto "inbound").
func (c *Client) PlanReply(t config.TTS, reply string, inboundVoice bool) Plan {
	return c.PlanReplyCut(t, reply, inboundVoice, 0)
}

// PlanReplyCut is PlanReply with replies cut at maxLength characters (the
// gateway's /tts limit) instead of DefaultMaxLength; 0 keeps the default.
// tts.maxTextLength still caps it.
func (c *Client) PlanReplyCut(t config.TTS, reply string, inboundVoice bool, maxLength int) Plan {
	visible, d := ParseDirectives(reply)
	p := Plan{Visible: visible}
	if t.ModelOverrides.Enabled != nil && !*t.ModelOverrides.Enabled {
		d = Directives{Tagged: d.Tagged, Text: d.Text}
	}
	switch t.AutoMode() {
	case "always":
	case "inbound":
		if !inboundVoice {
			p.Why = "auto inbound: the message was not a voice note"
			return p
		}
	case "tagged":
		if !d.Tagged {
			p.Why = "auto tagged: no [[tts]] directive"
			return p
		}
	default:
		p.Why = "auto off"
		return p
	}
	text := d.Text
	if text == "" {
		if codeDominated(visible) {
			p.Why = "mostly code"
			return p
		}
		text = speakable(visible)
	}
	if len([]rune(text)) < minSpokenChars {
		p.Why = "too short to speak"
		return p
	}
	limit := min(cmp.Or(maxLength, DefaultMaxLength), cmp.Or(t.MaxTextLength, config.DefaultTTSMaxTextLength))
	text = cut(text, limit)
	provider := c.chooseProvider(t, d)
	if provider == "" {
		p.Why = "no speech provider has an API key"
		return p
	}
	p.Speak, p.Text, p.Provider = true, text, provider
	p.settings = t.Providers[provider]
	p.ov = overrides{voice: d.Voice, model: d.Model, speed: d.Speed}
	p.timeout = time.Duration(cmp.Or(t.TimeoutMs, config.DefaultTTSTimeoutMs)) * time.Millisecond
	return p
}

// chooseProvider is tts.provider (or a directive's, when allowProvider),
// else the first provider with a key.
// A persona whose fallbackPolicy is "fail" skips the providers it has no
// settings for: the next one that has a key speaks, or none.
func (c *Client) chooseProvider(t config.TTS, d Directives) string {
	if d.Provider != "" && t.ModelOverrides.AllowProvider && slices.Contains(config.TTSProviders, d.Provider) && t.PersonaAllows(d.Provider) {
		return d.Provider
	}
	if t.Provider != "" {
		id := strings.ToLower(t.Provider)
		if slices.Contains(config.TTSProviders, id) && t.PersonaAllows(id) {
			return id
		}
		if !slices.Contains(config.TTSProviders, id) {
			return "" // a provider OpenClaw has and this gateway does not: config load warned
		}
	}
	for _, id := range config.TTSProviders {
		if c.keyOf(id, t.Providers[id]) != "" && t.PersonaAllows(id) {
			return id
		}
	}
	return ""
}

func (c *Client) keyOf(id string, p config.TTSProvider) string {
	switch id {
	case "openai":
		return c.openAIKey(p)
	case "elevenlabs":
		return c.elevenLabsKey(p)
	case LocalCLI:
		return strings.TrimSpace(p.Command) // configured: a program to run
	}
	return ""
}

// Speak synthesizes p.Text, as Ogg/Opus when voiceNote (the channel plays
// voice notes), under the plan's timeout.
func (c *Client) Speak(ctx context.Context, p Plan, voiceNote bool) (Audio, error) {
	if !p.Speak {
		return Audio{}, fmt.Errorf("speech: nothing to speak (%s)", p.Why)
	}
	ctx, cancel := withTimeout(ctx, p.timeout, config.DefaultTTSTimeoutMs*time.Millisecond)
	defer cancel()
	return c.Synthesize(ctx, p.Provider, p.settings, p.ov, p.Text, voiceNote)
}

// SpeakText is a one-off synthesis of text under t (the tts tool): text
// over tts.maxTextLength is refused, not cut, as OpenClaw's tts.convert.
func (c *Client) SpeakText(ctx context.Context, t config.TTS, text string, voiceNote bool, timeout time.Duration) (Audio, error) {
	a, _, err := c.SpeakTextAs(ctx, t, text, Choice{}, voiceNote, timeout)
	return a, err
}

// Choice is a caller's explicit provider, model and voice for one
// synthesis (tts.convert); an empty field keeps what t configures.
type Choice struct {
	Provider, Model, Voice string
}

// SpeakTextAs is SpeakText with ch applied; it also says which provider
// spoke. A choice that cannot be used wraps ErrBadChoice.
func (c *Client) SpeakTextAs(ctx context.Context, t config.TTS, text string, ch Choice, voiceNote bool, timeout time.Duration) (Audio, string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Audio{}, "", fmt.Errorf("speech: no text to speak")
	}
	if limit := cmp.Or(t.MaxTextLength, config.DefaultTTSMaxTextLength); len([]rune(text)) > limit {
		return Audio{}, "", fmt.Errorf("speech: text is %d characters, over tts.maxTextLength %d: %w", len([]rune(text)), limit, ErrTooLarge)
	}
	// Model and voice ids reach the provider's URL or body: only plain ids
	// pass, as for a model's directives.
	for _, id := range []string{ch.Model, ch.Voice} {
		if id != "" && !safeID(id) {
			return Audio{}, "", fmt.Errorf("speech: %q: %w", id, ErrBadChoice)
		}
	}
	provider := c.chooseProvider(t, Directives{})
	if ch.Provider != "" {
		provider = strings.ToLower(strings.TrimSpace(ch.Provider))
		if !slices.Contains(config.TTSProviders, provider) {
			return Audio{}, "", fmt.Errorf("speech: provider %q (speaking here: %s): %w", ch.Provider, strings.Join(config.TTSProviders, ", "), ErrBadChoice)
		}
	}
	if provider == "" {
		return Audio{}, "", fmt.Errorf("speech: %w: no speech provider has an API key (tts.provider openai or elevenlabs), or a command (tts-local-cli)", ErrNoKey)
	}
	if timeout <= 0 {
		timeout = time.Duration(cmp.Or(t.TimeoutMs, config.DefaultTTSTimeoutMs)) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a, err := c.Synthesize(ctx, provider, t.Providers[provider], overrides{voice: ch.Voice, model: ch.Model}, text, voiceNote)
	return a, provider, err
}

// Synthesize calls one provider.
func (c *Client) Synthesize(ctx context.Context, provider string, s config.TTSProvider, ov overrides, text string, voiceNote bool) (Audio, error) {
	switch provider {
	case "openai":
		return c.openAISpeak(ctx, s, ov, text, voiceNote)
	case "elevenlabs":
		return c.elevenLabsSpeak(ctx, s, ov, text, voiceNote)
	case LocalCLI:
		return c.localSpeak(ctx, s, text)
	}
	return Audio{}, fmt.Errorf("speech: provider %q does not speak here", provider)
}

var (
	fenceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```.*?(```|$)") })
	linkRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[([^\]\n]*)\]\([^)\s]*\)`) })
)

// codeDominated: more than half of the reply is fenced code.
func codeDominated(s string) bool {
	code := 0
	for _, m := range fenceRE().FindAllString(s, -1) {
		code += len(m)
	}
	return code*2 > len(s)
}

// speakable is a reply as it should be read aloud: fenced code left out,
// links read as their text, Markdown marks dropped.
func speakable(s string) string {
	s = fenceRE().ReplaceAllString(s, " ")
	s = linkRE().ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", "__", "", "`", "", "~~", "").Replace(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimLeft(strings.TrimSpace(l), "#>")
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") {
			l = l[2:]
		}
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(strings.Join(strings.Fields(strings.Join(lines, "\n")), " "))
}

// cut shortens s to at most n characters, at a sentence or word end
// when one is near.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	out := string(r[:n])
	if i := strings.LastIndexAny(out, ".!?"); i > len(out)*2/3 {
		return out[:i+1]
	}
	if i := strings.LastIndexByte(out, ' '); i > len(out)/2 {
		return out[:i] + "…"
	}
	return out + "…"
}
