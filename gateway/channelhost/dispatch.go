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
	svc   Agents
	owner func(channel, senderID string) bool
}

func (d agentDispatcher) Dispatch(ctx context.Context, req channels.Dispatch) (channels.Reply, error) {
	run, _, err := d.svc.Start(ctx, agents.StartRequest{
		AgentID: req.AgentID, SessionKey: req.SessionKey, Message: req.Text, RunID: req.RunID,
		ExtraSystemPrompt: req.ExtraSystemPrompt, Owner: d.owner(req.Origin.Channel, req.SenderID),
		// A sender who passed the chat's gate may use the gateway's
		// commands; answering approvals is the owner's alone.
		Commands: &agents.CommandSender{ID: req.Origin.Channel + ":" + req.SenderID, CanApprove: d.owner(req.Origin.Channel, req.SenderID)},
		OnDelta:  onText(req.OnText),
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
		return channels.Reply{Text: res.Text}, nil
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

// onText tells the channel when the answer's text has begun (the typing
// indicator's "message" mode); whitespace alone is not text yet.
func onText(f func()) func(string) {
	if f == nil {
		return nil
	}
	return func(text string) {
		if strings.TrimSpace(text) != "" {
			f()
		}
	}
}

// approvalResolver settles Tool Guard approvals from chat buttons. Only
// the owner's press counts: the request is posted in the chat whose turn
// asked, so anyone else pressing Allow would be approving their own call.
type approvalResolver struct {
	approvals func() ApprovalResolver
	owner     func(channel, senderID string) bool
}

func (r approvalResolver) ResolveApproval(ctx context.Context, id, decision, by string) error {
	var a ApprovalResolver
	if r.approvals != nil {
		a = r.approvals()
	}
	if a == nil {
		return errors.New("approvals are not available")
	}
	channel, sender, _ := strings.Cut(by, ":")
	if !r.owner(channel, sender) {
		return errors.New("only the owner can answer approvals here (commands.ownerAllowFrom)")
	}
	return a.Resolve(ctx, id, decision)
}
