package channels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/speech"
)

// isAudio reports whether an inbound attachment is speech to transcribe:
// a voice note, an audio file, or any file of an audio/* type.
func isAudio(md Media) bool {
	return md.Kind == "voice" || md.Kind == "audio" || strings.HasPrefix(strings.ToLower(md.MIME), "audio/")
}

// transcribe turns a saved audio attachment (rel, under the workspace ws)
// into the text the agent reads. ok is false when transcription is off
// (no tools.media.audio provider): the attachment is then described as
// any other. The file was cut at the media cap when it was saved; the
// transcription's own maxBytes is checked again before any upload.
func (m *Manager) transcribe(ctx context.Context, cfg *config.Config, ws, rel string, md Media) (part, transcript string, ok bool) {
	if m.opts.Speech == nil {
		return "", "", false
	}
	s, ok := m.opts.Speech.STTFor(cfg)
	if !ok {
		return "", "", false
	}
	data, err := readCapped(ws, rel, s.MaxBytes)
	if err == nil {
		var text string
		text, err = m.opts.Speech.Transcribe(ctx, s, data, path.Base(rel), md.MIME)
		if err == nil && text == "" {
			return "[Audio]\n(no speech in the recording)", "", true
		}
		if err == nil {
			return "[Audio]\nTranscript:\n" + text, text, true
		}
	}
	m.log.Warn("channels: audio not transcribed", "kind", md.Kind, "err", err)
	return "[Audio saved at " + rel + " (not transcribed: " + firstLine(err.Error()) + ")]", "", true
}

// echoTranscripts posts what was heard back in the chat when
// tools.media.audio.echoTranscript is on.
func (m *Manager) echoTranscripts(ctx context.Context, cfg *config.Config, in Inbound, rowID int64, transcripts []string) {
	a := cfg.Tools.Media.Audio
	if !a.EchoTranscript || len(transcripts) == 0 {
		return
	}
	format := a.EchoFormat
	if format == "" {
		format = config.DefaultAudioEchoFormat
	}
	for i, text := range transcripts {
		_, err := m.Send(ctx, SendRequest{
			Channel: in.Channel, AccountID: in.AccountID, To: Target{ChatID: in.Chat.ID, ThreadID: in.Chat.ThreadID},
			Text: strings.ReplaceAll(format, "{transcript}", text), ReplyToID: in.MessageID,
			IdempotencyKey: "in-" + strconv.FormatInt(rowID, 10) + "-echo-" + strconv.Itoa(i),
		})
		if err != nil {
			m.log.Warn("channels: transcript echo not sent", "err", err)
		}
	}
}

// readCapped reads ws/rel through an os.Root, refusing more than max bytes.
func readCapped(ws, rel string, max int64) ([]byte, error) {
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("audio is over %d bytes (tools.media.audio.maxBytes): %w", max, speech.ErrTooLarge)
	}
	return data, nil
}

// speakReply plans a reply's voice note under the agent's tts settings:
// the text to show (directives taken out) and, when the reply is spoken,
// the voice message to send after it. A failed synthesis is logged, in
// plain words, and the text goes alone, as OpenClaw does.
func (m *Manager) speakReply(ctx context.Context, cfg *config.Config, a *account, agentID string, in Inbound, rowID int64, i int, reply string, inboundVoice bool) (visible string, voice *Outbound) {
	if m.opts.Speech == nil {
		return reply, nil
	}
	plan := m.opts.Speech.PlanReplyCut(m.ttsFor(ctx, cfg, agentID), reply, inboundVoice, m.replyCut(ctx))
	if !plan.Speak {
		return plan.Visible, nil
	}
	log := m.log.With("channel", in.Channel, "accountId", in.AccountID, "provider", plan.Provider)
	return plan.Visible, m.voiceNote(ctx, log, a, agentID, in, rowID, i, func() (speech.Audio, error) {
		return m.opts.Speech.Speak(ctx, plan, a.network.VoiceNotes)
	})
}

// speakOnce is the voice note of a command's answer (/tts audio, /tts
// latest): text said once whatever tts.auto is, read as a reply is
// (directives out, Markdown dropped, cut to length; too short or mostly
// code is not spoken). Failures are logged and the answer goes as text
// alone.
func (m *Manager) speakOnce(ctx context.Context, cfg *config.Config, a *account, agentID string, in Inbound, rowID int64, i int, text string) *Outbound {
	if m.opts.Speech == nil {
		return nil
	}
	t := m.ttsFor(ctx, cfg, agentID)
	t.Auto = "always" // asked for by name: the auto mode is not consulted
	plan := m.opts.Speech.PlanReplyCut(t, text, false, m.replyCut(ctx))
	log := m.log.With("channel", in.Channel, "accountId", in.AccountID, "provider", plan.Provider)
	if !plan.Speak {
		log.Info("channels: asked-for voice note not spoken", "why", plan.Why)
		return nil
	}
	return m.voiceNote(ctx, log, a, agentID, in, rowID, i, func() (speech.Audio, error) {
		return m.opts.Speech.Speak(ctx, plan, a.network.VoiceNotes)
	})
}

// voiceNote synthesizes with speak, keeps the audio in the agent's
// outbox and returns the message carrying it to the chat in, or nil
// (logged) when any step fails.
func (m *Manager) voiceNote(ctx context.Context, log *slog.Logger, a *account, agentID string, in Inbound, rowID int64, i int, speak func() (speech.Audio, error)) *Outbound {
	if m.opts.Workspace == nil {
		log.Warn("channels: voice reply skipped: no workspace to keep the audio in")
		return nil
	}
	ws, err := m.opts.Workspace(agentID)
	if err != nil {
		log.Warn("channels: voice reply skipped: no workspace", "err", err)
		return nil
	}
	audio, err := speak()
	if err != nil {
		msg := "channels: voice reply failed; sending text only"
		if errors.Is(err, speech.ErrQuota) || errors.Is(err, speech.ErrAuth) {
			msg = "channels: voice reply failed and will keep failing until the speech provider account is fixed; sending text only"
		}
		log.Warn(msg, "err", err)
		return nil
	}
	name := "voice-" + strconv.FormatInt(rowID, 10) + "-" + strconv.Itoa(i) + audio.Ext
	rel, err := saveOutbound(ws, name, audio.Data)
	if err != nil {
		log.Warn("channels: voice reply not saved; sending text only", "err", err)
		return nil
	}
	return &Outbound{
		AccountID: in.AccountID, To: Target{ChatID: in.Chat.ID, ThreadID: in.Chat.ThreadID},
		Attachments:    []Attachment{{Path: path.Join(ws, rel), Name: "voice" + audio.Ext, MIME: audio.MIME, Voice: audio.VoiceNote && a.network.VoiceNotes}},
		IdempotencyKey: "in-" + strconv.FormatInt(rowID, 10) + "-voice-" + strconv.Itoa(i),
	}
}

// saveOutbound writes a generated file under ws/outbox/<date>/, where it
// waits for delivery (and retries), through an os.Root.
func saveOutbound(ws, name string, data []byte) (string, error) {
	if err := os.MkdirAll(ws, 0o700); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return "", err
	}
	defer root.Close()
	dir := path.Join("outbox", time.Now().Format("2006-01-02"))
	if err := root.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	rel := path.Join(dir, name)
	if err := root.WriteFile(rel, data, 0o600); err != nil {
		return "", err
	}
	pruneOutbox(root, time.Now().AddDate(0, 0, -outboxDays))
	return rel, nil
}

// outboxDays is how long generated audio is kept: far longer than any
// delivery retries, short enough that spoken replies do not pile up.
const outboxDays = 7

// pruneOutbox removes the outbox/<date> folders from before cutoff.
func pruneOutbox(root *os.Root, cutoff time.Time) {
	f, err := root.Open("outbox")
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	keep := cutoff.Format("2006-01-02")
	for _, n := range names {
		if _, err := time.Parse("2006-01-02", n); err == nil && n < keep {
			_ = root.RemoveAll(path.Join("outbox", n))
		}
	}
}

// VoiceRequest is a one-off voice message (the tts tool).
type VoiceRequest struct {
	Channel, AccountID string
	To                 Target
	AgentID            string
	Text               string
	// Timeout bounds the provider call; 0 is tts.timeoutMs.
	Timeout        time.Duration
	IdempotencyKey string
}

// SendVoice speaks req.Text under the agent's tts settings (text over
// tts.maxTextLength is refused, not cut) and queues it to the chat as a
// voice message where the network has them, else as an audio file.
func (m *Manager) SendVoice(ctx context.Context, req VoiceRequest) (SendResult, error) {
	if m.opts.Speech == nil || m.opts.Workspace == nil {
		return SendResult{}, errors.New("tts: speech is not available here")
	}
	a, err := m.resolveAccount(req.Channel, req.AccountID)
	if err != nil {
		return SendResult{}, err
	}
	ws, err := m.opts.Workspace(req.AgentID)
	if err != nil {
		return SendResult{}, fmt.Errorf("tts: workspace: %w", err)
	}
	audio, err := m.opts.Speech.SpeakText(ctx, m.ttsFor(ctx, m.cfg.Load(), req.AgentID), req.Text, a.network.VoiceNotes, req.Timeout)
	if err != nil {
		return SendResult{}, fmt.Errorf("tts: %w", err)
	}
	name := "voice-" + strconv.FormatInt(time.Now().UnixNano(), 36) + audio.Ext
	rel, err := saveOutbound(ws, name, audio.Data)
	if err != nil {
		return SendResult{}, fmt.Errorf("tts: save audio: %w", err)
	}
	return m.Send(ctx, SendRequest{
		Channel: a.network.Name, AccountID: a.id, To: req.To, IdempotencyKey: req.IdempotencyKey,
		Attachments: []Attachment{{Path: path.Join(ws, rel), Name: "voice" + audio.Ext, MIME: audio.MIME, Voice: audio.VoiceNote && a.network.VoiceNotes}},
	})
}
