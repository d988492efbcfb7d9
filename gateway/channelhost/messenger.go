package channelhost

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/message"
	"github.com/openclaw-go/openclaw/tools/tts"
)

// Messenger gives the message tools the channels.
func (h *Host) Messenger() message.Messenger {
	return messenger{m: h.Manager, route: h.Manager.RunRoute, agents: h.opts.Agents}
}

type messenger struct {
	m      *channels.Manager
	route  func(ctx context.Context, sessionKey, runID string) (channels.Route, bool, error)
	agents Agents
}

var _ message.Messenger = messenger{}

func (c messenger) Conversation(ctx context.Context, sessionKey, runID string) (message.Conversation, bool, error) {
	if sessionKey == "" {
		return message.Conversation{}, false, nil
	}
	r, ok, err := c.route(ctx, sessionKey, runID)
	if err == nil && ok && c.agents != nil && c.agents.SendPolicy(ctx, sessionKey, r.Channel, string(r.ChatKind)) == "deny" {
		// session.sendPolicy closes this session's chat to the agent: the
		// message tools may not reach around the suppressed reply.
		return message.Conversation{}, false, errors.New("send blocked by session policy (session.sendPolicy)")
	}
	return message.Conversation{Channel: r.Channel, AccountID: r.AccountID, ChatID: r.ChatID, ThreadID: r.ThreadID}, ok, err
}

func (c messenger) Act(ctx context.Context, to message.Conversation, action string, params map[string]any, key string) (any, error) {
	ar, err := c.m.ActionFromParams(to.Channel, to.AccountID, action, params)
	if err != nil {
		return nil, err
	}
	ar.To = channels.Target{ChatID: to.ChatID, ThreadID: to.ThreadID}
	ar.IdempotencyKey = key
	// The tool confined the upload's file to the caller's workspace.
	ar.MediaPath, _ = params["media"].(string)
	return c.m.Action(ctx, ar)
}

func (c messenger) SendFile(ctx context.Context, to message.Conversation, file, caption, key string) (any, error) {
	// A file is a send: where the channel's actions block turns sends
	// off, files stay too.
	if err := c.m.ActionAllowed(to.Channel, to.AccountID, "send"); err != nil {
		return nil, err
	}
	return c.m.Send(ctx, channels.SendRequest{
		Channel: to.Channel, AccountID: to.AccountID, To: channels.Target{ChatID: to.ChatID, ThreadID: to.ThreadID},
		Text: caption, Attachments: []channels.Attachment{{Path: file}}, IdempotencyKey: key,
	})
}

// Speaker gives the tts tool the channels: a voice message to the chat
// the calling run came from.
func (h *Host) Speaker() tts.Speaker {
	return speaker{messenger: messenger{m: h.Manager, route: h.Manager.RunRoute, agents: h.opts.Agents}}
}

type speaker struct{ messenger }

var _ tts.Speaker = speaker{}

func (s speaker) SpeakTo(ctx context.Context, who tools.Who, text string, timeout time.Duration, key string) (string, error) {
	to, ok, err := s.Conversation(ctx, who.SessionKey, who.RunID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errors.New("tts: this conversation is not in a chat, so there is nowhere to send a voice message")
	}
	res, err := s.m.SendVoice(ctx, channels.VoiceRequest{
		Channel: to.Channel, AccountID: to.AccountID, To: channels.Target{ChatID: to.ChatID, ThreadID: to.ThreadID},
		AgentID: who.AgentID, Text: text, Timeout: timeout, IdempotencyKey: key,
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("to %s chat %s (%s)", to.Channel, res.ChatID, res.Status), nil
}
