package agents

import (
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// TestContextTokensCapsTheBudget: compaction works to contextTokens when
// it is below the model's contextWindow, and to the window otherwise.
func TestContextTokensCapsTheBudget(t *testing.T) {
	cfg := config.Defaults()
	cfg.Models.Providers = map[string]config.ModelProvider{"p": {Models: []config.ModelDefinition{
		{ID: "capped", ContextWindow: 200_000, ContextTokens: 96_000},
		{ID: "above", ContextWindow: 32_000, ContextTokens: 64_000},
		{ID: "only-tokens", ContextTokens: 50_000},
		{ID: "plain", ContextWindow: 8_000},
	}}}
	s := &Service{}
	s.cfg.Store(cfg)
	for ref, want := range map[string]int{"p/capped": 96_000, "p/above": 32_000, "p/only-tokens": 50_000, "p/plain": 8_000, "p/unknown": 128_000} {
		if got := s.contextWindow(ref); got != want {
			t.Errorf("%s: %d, want %d", ref, got, want)
		}
	}
}
