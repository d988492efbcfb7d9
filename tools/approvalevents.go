package tools

import "time"

// ApprovalNotifier hears approval requests made and settled: the gateway
// broadcasts them to operators on the bus (Broadcasts) and asks, with
// buttons, in the chat a request came from. NotifyApproval must not
// block: the call waiting for a person is its caller.
type ApprovalNotifier interface {
	NotifyApproval(e ApprovalEvent)
}

// ApprovalEvent is one approval request made (Settled nil) or settled.
type ApprovalEvent struct {
	// Request is the request. A settlement carries only its ID.
	Request Pending
	// Host is where the call would run, "gateway" or "node" (with the
	// node's NodeID); set for a request only.
	Host, NodeID string
	// Settled says how the request ended; nil for a new request.
	Settled *ApprovalSettlement
}

// ApprovalSettlement is how a request ended.
type ApprovalSettlement struct {
	Status   string // approved, denied or expired
	Decision string // the person's decision; "" when the request expired
	At       time.Time
}

// Broadcast is one bus event.
type Broadcast struct {
	Event   string
	Payload any
}

// Broadcasts are the bus events that announce e, as OpenClaw's clients
// know them: the exec approval event, then its plugin approval twin.
func (e ApprovalEvent) Broadcasts() []Broadcast {
	if s := e.Settled; s != nil {
		resolved := ApprovalResolvedPayload{Decision: s.Decision, ID: e.Request.ID, Status: s.Status, TS: s.At.UnixMilli()}
		return []Broadcast{{EventApprovalResolved, resolved}, {EventPluginApprovalResolved, resolved}}
	}
	p := e.Request
	exec := ExecApprovalPayload{
		ApprovalKind: "exec", CreatedAtMs: p.CreatedAt, ExpiresAtMs: p.ExpiresAt, ID: p.ID,
		Request: ExecApprovalRequest{
			AgentID: p.AgentID, Args: p.Args, Command: p.Tool + " " + p.Args, EnvKeys: p.EnvKeys,
			Host: e.Host, NodeID: e.NodeID, Reason: p.Reason, SessionKey: p.SessionKey, Tool: p.Tool,
		},
	}
	return []Broadcast{{EventApprovalRequested, exec}, {EventPluginApprovalRequested, p.PluginApproval()}}
}

// The payloads' fields are in the order of their JSON names, so an event
// encodes byte for byte as it did when it was a map.

// ExecApprovalPayload is exec.approval.requested's payload.
type ExecApprovalPayload struct {
	ApprovalKind string              `json:"approvalKind"` // "exec"
	CreatedAtMs  int64               `json:"createdAtMs"`
	ExpiresAtMs  int64               `json:"expiresAtMs"`
	ID           string              `json:"id"`
	Request      ExecApprovalRequest `json:"request"`
}

// ExecApprovalRequest is the call an exec approval asks about.
type ExecApprovalRequest struct {
	AgentID string `json:"agentId"`
	Args    string `json:"args"`
	Command string `json:"command"` // the tool and its arguments, as one line
	// EnvKeys names the variables the call sets (their values are
	// redacted in Args).
	EnvKeys    []string `json:"envKeys,omitempty"`
	Host       string   `json:"host"`
	NodeID     string   `json:"nodeId"`
	Reason     string   `json:"reason"`
	SessionKey string   `json:"sessionKey"`
	Tool       string   `json:"tool"`
}

// PluginApprovalPayload is the request in the plugin approval shape
// (plugin.approval.requested and plugin.approval.list).
type PluginApprovalPayload struct {
	CreatedAtMs int64                 `json:"createdAtMs"`
	ExpiresAtMs int64                 `json:"expiresAtMs"`
	ID          string                `json:"id"`
	Request     PluginApprovalRequest `json:"request"`
}

// PluginApprovalRequest is what OpenClaw's terminal UI and apps present
// with Allow/Deny.
type PluginApprovalRequest struct {
	AgentID          string   `json:"agentId,omitempty"`
	AllowedDecisions []string `json:"allowedDecisions"`
	Description      string   `json:"description"`
	SessionKey       string   `json:"sessionKey,omitempty"`
	Severity         string   `json:"severity"`
	Title            string   `json:"title"`
	ToolName         string   `json:"toolName"`
}

// ApprovalResolvedPayload is the payload of exec.approval.resolved and
// plugin.approval.resolved.
type ApprovalResolvedPayload struct {
	Decision string `json:"decision"`
	ID       string `json:"id"`
	Status   string `json:"status"`
	TS       int64  `json:"ts"`
}

// PluginApproval is the request in the plugin approval shape.
func (p Pending) PluginApproval() PluginApprovalPayload {
	return PluginApprovalPayload{
		CreatedAtMs: p.CreatedAt, ExpiresAtMs: p.ExpiresAt, ID: p.ID,
		Request: PluginApprovalRequest{
			AgentID: p.AgentID, AllowedDecisions: Decisions, Description: p.Notice(), SessionKey: p.SessionKey,
			Severity: "warning", Title: "Tool Guard: " + p.Tool + " waits for approval", ToolName: p.Tool,
		},
	}
}
