package channelhost

import (
	"context"
	"errors"

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
	run, _, err := d.svc.Start(ctx, agents.StartRequest{
		AgentID: req.AgentID, SessionKey: req.SessionKey, Message: req.Text, RunID: req.RunID,
		ExtraSystemPrompt: req.ExtraSystemPrompt, Owner: d.owner(req.Origin.Channel, req.SenderID),
		// A sender who passed the chat's gate may use the gateway's
		// commands; answering approvals is the owner's and the
		// network's execApprovals approvers' alone.
		Commands: &agents.CommandSender{ID: req.Origin.Channel + ":" + req.SenderID, CanApprove: d.approver(req.Origin.Channel, req.SenderID)},
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
