package providers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// API names a wire protocol, as models.providers.<name>.api spells it.
const (
	// APIOpenAICompletions is the Chat Completions API (POST
	// {baseUrl}/chat/completions), spoken by OpenAI, OpenRouter, Ollama,
	// vLLM, llama.cpp and LM Studio. It is the default.
	APIOpenAICompletions = "openai-completions"
	// APIOpenAIResponses is OpenAI's Responses API. It is served, for now,
	// by the Chat Completions client: every server that has Responses also
	// has Chat Completions, and the agent loop needs nothing Responses adds.
	APIOpenAIResponses = "openai-responses"
	// APIAnthropicMessages is Anthropic's Messages API (POST
	// {baseUrl}/v1/messages).
	APIAnthropicMessages = "anthropic-messages"
)

// ProviderConfig is one entry of models.providers, decoded.
type ProviderConfig struct {
	// Name is the entry's key; model refs "<name>/<model>" pick it.
	Name string
	// API is the wire protocol: "openai-completions" (default when empty),
	// "openai-responses" or "anthropic-messages".
	API string
	// BaseURL is the endpoint; default https://api.openai.com/v1 or
	// https://api.anthropic.com by API. Ollama is http://127.0.0.1:11434/v1.
	BaseURL string
	// APIKey is sent as a bearer token (OpenAI) or x-api-key (Anthropic);
	// empty sends none, as local servers want.
	APIKey string
	// Headers are added to every request.
	Headers map[string]string
	// AuthHeader sends the API key as "Authorization: Bearer", in place of
	// the vendor's header (x-api-key, x-goog-api-key) and of any
	// Authorization in Headers, for proxies that want it there.
	AuthHeader bool
	// Timeout bounds one call, streaming included; 0 means none.
	Timeout time.Duration
	// Models are the models this provider serves, for catalogs and
	// context budgeting. Calls are not limited to them.
	Models []ModelInfo
}

// ModelInfo describes one model of a provider.
type ModelInfo struct {
	ID            string // the id at the provider, e.g. "claude-opus-4-6"
	Name          string // a display name
	ContextWindow int    // tokens the model reads; 0 unknown
	MaxTokens     int    // tokens it may write; 0 unknown
}

// Options configure one provider endpoint for NewOpenAI and NewAnthropic.
type Options struct {
	Name       string // the provider's key; it appears in errors
	BaseURL    string // empty: the vendor's public endpoint
	APIKey     string // empty: no credential is sent
	Headers    map[string]string
	AuthHeader bool          // the key as Authorization: Bearer (see ProviderConfig)
	Timeout    time.Duration // per call, streaming included; 0 none
	HTTPClient *http.Client  // nil: a client without a timeout
	Log        *slog.Logger  // nil: discard
}

func (o Options) httpClient() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{}
}

func (o Options) logger() *slog.Logger {
	if o.Log != nil {
		return o.Log
	}
	return slog.New(slog.DiscardHandler)
}

// errCallTimeout is the cause of a call context ended by Options.Timeout,
// which tells it from the caller's own deadline.
var errCallTimeout = errors.New("per-call timeout")

// callContext applies the per-call timeout.
func (o Options) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.Timeout > 0 {
		return context.WithTimeoutCause(ctx, o.Timeout, errCallTimeout)
	}
	return context.WithCancel(ctx)
}

func (o Options) call(model string) call {
	return call{provider: o.Name, model: model, apiKey: o.APIKey, timeout: o.Timeout}
}

// New builds the provider a config entry describes. hc may be nil (a
// default client) and log may be nil (discard). The provider logs with a
// "provider" attribute.
func New(cfg ProviderConfig, hc *http.Client, log *slog.Logger) (Provider, error) {
	if strings.TrimSpace(cfg.Name) == "" {
		return nil, errors.New("provider config: name is empty")
	}
	if strings.Contains(cfg.Name, "/") {
		return nil, fmt.Errorf("provider %q: name must not contain \"/\"", cfg.Name)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts := Options{
		Name:       cfg.Name,
		BaseURL:    cfg.BaseURL,
		APIKey:     cfg.APIKey,
		Headers:    cfg.Headers,
		AuthHeader: cfg.AuthHeader && cfg.APIKey != "",
		Timeout:    cfg.Timeout,
		HTTPClient: hc,
		Log:        log.With("component", "providers", "provider", cfg.Name),
	}
	if opts.AuthHeader {
		// The key's Authorization wins over a configured one, as OpenClaw's.
		opts.Headers = make(map[string]string, len(cfg.Headers))
		for k, v := range cfg.Headers {
			if !strings.EqualFold(k, "Authorization") {
				opts.Headers[k] = v
			}
		}
	}
	switch cfg.API {
	case "", APIOpenAICompletions, APIOpenAIResponses:
		return NewOpenAI(opts), nil
	case APIAnthropicMessages:
		return NewAnthropic(opts), nil
	case APIOllama:
		return NewOllama(opts), nil
	case APIGoogleGenerativeAI:
		return NewGemini(opts), nil
	}
	return nil, fmt.Errorf("provider %q: unknown api %q: want %q, %q, %q, %q or %q",
		cfg.Name, cfg.API, APIOpenAICompletions, APIOpenAIResponses, APIAnthropicMessages, APIOllama, APIGoogleGenerativeAI)
}

// ParseModelRef splits "provider/model" at the first "/": model ids may
// hold more ("openrouter/meta-llama/llama-3.1-8b" is provider "openrouter",
// model "meta-llama/llama-3.1-8b").
func ParseModelRef(ref string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(strings.TrimSpace(ref), "/")
	if !ok || provider == "" || model == "" {
		return "", "", fmt.Errorf("parse model ref %q: want \"provider/model\"", ref)
	}
	return provider, model, nil
}
