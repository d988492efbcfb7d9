package pluginhost

import (
	"context"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/plugins/llmtask"
	"github.com/openclaw-go/openclaw/tools"
)

// LLMTaskTool builds the llm-task plugin tool over the agents' model
// chains, when plugins.entries.llm-task.enabled says so (it is optional
// in OpenClaw too).
func (h *Host) LLMTaskTool() (tools.Tool, bool) {
	plugins := h.opts.Config().Config.Plugins
	if !plugins.Entries["llm-task"].IsEnabled() || !plugins.Permits("llm-task") {
		return nil, false
	}
	return llmtask.Tool(llmCompleter{h.opts.Agents}, llmtask.Config{AllowModelOverride: func() bool {
		return h.opts.Config().Config.Plugins.Entries["llm-task"].LLM.AllowModelOverride
	}}), true
}

// llmCompleter gives llm-task one-shot calls on the caller's agent.
type llmCompleter struct{ agents Agents }

func (c llmCompleter) Complete(ctx context.Context, who tools.Who, req llmtask.Request) (string, error) {
	return c.agents.CompleteOnce(ctx, agents.OneShot{AgentID: who.AgentID, Models: req.Models, System: req.System,
		Prompt: req.Prompt, MaxTokens: req.MaxTokens, Temperature: req.Temperature})
}
