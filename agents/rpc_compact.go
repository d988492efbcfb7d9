package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// sessionsCompactParams are sessions.compact's: the session, the agent
// that owns it (a check for global keys), and maxLines to truncate
// instead of summarising.
type sessionsCompactParams struct {
	Key      string `json:"key"`
	AgentID  string `json:"agentId"`
	MaxLines *int   `json:"maxLines"`
}

// Validate implements rpc.Validator.
func (p sessionsCompactParams) Validate() error {
	if p.Key == "" {
		return errors.New("key is required")
	}
	if p.MaxLines != nil && *p.MaxLines < 1 {
		return fmt.Errorf("maxLines must be at least 1, got %d", *p.MaxLines)
	}
	return nil
}

// compactResult is sessions.compact's answer. Result is set by a summary,
// Kept by a truncation, Reason when nothing was compacted.
type compactResult struct {
	OK        bool           `json:"ok"`
	Key       string         `json:"key"`
	Compacted bool           `json:"compacted"`
	Result    *compactTokens `json:"result,omitempty"`
	Kept      *int           `json:"kept,omitempty"`
	Reason    string         `json:"reason,omitempty"`
}

// compactTokens are the context's estimated size around a summary.
type compactTokens struct {
	TokensBefore int `json:"tokensBefore"`
	TokensAfter  int `json:"tokensAfter"`
}

func (s *Service) registerCompact(srv *rpc.Server) {
	srv.HandleFunc("sessions.compact", rpc.Typed(s.handleSessionsCompact))
}

// handleSessionsCompact compacts a session's context now: it summarises
// all but the last message with the session's model, the way a run
// compacts near the window, or with maxLines drops all but the last
// maxLines messages. Either way the compaction is a summary entry in the
// transcript, which keeps every message (chat.history still shows them);
// only what the model is sent shrinks. It runs in the session's lane, so
// it never races a turn, and a sessions.delete or abort cancels it.
func (s *Service) handleSessionsCompact(ctx context.Context, req *rpc.Request, p sessionsCompactParams) (*compactResult, error) {
	sess, err := s.session(ctx, req.Method, p.Key)
	if err != nil {
		return nil, err
	}
	if p.AgentID != "" && sessions.NormalizeAgentID(p.AgentID) != sess.AgentID {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "session %q belongs to agent %q, not %q", p.Key, sess.AgentID, p.AgentID)
	}
	var (
		res    *compactResult
		jobErr error
	)
	id := "compact-" + uuid.NewString()
	s.queue.Enqueue(sess.Key, sessions.Job{ID: id, Run: func(jctx context.Context) {
		if p.MaxLines != nil {
			res, jobErr = s.truncate(jctx, sess, *p.MaxLines)
		} else {
			res, jobErr = s.compactNow(jctx, sess)
		}
	}})
	// The caller going away does not stop a compaction under way; only an
	// abort of the session (or shutdown) does.
	if err := s.queue.Wait(context.WithoutCancel(ctx), id); err != nil {
		return nil, protocol.Errorf(protocol.CodeUnavailable, "compaction of %q did not run: %v", p.Key, err)
	}
	if jobErr != nil {
		return nil, jobErr
	}
	if res.Compacted {
		if now, err := s.opts.Store.Get(ctx, sess.Key); err == nil {
			s.sessionsChanged(sess.Key, "compact", now)
		}
	}
	return res, nil
}

// compactNow summarises the session's context but its last message.
func (s *Service) compactNow(ctx context.Context, sess *sessions.Session) (*compactResult, error) {
	full, err := s.opts.Store.Context(ctx, sess.SessionID)
	if err != nil {
		return nil, fmt.Errorf("load transcript of %s: %w", sess.Key, err)
	}
	if !slices.ContainsFunc(full, func(m sessions.Message) bool { return !m.Summary }) {
		return &compactResult{OK: true, Key: sess.Key, Reason: "no messages since the last compaction"}, nil
	}
	agent, ok := resolveAgent(s.config(), s.opts.StateDir, sess.AgentID)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "session %q belongs to agent %q, which is not configured", sess.Key, sess.AgentID)
	}
	models := agent.Models
	if sess.Model != "" {
		models = append([]string{sess.Model}, slices.DeleteFunc(slices.Clone(models), func(m string) bool { return m == sess.Model })...)
	}
	chain, err := s.chain(models)
	if err == nil && len(chain.Steps) == 0 {
		err = fmt.Errorf("no model configured for agent %s to summarise with", agent.ID)
	}
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeUnavailable, "compact %q: %v", sess.Key, err)
	}
	// A context window of 0 makes the split always due; keeping 0 recent
	// tokens keeps only the last message (with its tool calls' pairs):
	// someone asked for this compaction, so it frees all it can.
	older, recent, _ := sessions.SplitForCompaction(full, 0, 0)
	note := func(stream string, data map[string]any) {
		s.log.Info("manual compaction", "session", sess.Key, "stream", stream, "phase", data["phase"])
	}
	out, _, err := s.summarise(ctx, note, chain, sess.SessionID, agent.Workspace, full, older, recent)
	switch {
	case errors.Is(err, errNothingToCover):
		return &compactResult{OK: true, Key: sess.Key, Reason: "nothing to summarise before the last message"}, nil
	case err != nil:
		return nil, protocol.Errorf(protocol.CodeUnavailable, "compact %q: %v", sess.Key, err)
	}
	return &compactResult{OK: true, Key: sess.Key, Compacted: true,
		Result: &compactTokens{TokensBefore: sessions.EstimateTokens(full), TokensAfter: sessions.EstimateTokens(out)}}, nil
}

// truncatedNote is the summary a truncation leaves, so the model knows
// the conversation did not start where its context does.
const truncatedNote = "Earlier messages of this conversation were dropped from the context by an operator (sessions.compact maxLines)."

// truncate drops all but the last maxLines messages from the context. A
// kept tool result keeps the call it answers, so a few more may stay.
func (s *Service) truncate(ctx context.Context, sess *sessions.Session, maxLines int) (*compactResult, error) {
	full, err := s.opts.Store.Context(ctx, sess.SessionID)
	if err != nil {
		return nil, fmt.Errorf("load transcript of %s: %w", sess.Key, err)
	}
	msgs := slices.DeleteFunc(full, func(m sessions.Message) bool { return m.Summary })
	if len(msgs) <= maxLines {
		return &compactResult{OK: true, Key: sess.Key,
			Reason: fmt.Sprintf("the context holds %d messages, not more than maxLines %d", len(msgs), maxLines)}, nil
	}
	cut := len(msgs) - maxLines
	for cut > 0 && msgs[cut].Role == sessions.RoleTool {
		cut-- // keep the assistant message whose call this answers
	}
	if cut == 0 {
		return &compactResult{OK: true, Key: sess.Key, Reason: "the last messages are one tool exchange, which cannot be split"}, nil
	}
	if err := s.opts.Store.AppendSummary(context.WithoutCancel(ctx), sess.SessionID, truncatedNote, msgs[cut-1].Seq); err != nil {
		return nil, fmt.Errorf("truncate %s: %w", sess.Key, err)
	}
	kept := len(msgs) - cut
	return &compactResult{OK: true, Key: sess.Key, Compacted: true, Kept: &kept}, nil
}
