package tools

import (
	"context"
	"encoding/json"
	"time"
)

// Tier says how a tool is disclosed to the model: core tools with their
// full schema, extension tools as a one-line directory entry until
// activated.
type Tier string

const (
	TierCore      Tier = "core"
	TierExtension Tier = "extension"
)

// Source says where a tool comes from.
type Source string

const (
	SourceCore    Source = "core"
	SourcePlugin  Source = "plugin"
	SourceChannel Source = "channel"
	SourceMCP     Source = "mcp"
)

// Spec describes a tool.
type Spec struct {
	Name        string
	Label       string
	Description string
	// Parameters is a JSON Schema object.
	Parameters json.RawMessage
	Tier       Tier
	// Dangerous tools start processes, change what the gateway runs, or
	// act with the owner's standing (the browser's logged-in profiles):
	// the Runner makes a call by anyone but the owner wait for a person's
	// approval unless a Tool Guard rule decides it explicitly.
	Dangerous bool
	// OwnerOnly tools (the gateway's config and restart, persistent jobs,
	// node pairing) are neither shown to nor run for anyone but the
	// owner: a chat stranger's or a write-scoped client's call is refused.
	OwnerOnly bool
	// Timeout bounds one call; 0 means DefaultTimeout.
	Timeout time.Duration
	Source  Source
	// Groups are policy groups the tool belongs to besides its own name,
	// e.g. "group:sessions".
	Groups []string
}

// DefaultTimeout bounds calls of tools that set none.
const DefaultTimeout = 30 * time.Second

// Publisher makes a one-time download link for a file a tool wrote in the
// caller's workspace (rel is slash-separated, relative to it). The gateway
// provides it; tools that produce files for people take it in their config.
type Publisher func(ctx context.Context, who Who, rel string) (url string, err error)

// Who is the caller of a tool: enough for policy, guard, approvals and
// audit to decide and record, without knowing the agent loop.
type Who struct {
	AgentID    string
	SessionKey string
	SessionID  string
	RunID      string
	SpawnedBy  string
	Depth      int
	// Provider and Model answer this step ("openai", "gpt-4o").
	Provider string
	Model    string
	// SenderID and Channel are set for channel conversations.
	SenderID string
	Channel  string
	Sandbox  bool
	// Owner says the call acts for the gateway's owner: an operator
	// connection holding operator.admin (tools.invoke, or the chat.send or
	// agent request that started the turn), or a chat sender listed in
	// commands.ownerAllowFrom, and sub-agents of those. It is derived on
	// the server from who is connected or who wrote, never from a
	// parameter; heartbeats and jobs made in a chat are not the owner.
	Owner bool
	// ToolsAllow, when set, narrows the caller to these tools (names,
	// globs or group:<name>): a scheduled job's toolsAllow, a chat's
	// tools.allow.
	ToolsAllow []string
	// ToolsDeny, when set, takes these tools from the caller (a chat's
	// tools.deny); it wins over every allow.
	ToolsDeny []string
}

// Call is one tool call.
type Call struct {
	ID   string
	Name string
	// CalledAs is the name the model used when it differs from Name (an
	// alias such as MateClaw's ShellExecuteTool), for a tool whose
	// contract depends on it; "" otherwise.
	CalledAs string
	Args     json.RawMessage
	Who      Who
	// MaxChars is the most characters of Result.Text the caller passes on
	// (the Runner sets its cap; 0 is none). A tool whose answer can be
	// longer fits it under this itself, with its hints for getting the
	// rest (read's nextStartLine, exec's capped streams): the caller's own
	// cut (FitResult) keeps JSON well-formed but knows no tool's paging.
	MaxChars int
}

// Result is what a call gave back. Text is what the model reads; Images
// (a screenshot, a canvas snapshot) are shown to it beside the text.
type Result struct {
	Text    string
	IsError bool
	Images  []Image
}

// Image is a picture in a tool result, sent inline to the model.
type Image struct {
	MediaType string // image/png, image/jpeg, image/gif or image/webp
	Data      []byte
}

// MaxResultImageBytes is the largest picture a result carries to the
// model; models refuse bigger ones (the file stays on disk either way).
const MaxResultImageBytes = 5 << 20

// Tool is one callable tool. Call must honour ctx (the Runner cancels it
// at the tool's timeout) and may be called concurrently. An error it
// returns becomes an error result with the error's text.
type Tool interface {
	Spec() Spec
	Call(ctx context.Context, call Call) (Result, error)
}
