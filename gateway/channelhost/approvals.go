package channelhost

import (
	"context"
	"log/slog"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/tools"
)

// ApprovalNotifier announces approval events to operators on the bus and,
// for a request whose session came from a chat, asks in that chat with
// buttons. The tools' approvals take it.
func (h *Host) ApprovalNotifier() tools.ApprovalNotifier {
	return approvalFanout{bus: h.opts.Bus, m: h.Manager, log: h.opts.Log}
}

type approvalFanout struct {
	bus Bus
	m   *channels.Manager
	log *slog.Logger
}

var _ tools.ApprovalNotifier = approvalFanout{}

func (f approvalFanout) NotifyApproval(e tools.ApprovalEvent) {
	for _, b := range e.Broadcasts() {
		f.bus.Broadcast(b.Event, b.Payload)
	}
	p := e.Request
	if e.Settled != nil || p.ID == "" || p.SessionKey == "" {
		return
	}
	summary := p.Tool + " " + p.Args
	if p.Reason != "" {
		summary += "\n(" + p.Reason + ")"
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// The chat to ask is that of the run that asked, not the
		// session's last.
		if _, err := f.m.AskApproval(ctx, p.SessionKey, p.RunID, p.ID, summary); err != nil {
			f.log.Warn("could not ask for approval in the chat", "sessionKey", p.SessionKey, "err", err)
		}
	}()
}
