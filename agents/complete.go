package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/agents/providers"
)

// OneShot is a single model call outside any session: no tools, no
// transcript (plugin steps such as llm-task).
type OneShot struct {
	AgentID     string
	Models      []string // "provider/model"; empty = the agent's chain
	System      string
	Prompt      string
	MaxTokens   int
	Temperature *float64
}

// CompleteOnce makes a OneShot call through the same provider chain
// (retries, fallbacks) as agent turns and returns the answer's text.
func (s *Service) CompleteOnce(ctx context.Context, o OneShot) (string, error) {
	cfg := s.config()
	agent, ok := resolveAgent(cfg, s.opts.StateDir, o.AgentID)
	if !ok {
		return "", fmt.Errorf("%w %q: configured agents are %s", ErrUnknownAgent, o.AgentID, strings.Join(cfg.AgentIDs(), ", "))
	}
	models := o.Models
	if len(models) == 0 {
		models = agent.Models
	}
	chain, err := s.chain(models)
	if err != nil {
		return "", err
	}
	if len(chain.Steps) == 0 {
		return "", fmt.Errorf("no model configured for agent %s: set agents.defaults.model", agent.ID)
	}
	resp, _, err := chain.Complete(ctx, providers.Request{
		System: o.System, MaxTokens: o.MaxTokens, Temperature: o.Temperature,
		Messages: []providers.Message{{Role: providers.RoleUser, Text: o.Prompt}},
	}, providers.Hooks{})
	if err != nil {
		return "", err
	}
	s.log.Debug("one-shot completion", "agent", agent.ID, "model", resp.Provider+"/"+resp.Model,
		"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens)
	return resp.Text, nil
}
