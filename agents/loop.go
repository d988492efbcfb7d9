package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/tools"
)

// maxObservationChars bounds one tool result in the conversation, the
// tools runner's cap: registry tools already fit under it, so this cut
// only reaches other runners' results, and keeps their JSON JSON.
const maxObservationChars = tools.DefaultMaxResultChars

// execute runs the turn loop of one run: model, then tool calls, then
// the model again with their results, until a final answer.
func (s *Service) execute(ctx context.Context, run *Run, agent resolvedAgent, models []string, req StartRequest) (res RunResult) {
	ev := &runEvents{emit: s.opts.Emit, runID: run.ID, sessionKey: run.SessionKey, sessionID: run.SessionID, agentID: agent.ID, spawnedBy: req.SpawnedBy, heartbeat: req.Heartbeat,
		onText: req.OnText, onDelta: req.OnDelta, onNotice: req.OnNotice}
	res.StartedAt = time.Now()
	ev.lifecycle("start", nil)
	defer func() {
		res.EndedAt = time.Now()
		s.report(ev, &res)
	}()
	// Writes after an abort must still land: the transcript keeps what
	// happened.
	save := context.WithoutCancel(ctx)
	turn := &Turn{RunID: run.ID, AgentID: agent.ID, SessionKey: run.SessionKey, SessionID: run.SessionID, SpawnedBy: req.SpawnedBy, Depth: req.Depth,
		ToolsAllow: req.ToolsAllow, ToolsDeny: req.ToolsDeny, Owner: req.Owner}

	chain, err := s.chain(models)
	if err == nil && len(chain.Steps) == 0 {
		err = &providers.Error{Kind: providers.KindNotConfigured, Message: "no model configured for agent " + agent.ID +
			": set agents.defaults.model (or agents.entries." + agent.ID + ".model) to \"provider/model\" and configure models.providers.<provider> {baseUrl, apiKey}"}
	}
	if err != nil {
		return failed(res, err)
	}
	s.prepareWorkspace(agent.Workspace)
	agent.File = readIdentityFile(agent.Workspace) // the ritual may have just written it
	if c, ok := s.opts.Tools.(ToolSetChecker); ok {
		if err := c.CheckTools(ctx, turn); err != nil {
			s.log.Warn("agent run stopped before the model: no callable tools", "agent", agent.ID, "runId", run.ID, "err", err)
			return failed(res, fmt.Errorf("%w; the model was not called: fix the allow list, or enable the plugin that provides those tools", err))
		}
	}
	tools := s.opts.Tools.Tools(ctx, turn)
	extra := req.ExtraSystemPrompt
	var private bool
	private, extra = s.visibleDelivery(req, tools, extra, agent.ID, run.ID)
	defer func() { res.Private = private }()
	if s.opts.PromptInjections != nil {
		extra = strings.Join(append([]string{extra}, s.opts.PromptInjections()...), "\n\n")
	}
	if s.opts.SkillDirectory != nil {
		// Only the one-line directory: a loaded skill comes back as a tool
		// result, so the system prompt (and its cache) stays the same.
		if dir := s.opts.SkillDirectory(ctx, agent.ID); dir != "" {
			extra = strings.TrimSpace(extra + "\n\n" + dir)
		}
	}
	full, err := s.opts.Store.Context(ctx, run.SessionID)
	if err != nil {
		return failedCtx(ctx, res, fmt.Errorf("load transcript: %w", err))
	}
	// The context ends at this run's own message: messages queued behind
	// it are their own runs' to answer.
	history := sessions.TurnContext(full, run.ID)
	history, compacted := s.maybeCompact(ctx, ev, chain, run.SessionID, chain.Steps[0].Ref(), agent.Workspace, full, history)
	cfg := s.config()
	system := buildSystemPrompt(agent, tools, extra, promptOptions{
		SkipWorkspace: skipWorkspaceFiles(agent.ContextInjection, history, run.ID, req.Heartbeat || compacted),
		Timezone:      cfg.Agents.Defaults.UserTimezone,
	})
	msgs := toProviderMessages(history)
	run.steer.setOpen(true)
	defer run.steer.setOpen(false)
	steered := func(texts []string) error {
		for _, text := range texts {
			if err := s.opts.Store.Append(save, run.SessionID, sessions.Message{Role: "user", Text: text, RunID: run.ID, Ts: time.Now()}); err != nil {
				return fmt.Errorf("save steered message: %w", err)
			}
			msgs = append(msgs, providers.Message{Role: providers.RoleUser, Text: text})
		}
		return nil
	}

	for step := 0; step < s.opts.MaxSteps; step++ {
		ev.newStep()
		if step > 0 {
			// enable_tool may have activated a tool for this step on.
			tools = s.opts.Tools.Tools(ctx, turn)
		}
		hooks := providers.Hooks{OnDelta: ev.delta, OnRestart: func(error) { ev.restart() }}
		var filter func(string) string
		if s.opts.AfterLLM != nil {
			if f, on := s.opts.AfterLLM(); on {
				filter, hooks = f, providers.Hooks{} // hold the answer until filtered
			}
		}
		resp, _, err := chain.Complete(ctx, providers.Request{System: system, Messages: withoutImagesFor(s.config(), chain.Steps[0].Ref(), msgs), Tools: tools}, hooks)
		if err != nil {
			return failedCtx(ctx, res, err)
		}
		if filter != nil {
			resp.Text = filter(resp.Text)
			if resp.Text != "" {
				ev.delta(resp.Text)
			}
		}
		res.Provider, res.Model, res.StopReason = resp.Provider, resp.Model, resp.StopReason
		res.Usage.InputTokens += resp.Usage.InputTokens
		res.Usage.OutputTokens += resp.Usage.OutputTokens
		res.Usage.CacheReadTokens += resp.Usage.CacheReadTokens
		res.Usage.CacheWriteTokens += resp.Usage.CacheWriteTokens
		turn.Model = resp.Provider + "/" + resp.Model
		if err := s.opts.Store.Append(save, run.SessionID, sessions.Message{
			Role: "assistant", Text: resp.Text, ToolCalls: toSessionCalls(resp.ToolCalls), Provider: resp.Provider, Model: resp.Model,
			Usage: sessions.Usage{Input: resp.Usage.InputTokens, Output: resp.Usage.OutputTokens}, StopReason: resp.StopReason,
			RunID: run.ID, Ts: time.Now(),
		}); err != nil {
			return failed(res, fmt.Errorf("save answer: %w", err))
		}
		msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			// Messages steered in meanwhile get their answer in this run.
			more := run.steer.take(true)
			if len(more) == 0 {
				res.Status, res.Text = "ok", resp.Text
				return res
			}
			if err := steered(more); err != nil {
				return failed(res, err)
			}
			continue
		}
		results := s.runTools(ctx, turn, ev, resp.ToolCalls)
		for i, call := range resp.ToolCalls {
			r := results[i]
			if err := s.opts.Store.Append(save, run.SessionID, sessions.Message{
				Role: "tool", Text: r.Text, ToolCallID: call.ID, ToolName: call.Name, IsError: r.IsError, RunID: run.ID, Ts: time.Now(),
			}); err != nil {
				return failed(res, fmt.Errorf("save tool result: %w", err))
			}
			// Pictures reach the model for this turn only; the transcript
			// keeps the text, which names the file.
			msgs = append(msgs, providers.Message{Role: providers.RoleTool, Text: r.Text, ToolCallID: call.ID, ToolName: call.Name,
				IsError: r.IsError, Images: r.Images})
		}
		if ctx.Err() != nil {
			return failedCtx(ctx, res, ctx.Err())
		}
		if err := steered(run.steer.take(false)); err != nil {
			return failed(res, err)
		}
	}
	return failed(res, fmt.Errorf("stopped after %d model calls without a final answer", s.opts.MaxSteps))
}

// runTools runs one step's calls concurrently; results keep the calls'
// order. A failing or panicking tool gives an error result, never a
// failed turn.
func (s *Service) runTools(ctx context.Context, turn *Turn, ev *runEvents, calls []providers.ToolCall) []ToolResult {
	out := make([]ToolResult, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					s.log.Error("tool panicked", "tool", call.Name, "panic", fmt.Sprint(p))
					out[i] = ToolResult{Text: fmt.Sprintf("tool %s failed: internal error", call.Name), IsError: true}
				}
			}()
			ev.agent("tool", map[string]any{"phase": "start", "name": call.Name, "toolCallId": call.ID, "args": call.Arguments})
			started := time.Now()
			// A long tool (a generation job) reports how far it is; those
			// reports go out as update events of this call.
			tctx := tools.WithProgress(ctx, func(p tools.Progress) {
				partial := map[string]any{"text": p.Message}
				if p.Fraction >= 0 {
					partial["progress"] = p.Fraction
				}
				ev.agent("tool", map[string]any{"phase": "update", "name": call.Name, "toolCallId": call.ID, "partialResult": partial})
			})
			r := s.opts.Tools.Run(tctx, turn, call)
			took := time.Since(started)
			r.Text = tools.FitResult(r.Text, maxObservationChars)
			out[i] = r
			ev.agent("tool", map[string]any{"phase": "result", "name": call.Name, "toolCallId": call.ID, "isError": r.IsError, "result": r.Text,
				"durationMs": took.Milliseconds()})
		}()
	}
	wg.Wait()
	return out
}

// skipWorkspaceFiles applies contextInjection: "never" leaves the
// workspace files out of every prompt; "continuation-skip" leaves them out
// once the session has an answer from an earlier run, except for a
// heartbeat or a run that just compacted the context (rebuild says so).
func skipWorkspaceFiles(mode string, history []sessions.Message, runID string, rebuild bool) bool {
	switch mode {
	case "never":
		return true
	case "continuation-skip":
		if rebuild {
			return false
		}
		for _, m := range history {
			if m.Role == "assistant" && len(m.ToolCalls) == 0 && m.RunID != runID && strings.TrimSpace(m.Text) != "" {
				return true
			}
		}
	}
	return false
}

func failed(res RunResult, err error) RunResult {
	res.Status, res.Error = "error", err.Error()
	res.ErrorKind = string(providers.KindOf(err))
	var ce *providers.ChainError
	if errors.As(err, &ce) && len(ce.Attempts) > 0 {
		res.ErrorKind = string(providers.KindOf(ce.Attempts[len(ce.Attempts)-1].Err))
	}
	return res
}

// failedCtx tells an abort or a timeout from a model failure.
func failedCtx(ctx context.Context, res RunResult, err error) RunResult {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Status, res.Error, res.ErrorKind = "timeout", "the run took longer than its timeout", "timeout"
	case errors.Is(ctx.Err(), context.Canceled):
		res.Status, res.Error = "aborted", "aborted"
	default:
		return failed(res, err)
	}
	return res
}

// report sends the run's closing events.
func (s *Service) report(ev *runEvents, res *RunResult) {
	usage := map[string]any{"input": res.Usage.InputTokens, "output": res.Usage.OutputTokens, "total": res.Usage.Total()}
	if cost, ok := usageCost(s.config(), res.Provider+"/"+res.Model, res.Usage); ok {
		usage["cost"] = cost
	}
	switch res.Status {
	case "ok":
		ev.agent("usage", usage)
		ev.chat("final", map[string]any{"stopReason": res.StopReason, "message": assistantMessage(res.Text), "usage": usage})
		ev.lifecycle("end", nil)
	case "aborted":
		ev.chat("aborted", nil)
		ev.lifecycle("end", map[string]any{"aborted": true})
	default:
		kind := res.ErrorKind
		switch kind {
		case "refusal", "timeout", "rate_limit", "context_length":
		default:
			kind = "unknown"
		}
		ev.chat("error", map[string]any{"errorMessage": res.Error, "errorKind": kind})
		ev.lifecycle("error", map[string]any{"error": res.Error})
	}
}

func toSessionCalls(calls []providers.ToolCall) []sessions.ToolCall {
	out := make([]sessions.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = sessions.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	return out
}

// toProviderMessages turns the stored context into model messages;
// summaries and other system notes become user-visible context.
func toProviderMessages(history []sessions.Message) []providers.Message {
	out := make([]providers.Message, 0, len(history))
	for _, m := range history {
		switch m.Role {
		case "user":
			out = append(out, providers.Message{Role: providers.RoleUser, Text: m.Text})
		case "assistant":
			calls := make([]providers.ToolCall, len(m.ToolCalls))
			for i, c := range m.ToolCalls {
				calls[i] = providers.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
			}
			out = append(out, providers.Message{Role: providers.RoleAssistant, Text: m.Text, ToolCalls: calls})
		case "tool":
			out = append(out, providers.Message{Role: providers.RoleTool, Text: m.Text, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError})
		case "system":
			out = append(out, providers.Message{Role: providers.RoleUser, Text: "[Summary of the earlier conversation]\n" + m.Text})
		}
	}
	return out
}
