package tools

import (
	"context"
	"maps"
	"sync"
)

// AuditNote is what a tool adds to the audit row of the call it serves:
// facts only the tool knows, such as the environment exec gave a command
// or the approval exec asked for under its own command policy.
type AuditNote struct {
	// Env is the environment the call set for a command, for people to
	// read: values of secret-looking names already redacted by the tool.
	Env map[string]string
	// ApprovalID is an approval the tool asked for itself.
	ApprovalID string
	// Decision overrides the row's decision when the tool's own policy
	// decided: "approved" (a person allowed it) or "denied" (its policy
	// or a person refused). Other values are ignored.
	Decision string
	// Reason is kept when the row has none of its own.
	Reason string
}

type auditNoteKey struct{}

// auditNotes collects the notes of one call; the tool may write from any
// goroutine while it runs.
type auditNotes struct {
	mu    sync.Mutex
	notes []AuditNote
}

// NoteAudit adds n to the audit row of the call ctx belongs to. Outside a
// Runner's call it does nothing.
func NoteAudit(ctx context.Context, n AuditNote) {
	c, _ := ctx.Value(auditNoteKey{}).(*auditNotes)
	if c == nil {
		return
	}
	n.Env = maps.Clone(n.Env)
	c.mu.Lock()
	c.notes = append(c.notes, n)
	c.mu.Unlock()
}

func withAuditNotes(ctx context.Context) (context.Context, *auditNotes) {
	c := &auditNotes{}
	return context.WithValue(ctx, auditNoteKey{}, c), c
}

// apply folds the notes into e, later notes winning. An approval the
// Runner itself recorded (Tool Guard) is kept.
func (c *auditNotes) apply(e *AuditEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.notes {
		if n.Env != nil {
			e.Env = n.Env
		}
		if n.ApprovalID != "" && e.ApprovalID == "" {
			e.ApprovalID = n.ApprovalID
		}
		switch n.Decision {
		case "approved", "denied":
			e.Decision = n.Decision
		}
		if n.Reason != "" && e.Reason == "" {
			e.Reason = n.Reason
		}
	}
}
