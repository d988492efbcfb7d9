// Package tui is the model of `openclaw tui`: a full-screen chat with one
// agent session of a gateway, written as a bubbletea Model. It talks to
// the gateway only through Backend, so it can be driven by a fake in
// tests; the gateway-backed Backend lives with the CLI.
package tui

import "context"

// Backend is what the TUI needs from a gateway.
type Backend interface {
	// Send starts a turn in the session and returns its run id. Slash
	// commands the TUI does not handle itself go here too: the gateway
	// answers them.
	Send(ctx context.Context, sessionKey, text string) (runID string, err error)
	// Abort stops the session's run (runID may be empty: any run).
	Abort(ctx context.Context, sessionKey, runID string) error
	// History returns the session's last limit messages, oldest first.
	History(ctx context.Context, sessionKey string, limit int) ([]Message, error)
	// Sessions lists the agent's recent sessions, newest first.
	Sessions(ctx context.Context, agentID string) ([]Session, error)
	// Agents lists the gateway's agents and how session keys are made.
	Agents(ctx context.Context) (Agents, error)
	// Models lists the models a session may switch to (provider/model).
	Models(ctx context.Context) ([]string, error)
	// SetModel sets the session's model override; "" clears it.
	SetModel(ctx context.Context, sessionKey, model string) error
	// Reset starts the session key afresh in place.
	Reset(ctx context.Context, sessionKey string) error
	// ResolveApproval answers a pending approval: allow-once,
	// allow-always or deny.
	ResolveApproval(ctx context.Context, id, decision string) error
	// Events delivers the gateway's events; it is closed when the
	// connection ends.
	Events() <-chan Event
}

// Message is one message of a session's history.
type Message struct {
	Role string // user, assistant
	Text string
}

// Session is one row of the session picker.
type Session struct {
	Key       string
	Label     string
	UpdatedAt int64 // ms since the epoch
}

// Agent is one row of the agent picker.
type Agent struct {
	ID   string
	Name string
}

// Agents is the gateway's agent list.
type Agents struct {
	DefaultID string
	MainKey   string // a session key's last part for the main session
	Scope     string // "global": every agent shares the "global" session
	List      []Agent
}

// Approval is a tool call waiting for the operator.
type Approval struct {
	ID          string
	SessionKey  string
	Tool        string
	Args        string
	Reason      string
	ExpiresAtMs int64
}

// EventKind says what an Event is.
type EventKind int

const (
	EventDelta            EventKind = iota + 1 // a piece of assistant text (Text; Replace voids what came before)
	EventFinal                                 // the run ended; Text is its last message, if any
	EventAborted                               // the run was aborted
	EventError                                 // the run failed; Text says why
	EventToolStart                             // a tool call began (Tool*)
	EventToolResult                            // a tool call ended (Tool*, Text is its result)
	EventApproval                              // an approval is pending (Approval)
	EventApprovalResolved                      // an approval was answered (Approval.ID, Text the decision)
)

// Event is one gateway event the TUI shows.
type Event struct {
	Kind       EventKind
	RunID      string
	SessionKey string
	Text       string
	Replace    bool
	ToolID     string
	ToolName   string
	ToolArgs   string
	ToolError  bool
	Approval   Approval
}
