// Package openaihttp serves OpenAI's Chat Completions API over the
// agents (gateway.http.endpoints.chatCompletions): POST
// /v1/chat/completions runs a turn of the agent the model field names,
// GET /v1/models lists the agents as models. The bearer key is the
// gateway's token or password, so a caller has full operator access.
package openaihttp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// maxBody is the largest request body, OpenClaw's.
const maxBody = 20 << 20

// Agents runs the turns.
type Agents interface {
	Start(ctx context.Context, req agents.StartRequest) (run *agents.Run, dup bool, err error)
	Abort(sessionKey, runID string) bool
}

// Options are what the endpoints need from the gateway.
type Options struct {
	// Config is the running config (read per request, so a reload turns
	// the endpoint on or off).
	Config func() *config.Config
	Agents Agents
	// Auth wraps a handler in the gateway's bearer check.
	Auth func(http.HandlerFunc) http.HandlerFunc
	Log  *slog.Logger
}

// Endpoint is the gateway part serving the API.
type Endpoint struct{ opts Options }

// New makes the part.
func New(opts Options) *Endpoint { return &Endpoint{opts: opts} }

// Name names the part.
func (*Endpoint) Name() string { return "openai-http" }

// Prepare has nothing to build: the endpoint reads the config per request.
func (*Endpoint) Prepare(*config.Snapshot) (func(), error) { return nil, nil }

// Close has nothing to stop: turns end with their requests.
func (*Endpoint) Close(context.Context) error { return nil }

// Register adds the routes.
func (e *Endpoint) Register(_ *rpc.Server, mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/chat/completions", e.enabled(e.opts.Auth(e.chatCompletions)))
	mux.HandleFunc("GET /v1/models", e.enabled(e.opts.Auth(e.models)))
	mux.HandleFunc("GET /v1/models/{id...}", e.enabled(e.opts.Auth(e.model)))
}

// enabled answers 404, before any auth, while the endpoint is off.
func (e *Endpoint) enabled(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !e.opts.Config().Gateway.HTTP.Endpoints.ChatCompletions.Enabled {
			http.NotFound(w, r)
			return
		}
		next(w, r)
	}
}

// apiError is OpenAI's error body.
type apiError struct {
	status  int
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   string `json:"param,omitempty"`
	Code    string `json:"code,omitempty"`
}

func (e *apiError) Error() string { return e.Message }

func invalid(param, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, Type: "invalid_request_error", Param: param, Message: fmt.Sprintf(format, args...)}
}

func writeError(w http.ResponseWriter, err *apiError) {
	writeJSON(w, err.status, map[string]any{"error": err})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// modelIDs are the agent targets /v1/models lists.
func modelIDs(cfg *config.Config) []string {
	ids := []string{"openclaw", "openclaw/default"}
	for _, id := range cfg.AgentIDs() {
		ids = append(ids, "openclaw/"+id)
	}
	return ids
}

func modelObject(id string) map[string]any {
	return map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "openclaw"}
}

func (e *Endpoint) models(w http.ResponseWriter, r *http.Request) {
	var data []map[string]any
	for _, id := range modelIDs(e.opts.Config()) {
		data = append(data, modelObject(id))
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (e *Endpoint) model(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !slices.Contains(modelIDs(e.opts.Config()), id) {
		writeError(w, &apiError{status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
			Message: fmt.Sprintf("The model %q does not exist: models here are agents (openclaw, openclaw/default, openclaw/<agentId>)", id)})
		return
	}
	writeJSON(w, http.StatusOK, modelObject(id))
}

// agentOf is the agent a model field names: openclaw and
// openclaw/default the default agent, openclaw/<id>, openclaw:<id> and
// agent:<id> that agent.
func agentOf(cfg *config.Config, model string) (string, *apiError) {
	var id string
	switch {
	case model == "openclaw" || model == "openclaw/default":
		return cfg.DefaultAgentID(), nil
	case strings.HasPrefix(model, "openclaw/"):
		id = strings.TrimPrefix(model, "openclaw/")
	case strings.HasPrefix(model, "openclaw:"):
		id = strings.TrimPrefix(model, "openclaw:")
	case strings.HasPrefix(model, "agent:"):
		id = strings.TrimPrefix(model, "agent:")
	default:
		return "", &apiError{status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
			Message: fmt.Sprintf("The model %q does not exist: name an agent (openclaw, openclaw/default or openclaw/<agentId>); pick its backend model with x-openclaw-model", model)}
	}
	if !slices.Contains(cfg.AgentIDs(), id) {
		return "", &apiError{status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
			Message: fmt.Sprintf("The model %q does not exist: there is no agent %q (agents: %s)", model, id, strings.Join(cfg.AgentIDs(), ", "))}
	}
	return id, nil
}

// reservedNamespaces are the session-key parts a caller may not route
// into: they belong to sub-agents, jobs and ACP.
var reservedNamespaces = []string{"subagent:", "cron:", "acp:"}

// userKeyRE is what of a user string may stand in a session key as is.
var userKeyRE = regexp.MustCompile(`^[A-Za-z0-9._@:-]{1,64}$`)

// sessionKeyOf is the turn's session: x-openclaw-session-key, else one
// derived from the user field (stable, so calls with the same user share
// the session), else a fresh one (stateless). fresh says so.
func sessionKeyOf(agentID string, r *http.Request, user string) (key string, fresh bool, _ *apiError) {
	if k := strings.TrimSpace(r.Header.Get("X-OpenClaw-Session-Key")); k != "" {
		lower := strings.ToLower(k)
		for _, ns := range reservedNamespaces {
			if strings.HasPrefix(lower, ns) || strings.Contains(lower, ":"+ns) {
				return "", false, invalid("x-openclaw-session-key", "session key %q is in a reserved namespace (%s)", k, strings.Join(reservedNamespaces, ", "))
			}
		}
		if len(k) > 256 || strings.ContainsAny(k, "\n\r\x00") {
			return "", false, invalid("x-openclaw-session-key", "session key must be one line of at most 256 characters")
		}
		return k, false, nil
	}
	if user = strings.TrimSpace(user); user != "" {
		part := user
		if !userKeyRE.MatchString(user) {
			sum := sha256.Sum256([]byte(user))
			part = "h" + hex.EncodeToString(sum[:12])
		}
		return "agent:" + agentID + ":openai-user:" + strings.ToLower(part), false, nil
	}
	return "agent:" + agentID + ":openai:" + uuid.NewString(), true, nil
}

// chatRequest is the part of OpenAI's request body read here.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	User                string          `json:"user"`
	Tools               json.RawMessage `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	MaxTokens           *float64        `json:"max_tokens"`
	MaxCompletionTokens *float64        `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	FrequencyPenalty    *float64        `json:"frequency_penalty"`
	PresencePenalty     *float64        `json:"presence_penalty"`
	Seed                *float64        `json:"seed"`
	Stop                json.RawMessage `json:"stop"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is a message's content: a string, or the text of its parts. An
// image or file part is refused: this endpoint reads text only.
func (m chatMessage) text(i int) (string, *apiError) {
	param := fmt.Sprintf("messages[%d].content", i)
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", invalid(param, "content must be a string or an array of content parts")
	}
	var b []string
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text":
			b = append(b, p.Text)
		default:
			return "", invalid(param, "content part type %q is not supported here: send text", p.Type)
		}
	}
	return strings.Join(b, "\n"), nil
}

// check refuses what OpenAI itself would refuse, and what this endpoint
// cannot honour (client tools).
func (c *chatRequest) check() *apiError {
	if strings.TrimSpace(c.Model) == "" {
		return invalid("model", "model is required (openclaw/default, or openclaw/<agentId>)")
	}
	if len(c.Messages) == 0 {
		return invalid("messages", "messages must hold at least one message")
	}
	if len(c.Tools) > 0 && string(c.Tools) != "null" && string(c.Tools) != "[]" {
		return invalid("tools", "client tools are not supported by this gateway: the agent calls its own tools")
	}
	ranges := []struct {
		name     string
		v        *float64
		lo, hi   float64
		integral bool
	}{
		{"temperature", c.Temperature, 0, 2, false}, {"top_p", c.TopP, 0, 1, false},
		{"frequency_penalty", c.FrequencyPenalty, -2, 2, false}, {"presence_penalty", c.PresencePenalty, -2, 2, false},
		{"max_tokens", c.MaxTokens, 1, 1 << 53, true}, {"max_completion_tokens", c.MaxCompletionTokens, 1, 1 << 53, true},
		{"seed", c.Seed, -(1 << 53), 1 << 53, true},
	}
	for _, r := range ranges {
		if r.v == nil {
			continue
		}
		if *r.v < r.lo || *r.v > r.hi || r.integral && *r.v != float64(int64(*r.v)) {
			return invalid(r.name, "%s %v is out of range", r.name, *r.v)
		}
	}
	if len(c.Stop) > 0 && string(c.Stop) != "null" {
		var one string
		var many []string
		if json.Unmarshal(c.Stop, &one) != nil && (json.Unmarshal(c.Stop, &many) != nil || len(many) > 4 || slices.Contains(many, "")) {
			return invalid("stop", "stop must be a string or up to 4 non-empty strings")
		}
	}
	return nil
}

// prompt builds the turn from the messages: system and developer
// messages become extra system prompt, the last user message is the
// turn's message, and, for a stateless call (a session of its own), the
// messages before it are given as the conversation so far.
func prompt(msgs []chatMessage, fresh bool) (message, system string, _ *apiError) {
	last := -1
	for i, m := range msgs {
		if m.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		return "", "", invalid("messages", "messages must hold a user message")
	}
	var systems, history []string
	for i, m := range msgs {
		text, err := m.text(i)
		if err != nil {
			return "", "", err
		}
		switch m.Role {
		case "system", "developer":
			systems = append(systems, text)
		case "user", "assistant":
			if i < last && strings.TrimSpace(text) != "" {
				history = append(history, "["+m.Role+"] "+text)
			}
			if i == last {
				message = text
			}
		case "tool", "function":
			return "", "", invalid(fmt.Sprintf("messages[%d].role", i), "role %q is not supported here: the agent calls its own tools", m.Role)
		default:
			return "", "", invalid(fmt.Sprintf("messages[%d].role", i), "unknown role %q", m.Role)
		}
	}
	if strings.TrimSpace(message) == "" {
		return "", "", invalid(fmt.Sprintf("messages[%d].content", last), "the last user message is empty")
	}
	if fresh && len(history) > 0 {
		message = "The conversation so far:\n" + strings.Join(history, "\n") + "\n\nThe new message:\n" + message
	}
	return message, strings.Join(systems, "\n\n"), nil
}

func (e *Endpoint) chatCompletions(w http.ResponseWriter, r *http.Request) {
	// A web page's request is refused by the bearer check (without auth,
	// by its Origin); a browser sends JSON only after a CORS preflight,
	// which is never answered here, so a form or text/plain post stops
	// at this too.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, &apiError{status: http.StatusUnsupportedMediaType, Type: "invalid_request_error", Message: "send the request as Content-Type: application/json"})
		return
	}
	cfg := e.opts.Config()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, &apiError{status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Message: "the request body is over 20 MB"})
			return
		}
		writeError(w, invalid("", "read body: %v", err))
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, invalid("", "the body is not a JSON chat completion request: %v", err))
		return
	}
	if apiErr := req.check(); apiErr != nil {
		writeError(w, apiErr)
		return
	}
	model := req.Model
	if h := strings.TrimSpace(r.Header.Get("X-OpenClaw-Agent-Id")); h != "" {
		model = "openclaw/" + h
	}
	agentID, apiErr := agentOf(cfg, model)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	key, fresh, apiErr := sessionKeyOf(agentID, r, req.User)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	message, system, apiErr := prompt(req.Messages, fresh)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	id := "chatcmpl-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	start := agents.StartRequest{
		AgentID: agentID, SessionKey: key, Message: message, RunID: id, ExtraSystemPrompt: system,
		// The bearer is the gateway's secret: the caller is the operator.
		Owner:   true,
		Channel: strings.TrimSpace(r.Header.Get("X-OpenClaw-Message-Channel")),
	}
	if m := strings.TrimSpace(r.Header.Get("X-OpenClaw-Model")); m != "" {
		start.Models = []string{cmp.Or(cfg.ResolveModel(m), m)}
	}
	created := time.Now().Unix()
	var stream *sseStream
	if req.Stream {
		stream = newSSEStream(w, id, req.Model, created)
		start.OnText = stream.delta
	}
	run, _, err := e.opts.Agents.Start(r.Context(), start)
	if err != nil {
		if stream != nil {
			stream.fail(err.Error())
			return
		}
		writeError(w, &apiError{status: http.StatusBadRequest, Type: "invalid_request_error", Message: err.Error()})
		return
	}
	select {
	case <-run.Done():
	case <-r.Context().Done():
		// The caller went away: so does its turn.
		e.opts.Agents.Abort(key, run.ID)
		<-run.Done()
		return
	}
	res := run.Result()
	if res.Status != "ok" {
		msg := cmp.Or(res.Error, "the agent run ended with status "+res.Status)
		e.opts.Log.Warn("chat completion failed", "agent", agentID, "runId", id, "status", res.Status, "err", msg)
		if stream != nil {
			stream.fail(msg)
			return
		}
		writeError(w, &apiError{status: http.StatusBadGateway, Type: "api_error", Message: msg})
		return
	}
	usage := map[string]any{"prompt_tokens": res.Usage.InputTokens, "completion_tokens": res.Usage.OutputTokens, "total_tokens": res.Usage.Total()}
	if stream != nil {
		stream.finish(res.Text, req.StreamOptions != nil && req.StreamOptions.IncludeUsage, usage)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": id, "object": "chat.completion", "created": created, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": res.Text}, "finish_reason": "stop"}},
		"usage":   usage,
	})
}
