package channels

import (
	"context"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/speech"
)

// tts.status and tts.providers answer in OpenClaw's shapes from the
// running config's tts section (the default agent's merge). This
// gateway keeps no local /tts preferences and no personas, so persona is
// null, personas empty and prefsPath "".

type ttsStatusResult struct {
	Enabled           bool               `json:"enabled"`
	Auto              string             `json:"auto"`
	Provider          *string            `json:"provider"`
	Persona           *string            `json:"persona"`
	Personas          []any              `json:"personas"`
	FallbackProvider  *string            `json:"fallbackProvider"`
	FallbackProviders []string           `json:"fallbackProviders"`
	PrefsPath         string             `json:"prefsPath"`
	ProviderStates    []ttsProviderState `json:"providerStates"`
}

type ttsProviderState struct {
	ID         string `json:"id"`
	Label      string `json:"label"`
	Configured bool   `json:"configured"`
}

type ttsProvidersResult struct {
	Providers []ttsProviderEntry `json:"providers"`
	Active    *string            `json:"active"`
}

type ttsProviderEntry struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Configured bool     `json:"configured"`
	Models     []string `json:"models"`
	Voices     []string `json:"voices"`
}

func (m *Manager) speechClient() *speech.Client {
	if m.opts.Speech != nil {
		return m.opts.Speech
	}
	return &speech.Client{Getenv: func(string) string { return "" }}
}

func (m *Manager) handleTTSStatus(ctx context.Context, req *rpc.Request, _ struct{}) (ttsStatusResult, error) {
	cfg := m.cfg.Load()
	t := cfg.TTSFor(m.defaultAgent(cfg))
	c := m.speechClient()
	res := ttsStatusResult{Auto: t.AutoMode(), Personas: []any{}, FallbackProviders: []string{}}
	res.Enabled = res.Auto != "off"
	active := c.ActiveProvider(t)
	if active != "" {
		res.Provider = &active
	}
	for _, p := range c.Providers(t) {
		res.ProviderStates = append(res.ProviderStates, ttsProviderState{ID: p.ID, Label: p.Label, Configured: p.Configured})
		if p.Configured && p.ID != active {
			res.FallbackProviders = append(res.FallbackProviders, p.ID)
		}
	}
	if len(res.FallbackProviders) > 0 {
		res.FallbackProvider = &res.FallbackProviders[0]
	}
	return res, nil
}

func (m *Manager) handleTTSProviders(ctx context.Context, req *rpc.Request, _ struct{}) (ttsProvidersResult, error) {
	cfg := m.cfg.Load()
	t := cfg.TTSFor(m.defaultAgent(cfg))
	c := m.speechClient()
	res := ttsProvidersResult{Providers: []ttsProviderEntry{}}
	if active := c.ActiveProvider(t); active != "" {
		res.Active = &active
	}
	for _, p := range c.Providers(t) {
		res.Providers = append(res.Providers, ttsProviderEntry{ID: p.ID, Name: p.Label, Configured: p.Configured, Models: []string{}, Voices: []string{}})
	}
	return res, nil
}

func (m *Manager) defaultAgent(cfg *config.Config) string {
	if m.opts.DefaultAgent != nil {
		return m.opts.DefaultAgent(cfg)
	}
	return cfg.DefaultAgentID()
}
