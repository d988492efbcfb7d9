// Package providers talks to language models. A Provider streams one chat
// completion (text and tool calls); a Chain tries a primary model and its
// fallbacks with retries and backoff. Implementations exist for
// OpenAI-compatible chat completions, Anthropic Messages, Ollama's native
// chat and the Gemini API; each speaks its streaming wire protocol itself
// (stream.go holds the shared POST and server-sent-event reader): the
// vendors' SDKs would add tens of megabytes to the binary for the one
// streaming endpoint each of them is used for.
//
// The package knows nothing else of the gateway: the agent loop hands it
// messages and tool schemas and gets text, tool calls and usage back.
package providers

import (
	"context"
	"encoding/json"
)

// Role of a message in a conversation.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool" // the result of one tool call
)

// Message is one entry of the conversation sent to a model. The system
// prompt travels apart, in Request.System.
type Message struct {
	Role Role `json:"role"`
	// Text is the message text (for RoleTool, the tool's output).
	Text string `json:"text,omitempty"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID and ToolName identify the call a RoleTool message answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	// IsError marks a tool result that is an error.
	IsError bool `json:"isError,omitempty"`
	// Images go with a RoleUser message, after its text, or with a
	// RoleTool message (a screenshot): Anthropic takes them inside the
	// tool result, OpenAI's chat API only from a user, so there they
	// follow the step's tool results as one user message.
	Images []Image `json:"images,omitempty"`
}

// Image is an image a user message shows the model, sent inline as
// base64 (OpenAI: an image_url data URL; Anthropic: a base64 image block).
type Image struct {
	// MediaType is image/png, image/jpeg, image/gif or image/webp: the
	// types both APIs accept.
	MediaType string `json:"mediaType"`
	Data      []byte `json:"data"`
}

// ToolCall is one call of a tool the model asked for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Tool describes a tool the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is a JSON Schema object.
	Parameters json.RawMessage
}

// Request is one completion.
type Request struct {
	// Model is the model id at the provider (no "provider/" prefix).
	Model       string
	System      string
	Messages    []Message
	Tools       []Tool
	MaxTokens   int      // 0: the provider's or model's default
	Temperature *float64 // nil: the provider's default
}

// Usage counts tokens of one completion.
type Usage struct {
	InputTokens      int64 `json:"input"`
	OutputTokens     int64 `json:"output"`
	CacheReadTokens  int64 `json:"cacheRead,omitempty"`
	CacheWriteTokens int64 `json:"cacheWrite,omitempty"`
}

// Total is input plus output tokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Stop reasons, normalised across providers.
const (
	StopEnd       = "stop"       // the model finished its answer
	StopToolCalls = "tool_calls" // the model wants tool results
	StopLength    = "length"     // cut at max tokens
	StopRefusal   = "refusal"
)

// Response is a finished completion.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	StopReason string
	Usage      Usage
	// Provider and Model say who answered (after fallbacks).
	Provider string
	Model    string
}

// Hooks receive a completion as it streams. Both may be nil. They are
// called from the goroutine running Complete, in order, and must not
// block for long.
type Hooks struct {
	// OnDelta gets each piece of answer text.
	OnDelta func(text string)
	// OnRestart is called when a Chain abandons an attempt that had
	// already streamed text and starts another: the text so far is void.
	OnRestart func(err error)
}

// Provider streams completions from one configured endpoint. Complete
// must honour ctx (cancel and deadline) and return a *Error for failures
// the caller can classify. Implementations are safe for concurrent use.
type Provider interface {
	// Name is the provider's key in models.providers.
	Name() string
	Complete(ctx context.Context, req Request, hooks Hooks) (*Response, error)
}
