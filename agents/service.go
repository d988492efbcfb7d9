package agents

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// ToolRunner lists and runs the tools of a turn. The tools part of the
// gateway provides the policy-aware runner; until then only the session
// tools of this package exist. Run must return a result for every call,
// turning its own failures into an error result.
type ToolRunner interface {
	Tools(ctx context.Context, t *Turn) []providers.Tool
	Run(ctx context.Context, t *Turn, call providers.ToolCall) ToolResult
}

// ToolSetChecker is a ToolRunner that can tell, before the model is
// called, that the tool policy's explicit allow lists left a turn no tool
// at all. Such a run fails with the error, which names the lists, and the
// model is not called (as OpenClaw does).
type ToolSetChecker interface {
	CheckTools(ctx context.Context, t *Turn) error
}

// ToolResult is what one tool call gave back.
type ToolResult struct {
	Text    string
	IsError bool
	Images  []providers.Image // shown to the model beside the text
}

// Turn identifies the run a tool call belongs to.
type Turn struct {
	RunID      string
	AgentID    string
	SessionKey string
	SessionID  string
	SpawnedBy  string
	Depth      int
	Model      string // "provider/model" answering this step
	// ToolsAllow narrows the tools of a scheduled run (a job's
	// toolsAllow); empty means the policy's tools.
	ToolsAllow []string
	// ToolsDeny removes tools from the run (a chat's tools.deny).
	ToolsDeny []string
	// Owner: the turn acts for the gateway's owner (see tools.Who.Owner).
	Owner bool
}

// Options configure a Service.
type Options struct {
	Store    *sessions.Store
	Emit     Emitter
	Tools    ToolRunner // nil: the session tools only
	Log      *slog.Logger
	StateDir string
	HTTP     *http.Client // for model calls; nil: a default client
	// MaxSteps bounds model calls in one run. Default 24.
	MaxSteps int
	// PromptInjections, if set, returns texts to add to every system
	// prompt (before_llm hooks).
	PromptInjections func() []string
	// SkillDirectory, if set, returns the agent's one-line-per-skill
	// directory for its system prompt ("" when it has none).
	SkillDirectory func(ctx context.Context, agentID string) string
	// SkillCommands, if set, lists the agent's skills as slash commands
	// (/skill <name>, /<skill>); nil leaves such messages to the model
	// as typed.
	SkillCommands func(ctx context.Context, agentID string) []SkillCommand
	// AfterLLM, if set and returning true, filters each model answer
	// before anyone sees it (after_llm hooks); the answer is then sent
	// whole instead of streamed.
	AfterLLM func() (filter func(string) string, on bool)
}

// Service runs agents.
type Service struct {
	opts  Options
	log   *slog.Logger
	cfg   atomic.Pointer[config.Config]
	queue *sessions.Queue

	mu        sync.Mutex
	runs      map[string]*Run // by run id, kept a while after they end
	ended     []string        // ended run ids, oldest first, to cap runs
	providers map[string]providerEntry
	sub       subagentLimits
	slots     runSlots // agents.defaults.maxConcurrent
	events    systemEvents

	approvals     ApprovalAnswerer // for /approve; nil: none
	delivery      ReplyDeliverer   // for agent --deliver; nil: no channels
	gatewayStatus func() []string  // the gateway's /status lines
	tts           TTSSwitch        // for /tts; nil: none

	// closing is set by Close: a run cut off then was not ended by a
	// person and stays accepted, to be resumed.
	closing atomic.Bool
}

type providerEntry struct {
	cfg config.ModelProvider
	p   providers.Provider
}

// New makes a service over cfg; call SetConfig on reloads.
func New(cfg *config.Config, opts Options) *Service {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.HTTP == nil {
		// Several sessions talk to one provider at once: keep enough idle
		// connections that each turn does not pay a new TLS handshake.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 32
		opts.HTTP = &http.Client{Transport: tr}
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = 24
	}
	s := &Service{
		opts: opts, log: opts.Log, queue: &sessions.Queue{Log: opts.Log},
		runs: map[string]*Run{}, providers: map[string]providerEntry{},
	}
	s.cfg.Store(cfg)
	if s.opts.Tools == nil {
		s.opts.Tools = &sessionTools{svc: s}
	}
	return s
}

// Workspace is an agent's workspace directory.
func (s *Service) Workspace(agentID string) (string, error) {
	a, ok := resolveAgent(s.config(), s.opts.StateDir, agentID)
	if !ok {
		return "", fmt.Errorf("%w %q", ErrUnknownAgent, agentID)
	}
	return a.Workspace, nil
}

// UseTools replaces the tool runner; call it before the first run.
func (s *Service) UseTools(r ToolRunner) { s.opts.Tools = r }

// SetConfig swaps in a reloaded config; runs in flight keep theirs.
func (s *Service) SetConfig(cfg *config.Config) { s.cfg.Store(cfg) }

// Close aborts every run and waits for them. Resumable runs it cuts off
// run again at the next start (Resume).
func (s *Service) Close() {
	s.closing.Store(true)
	s.queue.Close()
}

func (s *Service) config() *config.Config { return s.cfg.Load() }

// chain builds the fallback chain for a list of "provider/model" refs.
func (s *Service) chain(refs []string) (*providers.Chain, error) {
	cfg := s.config()
	ch := &providers.Chain{Log: s.log}
	for _, ref := range refs {
		name, model, err := providers.ParseModelRef(ref)
		if err != nil {
			return nil, err
		}
		if reason := missingKey(cfg, name); reason != "" {
			ch.Skipped = append(ch.Skipped, providers.Skip{Ref: ref, Reason: reason})
			continue
		}
		p, err := s.provider(cfg, name)
		if err != nil {
			return nil, err
		}
		ch.Steps = append(ch.Steps, providers.Step{Provider: p, Model: model, NoTools: !supportsTools(cfg, name, model)})
	}
	return ch, nil
}

// supportsTools reports whether a model may be sent tools: all may, but
// those whose entry sets compat.supportsTools to false.
func supportsTools(cfg *config.Config, provider, model string) bool {
	for _, m := range cfg.Models.Providers[provider].Models {
		if m.ID == model && m.Compat.SupportsTools != nil {
			return *m.Compat.SupportsTools
		}
	}
	return true
}

// builtinProviders are used when a model names a provider that
// models.providers does not configure; their keys come from the
// environment, as OpenClaw does.
var builtinProviders = map[string]config.ModelProvider{
	"openai":    {API: "openai-completions", BaseURL: "https://api.openai.com/v1", APIKey: config.SecretInput{Value: "${OPENAI_API_KEY}"}},
	"anthropic": {API: "anthropic-messages", BaseURL: "https://api.anthropic.com", APIKey: config.SecretInput{Value: "${ANTHROPIC_API_KEY}"}},
	"ollama":    {API: "openai-completions", BaseURL: "http://127.0.0.1:11434/v1"},
}

// missingKey says why a provider cannot be called, or "": a built-in
// provider whose key variable is not set, or a configured one whose
// apiKey names unset variables. Such a model would only fail with an
// auth error after a round trip (or retries, offline), so the chain
// skips it.
func missingKey(cfg *config.Config, name string) string {
	if pc, ok := cfg.Models.Providers[name]; ok {
		if len(pc.APIKey.Unresolved) > 0 {
			return "no API key: " + strings.Join(pc.APIKey.Unresolved, ", ") + " is not set"
		}
		if pc.APIKey.Problem != "" {
			return "no API key: " + pc.APIKey.Problem
		}
		return ""
	}
	b, ok := builtinProviders[name]
	if !ok || cfg.Models.Mode == "replace" {
		return ""
	}
	if env := strings.TrimSuffix(strings.TrimPrefix(b.APIKey.Value, "${"), "}"); env != b.APIKey.Value && lookupEnv(env) == "" {
		return "no API key: " + env + " is not set"
	}
	return ""
}

// provider returns the client for a provider name, built once per
// configuration of it.
func (s *Service) provider(cfg *config.Config, name string) (providers.Provider, error) {
	pc, ok := cfg.Models.Providers[name]
	if !ok {
		b, builtin := builtinProviders[name]
		if builtin && cfg.Models.Mode == "replace" {
			return nil, &providers.Error{Kind: providers.KindNotConfigured, Provider: name,
				Message: fmt.Sprintf("no provider %q: models.mode is \"replace\", so only models.providers is used; add models.providers.%s or set models.mode to \"merge\"", name, name)}
		}
		if !builtin {
			return nil, &providers.Error{Kind: providers.KindNotConfigured, Provider: name,
				Message: fmt.Sprintf("no provider %q: add models.providers.%s {baseUrl, apiKey, api} to the config", name, name)}
		}
		pc = b
		if env := strings.TrimSuffix(strings.TrimPrefix(pc.APIKey.Value, "${"), "}"); env != pc.APIKey.Value {
			pc.APIKey = config.SecretInput{Value: lookupEnv(env)}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.providers[name]; ok && sameProvider(e.cfg, pc) {
		return e.p, nil
	}
	timeout := time.Duration(pc.TimeoutSeconds) * time.Second
	if timeout == 0 {
		timeout = 120 * time.Second
	}
	var models []providers.ModelInfo
	for _, m := range pc.Models {
		models = append(models, providers.ModelInfo{ID: m.ID, Name: m.Name, ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens})
	}
	p, err := providers.New(providers.ProviderConfig{
		Name: name, API: pc.API, BaseURL: pc.BaseURL, APIKey: pc.APIKey.Value, Headers: pc.Headers, AuthHeader: pc.AuthHeader,
		Timeout: timeout, Models: models,
	}, s.opts.HTTP, s.log.With("provider", name))
	if err != nil {
		return nil, &providers.Error{Kind: providers.KindNotConfigured, Provider: name, Message: err.Error()}
	}
	s.providers[name] = providerEntry{cfg: pc, p: p}
	return p, nil
}

func sameProvider(a, b config.ModelProvider) bool {
	return fmt.Sprint(a) == fmt.Sprint(b) && a.APIKey.Value == b.APIKey.Value
}

// contextWindow is the model's context budget in tokens: its window
// (128000 when unknown), capped by contextTokens.
func (s *Service) contextWindow(ref string) int {
	name, model, err := providers.ParseModelRef(ref)
	if err == nil {
		for _, m := range s.config().Models.Providers[name].Models {
			if m.ID != model {
				continue
			}
			window := 128_000
			if m.ContextWindow > 0 {
				window = m.ContextWindow
			}
			// contextTokens caps the budget below the model's own window.
			if m.ContextTokens > 0 && m.ContextTokens < window {
				window = m.ContextTokens
			}
			return window
		}
	}
	return 128_000
}
