package channelhost

import (
	"context"
	"errors"
	"strings"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
)

// agentDispatcher runs channel messages as agent turns, with the owner's
// rights only for a sender in commands.ownerAllowFrom.
type agentDispatcher struct {
	svc      Agents
	owner    func(channel, senderID string) bool
	approver func(channel, senderID string) bool // may answer approvals (/approve)
}

func (d agentDispatcher) Dispatch(ctx context.Context, req channels.Dispatch) (channels.Reply, error) {
	reply, err := d.run(ctx, req)
	if ctx.Err() == nil && d.svc.SendPolicy(ctx, req.SessionKey, req.Origin.Channel, string(req.Origin.ChatKind)) == "deny" {
		// session.sendPolicy: the turn runs and is kept in the session, but
		// nothing reaches the chat, not even an error.
		return channels.Reply{}, nil
	}
	return reply, err
}

func (d agentDispatcher) run(ctx context.Context, req channels.Dispatch) (channels.Reply, error) {
	run, _, err := d.svc.Start(ctx, agents.StartRequest{
		Channel: req.Origin.Channel, ChatType: string(req.Origin.ChatKind),
		AgentID: req.AgentID, SessionKey: req.SessionKey, Message: req.Text, RunID: req.RunID,
		ExtraSystemPrompt: req.ExtraSystemPrompt, Owner: d.owner(req.Origin.Channel, req.SenderID),
		ToolsAllow: req.ToolsAllow, ToolsDeny: req.ToolsDeny, ChannelModel: req.Model,
		OnText: req.OnText, OnNotice: req.OnNotice,
		// A sender who passed the chat's gate may use the gateway's
		// commands; answering approvals is the owner's and the
		// network's execApprovals approvers' alone.
		Commands: &agents.CommandSender{ID: req.Origin.Channel + ":" + req.SenderID, CanApprove: d.approver(req.Origin.Channel, req.SenderID),
			Refused: req.CommandsRefused},
		OnDelta: textStarted(req.OnTextStart),
		Visible: req.Visible,
	})
	if err != nil {
		return channels.Reply{}, err
	}
	select {
	case <-run.Done():
	case <-ctx.Done():
		return channels.Reply{}, ctx.Err()
	}
	res := run.Result()
	switch res.Status {
	case "ok":
		return channels.Reply{Text: res.Text, Provider: res.Provider, Model: res.Model, Private: res.Private, Command: res.Command, Speak: res.Speak}, nil
	case "aborted":
		if ctx.Err() != nil {
			return channels.Reply{}, ctx.Err()
		}
		return channels.Reply{}, nil
	}
	msg := res.Error
	if msg == "" {
		msg = "the agent run ended with status " + res.Status
	}
	return channels.Reply{}, errors.New(msg)
}

// Abort stops the session's running turn (messages.queue.mode interrupt).
func (d agentDispatcher) Abort(sessionKey string) bool { return d.svc.Abort(sessionKey, "") }

// textStarted tells the channel when the answer's text has begun (the typing
// indicator's "message" mode); whitespace alone is not text yet.
func textStarted(f func()) func(string) {
	if f == nil {
		return nil
	}
	return func(text string) {
		if strings.TrimSpace(text) != "" {
			f()
		}
	}
}

// Steer hands a message to the session's running turn
// (messages.queue.mode steer).
func (d agentDispatcher) Steer(sessionKey, text string) bool { return d.svc.Steer(sessionKey, text) }
