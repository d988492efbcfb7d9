package agents

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/agents/sessions"
)

// TTSSwitch is the gateway's spoken-reply preferences, for /tts: the
// same state tts.enable, tts.disable, tts.setProvider and tts.setPersona
// change.
type TTSSwitch interface {
	TTSStatus(ctx context.Context) (TTSStatus, error)
	SetTTSEnabled(ctx context.Context, on bool) error
	// SetTTSProvider returns the provider's canonical id; the error of an
	// id that does not speak here says why, for the sender.
	SetTTSProvider(ctx context.Context, id string) (string, error)
	// SetTTSPersona with "off" clears the persona.
	SetTTSPersona(ctx context.Context, id string) (string, error)
	// SetTTSLimit sets where spoken replies are cut; the error of a value
	// out of range says the range.
	SetTTSLimit(ctx context.Context, n int) error
}

// TTSStatus is what /tts status tells.
type TTSStatus struct {
	Auto       string // off, always, inbound, tagged
	Provider   string // "" for none
	FromPrefs  bool   // Auto was set by /tts or tts.enable/disable, not the config
	Configured []string
	MaxLength  int // where spoken replies are cut
}

// UseTTS lets /tts read and change the speech preferences; call it before
// the first run.
func (s *Service) UseTTS(t TTSSwitch) { s.tts = t }

const ttsUsage = "Usage: /tts on|off|status, /tts provider <id>, /tts persona off, /tts limit <chars>, /tts audio <text>, /tts latest"

// ttsCommand is /tts; speak is text to say once as a voice note with the
// answer (/tts audio, /tts latest). Reading is for any sender the chat admits, and so
// are /tts audio and /tts latest, which speak only into the sender's own
// chat; a change
// applies to every chat the gateway speaks in, so only the owner (a
// sender in commands.ownerAllowFrom) or a gateway client may make it: a
// stranger in a group must not silence, or start, everyone's voice
// replies.
func (s *Service) ttsCommand(ctx context.Context, sess *sessions.Session, req StartRequest, args string) (reply, speak string) {
	if s.tts == nil {
		return "Text-to-speech is not available on this gateway.", ""
	}
	words := strings.Fields(args)
	f := strings.Fields(strings.ToLower(args))
	sub := ""
	if len(f) > 0 {
		sub = f[0]
	}
	mayChange := req.Commands.Operator || req.Owner
	const refused = "Only the owner may change text-to-speech for the whole gateway (commands.ownerAllowFrom); nothing was changed."
	switch sub {
	case "", "status":
		return s.ttsStatusText(ctx), ""
	case "on", "off":
		if !mayChange {
			return refused, ""
		}
		if err := s.tts.SetTTSEnabled(ctx, sub == "on"); err != nil {
			return "Could not change text-to-speech: " + err.Error(), ""
		}
		s.log.Info("tts preference changed by command", "auto", sub, "sender", req.Commands.ID)
		if sub == "on" {
			return "Text-to-speech is on: replies are spoken in every chat.", ""
		}
		return "Text-to-speech is off: replies are text only.", ""
	case "provider":
		if len(f) < 2 {
			return s.ttsStatusText(ctx), ""
		}
		if !mayChange {
			return refused, ""
		}
		id, err := s.tts.SetTTSProvider(ctx, f[1])
		if err != nil {
			return "Provider not changed: " + err.Error(), ""
		}
		s.log.Info("tts preference changed by command", "provider", id, "sender", req.Commands.ID)
		return "Replies are spoken with " + id + ".", ""
	case "persona":
		if len(f) < 2 {
			return "No speech personas are configured here. /tts persona off clears a chosen one.", ""
		}
		if !mayChange {
			return refused, ""
		}
		if _, err := s.tts.SetTTSPersona(ctx, f[1]); err != nil {
			return "Persona not changed: " + err.Error(), ""
		}
		return "Speech persona cleared.", ""
	case "audio":
		if req.Commands.Operator {
			// No chat to send a voice note to: the methods answer with
			// the audio itself.
			return "/tts audio speaks into a chat; from a gateway client use tts.speak or tts.convert.", ""
		}
		text := strings.Join(words[1:], " ")
		if text == "" {
			return "Usage: /tts audio <text>", ""
		}
		return "Speaking that once as a voice note (text-to-speech stays as it was).", text
	case "latest":
		if req.Commands.Operator {
			return "/tts latest speaks into a chat; from a gateway client use tts.speak or tts.convert.", ""
		}
		text, err := s.latestReply(ctx, sess)
		if err != nil {
			return "Could not read this session's replies: " + err.Error(), ""
		}
		if text == "" {
			return "There is no reply in this session to speak yet.", ""
		}
		return "Speaking the latest reply once as a voice note.", text
	case "limit":
		if len(f) < 2 {
			return s.ttsStatusText(ctx), ""
		}
		if !mayChange {
			return refused, ""
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return "Usage: /tts limit <characters>, 100 to 4096.", ""
		}
		if err := s.tts.SetTTSLimit(ctx, n); err != nil {
			return "Limit not changed: " + err.Error(), ""
		}
		s.log.Info("tts preference changed by command", "maxLength", n, "sender", req.Commands.ID)
		return fmt.Sprintf("Spoken replies are cut at %d characters.", n), ""
	case "summary":
		// Nothing to switch: this gateway never summarizes.
		return "Long replies are never summarized here: they are cut at the limit (/tts limit) before they are spoken.", ""
	case "chat":
		return fmt.Sprintf("/tts %s is not supported on this gateway. %s", sub, ttsUsage), ""
	}
	return ttsUsage, ""
}

func (s *Service) ttsStatusText(ctx context.Context) string {
	st, err := s.tts.TTSStatus(ctx)
	if err != nil {
		return "Could not read the text-to-speech settings: " + err.Error()
	}
	source := "config tts.auto"
	if st.FromPrefs {
		source = "set with /tts or tts.enable/tts.disable"
	}
	provider := st.Provider
	if provider == "" {
		provider = "none (no speech provider has an API key)"
	}
	keys := "none"
	if len(st.Configured) > 0 {
		keys = strings.Join(st.Configured, ", ")
	}
	return fmt.Sprintf("Text-to-speech: %s (%s)\nProvider: %s\nProviders with a key: %s\nSpoken replies are cut at %d characters", st.Auto, source, provider, keys, st.MaxLength)
}

// latestReplyWindow is how far back /tts latest looks for a reply with
// text: a turn's tool calls and results come after the question, so the
// answer is near the end.
const latestReplyWindow = 50

// latestReply is the text of the session's last assistant message that
// has any; "" when there is none.
func (s *Service) latestReply(ctx context.Context, sess *sessions.Session) (string, error) {
	msgs, err := s.opts.Store.History(ctx, sess.SessionID, sessions.HistoryQuery{Limit: latestReplyWindow})
	if err != nil {
		return "", fmt.Errorf("latest reply: %w", err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == sessions.RoleAssistant && strings.TrimSpace(m.Text) != "" {
			return m.Text, nil
		}
	}
	return "", nil
}
