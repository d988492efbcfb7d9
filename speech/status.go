package speech

import "github.com/openclaw-go/openclaw/gateway/config"

// ProviderState is one speech provider as tts.status and tts.providers
// report it.
type ProviderState struct {
	ID         string
	Label      string
	Configured bool // it has an API key (a program, for the local CLI)
}

var providerLabels = map[string]string{"openai": "OpenAI", "elevenlabs": "ElevenLabs", LocalCLI: "Local CLI"}

// Providers lists the providers that speak here, in the order a missing
// tts.provider is chosen, with whether each has a key.
func (c *Client) Providers(t config.TTS) []ProviderState {
	out := make([]ProviderState, 0, len(config.TTSProviders))
	for _, id := range config.TTSProviders {
		out = append(out, ProviderState{ID: id, Label: providerLabels[id], Configured: c.keyOf(id, t.Providers[id]) != ""})
	}
	return out
}

// ActiveProvider is the provider replies are spoken with: tts.provider,
// else the first with a key; "" for none.
func (c *Client) ActiveProvider(t config.TTS) string {
	return c.chooseProvider(t, Directives{})
}
