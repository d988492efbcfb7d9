// Package llmtask holds OpenClaw's LLM Task plugin tool (`llm-task`): one
// model call that must answer with JSON, checked against a JSON Schema
// when the caller gives one, for structured steps of a workflow (classify
// this, extract those fields) without a whole agent turn. The model is
// reached through Completer, which the agents service implements.
package llmtask

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/openclaw-go/openclaw/tools"
)

// Request is one JSON-only completion.
type Request struct {
	System      string
	Prompt      string
	Models      []string // "provider/model", first to last; empty = the caller's agent's
	MaxTokens   int
	Temperature *float64
}

// Completer makes one model call with no tools and no session.
type Completer interface {
	Complete(ctx context.Context, who tools.Who, req Request) (string, error)
}

// Args are llm-task's arguments, as OpenClaw's plugin takes them.
type Args struct {
	Prompt      string          `json:"prompt" jsonschema:"description=What to do; the answer is one JSON value"`
	Input       json.RawMessage `json:"input,omitempty" jsonschema:"description=Data the task works on (any JSON)"`
	Schema      json.RawMessage `json:"schema,omitempty" jsonschema:"description=JSON Schema the answer must satisfy"`
	Model       string          `json:"model,omitempty" jsonschema:"description=provider/model to use instead of the agent's (when allowed)"`
	Temperature *float64        `json:"temperature,omitempty" jsonschema:"minimum=0,maximum=2"`
	MaxTokens   int             `json:"maxTokens,omitempty" jsonschema:"minimum=1"`
	TimeoutMs   int             `json:"timeoutMs,omitempty" jsonschema:"minimum=1,description=Milliseconds the call may take (default 60000)"`
}

// Config is what the gateway decides for the tool.
type Config struct {
	// AllowModelOverride lets a call name its model
	// (plugins.entries.llm-task.llm.allowModelOverride).
	AllowModelOverride func() bool
}

// defaultTimeout bounds a task without timeoutMs.
const defaultTimeout = 60 * time.Second

// system tells the model the rules of the step.
const system = "You are one step of an automated workflow. Answer with exactly one JSON value: " +
	"no prose, no explanation, no Markdown code fence. When a JSON Schema is given, the value must satisfy it."

// Tool returns the llm-task tool.
func Tool(c Completer, cfg Config) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "llm-task", Label: "LLM Task",
		Description: "Run one JSON-only model step: give a prompt, optional input data and an optional JSON Schema; " +
			"the result is the JSON value the model produced, checked against the schema (one retry on a mismatch).",
		Tier: tools.TierExtension, Source: tools.SourcePlugin, Groups: []string{"group:plugins"}, Timeout: 3 * defaultTimeout,
	}, func(ctx context.Context, call tools.Call, a Args) (tools.Result, error) {
		return run(ctx, c, cfg, call.Who, a)
	})
}

func run(ctx context.Context, c Completer, cfg Config, who tools.Who, a Args) (tools.Result, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return tools.Result{}, errors.New("prompt is required")
	}
	var schema *jsonschema.Resolved
	if len(bytes.TrimSpace(a.Schema)) > 0 {
		var s jsonschema.Schema
		if err := json.Unmarshal(a.Schema, &s); err != nil {
			return tools.Result{}, fmt.Errorf("schema is not a JSON Schema: %w", err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			return tools.Result{}, fmt.Errorf("schema: %w", err)
		}
		schema = r
	}
	req := Request{System: system, MaxTokens: a.MaxTokens, Temperature: a.Temperature}
	if a.Model != "" {
		if cfg.AllowModelOverride == nil || !cfg.AllowModelOverride() {
			return tools.Result{}, errors.New("model: choosing a model is off (plugins.entries.llm-task.llm.allowModelOverride)")
		}
		req.Models = []string{a.Model}
	}
	timeout := defaultTimeout
	if a.TimeoutMs > 0 {
		timeout = time.Duration(a.TimeoutMs) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	req.Prompt = taskPrompt(a)
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		text, err := c.Complete(ctx, who, req)
		if err != nil {
			return tools.Result{}, fmt.Errorf("model: %w", err)
		}
		value, err := parseJSON(text)
		if err == nil && schema != nil {
			if verr := schema.Validate(value); verr != nil {
				err = fmt.Errorf("does not match the schema: %w", verr)
			}
		}
		if err == nil {
			out, _ := json.Marshal(value)
			return tools.Result{Text: string(out)}, nil
		}
		lastErr = err
		// One more try, telling the model what was wrong: models often
		// fix a missing field or a stray sentence when shown the error.
		req.Prompt = taskPrompt(a) + "\n\nYour previous answer was rejected: " + err.Error() +
			"\nPrevious answer:\n" + clip(text, 2000) + "\nAnswer again with only the JSON value."
	}
	return tools.Result{}, fmt.Errorf("the model's answer is not usable JSON: %w", lastErr)
}

// taskPrompt puts the prompt, the input and the schema into one message.
func taskPrompt(a Args) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(a.Prompt))
	if len(bytes.TrimSpace(a.Input)) > 0 {
		b.WriteString("\n\nInput (JSON):\n")
		b.Write(bytes.TrimSpace(a.Input))
	}
	if len(bytes.TrimSpace(a.Schema)) > 0 {
		b.WriteString("\n\nJSON Schema of the answer:\n")
		b.Write(bytes.TrimSpace(a.Schema))
	}
	return b.String()
}

// parseJSON reads the model's answer as one JSON value, tolerating a
// Markdown code fence around it.
func parseJSON(text string) (any, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```")
		t = strings.TrimPrefix(t, "json")
		t = strings.TrimSuffix(strings.TrimSpace(t), "```")
	}
	// Plain float64 numbers: what the schema validator expects.
	dec := json.NewDecoder(strings.NewReader(t))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
