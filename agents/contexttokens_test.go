package agents

import (
	"log/slog"
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

// TestSupportsToolsFromCompat: compat.supportsTools false marks the model
// as one to send no tools; unset or true, and unknown models, get them.
func TestSupportsToolsFromCompat(t *testing.T) {
	no, yes := false, true
	cfg := config.Defaults()
	cfg.Models.Providers = map[string]config.ModelProvider{"p": {Models: []config.ModelDefinition{
		{ID: "text", Compat: config.ModelCompat{SupportsTools: &no}},
		{ID: "tools", Compat: config.ModelCompat{SupportsTools: &yes}},
		{ID: "plain"},
	}}}
	for model, want := range map[string]bool{"text": false, "tools": true, "plain": true, "unknown": true} {
		if got := supportsTools(cfg, "p", model); got != want {
			t.Errorf("%s: %v, want %v", model, got, want)
		}
	}
	s := &Service{opts: Options{}, providers: map[string]providerEntry{}, log: slog.New(slog.DiscardHandler)}
	s.cfg.Store(cfg)
	ch, err := s.chain([]string{"p/tools", "p/text"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Steps) != 2 || ch.Steps[0].NoTools || !ch.Steps[1].NoTools {
		t.Errorf("steps = %+v", ch.Steps)
	}
}
