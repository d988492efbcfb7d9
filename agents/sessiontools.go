package agents

import (
	"context"

	"github.com/openclaw-go/openclaw/agents/providers"
)

// sessionTools is the tool runner until the tools part provides the real
// one: it offers no tools yet, so models answer in text.
type sessionTools struct{ svc *Service }

func (t *sessionTools) Tools(ctx context.Context, turn *Turn) []providers.Tool { return nil }

func (t *sessionTools) Run(ctx context.Context, turn *Turn, call providers.ToolCall) ToolResult {
	return ToolResult{Text: "unknown tool " + call.Name, IsError: true}
}
