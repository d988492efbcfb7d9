package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
)

// resumeRequest is what a resumable run keeps of its StartRequest to be
// started again: everything but the message, which is in the transcript.
type resumeRequest struct {
	TimeoutMs         int64    `json:"timeoutMs,omitempty"`
	ExtraSystemPrompt string   `json:"extraSystemPrompt,omitempty"`
	SpawnedBy         string   `json:"spawnedBy,omitempty"`
	Depth             int      `json:"depth,omitempty"`
	Label             string   `json:"label,omitempty"`
	Models            []string `json:"models,omitempty"`
	ToolsAllow        []string `json:"toolsAllow,omitempty"`
	ToolsDeny         []string `json:"toolsDeny,omitempty"`
	// Owner is the authority the run was accepted with: a turn resumed
	// after a restart goes on as the one cut off would have.
	Owner bool `json:"owner,omitempty"`
}

func resumeOf(req StartRequest) json.RawMessage {
	b, _ := json.Marshal(resumeRequest{
		TimeoutMs: req.Timeout.Milliseconds(), ExtraSystemPrompt: req.ExtraSystemPrompt, SpawnedBy: req.SpawnedBy,
		Depth: req.Depth, Label: req.Label, Models: req.Models, ToolsAllow: req.ToolsAllow, ToolsDeny: req.ToolsDeny, Owner: req.Owner,
	})
	return b
}

// Resume runs again the turns an operator client was told were accepted
// and that the previous process did not finish (it crashed, or stopped
// mid-turn): each is queued in its session, in the order accepted, under
// its old run id, so agent.wait and repeats of its idempotency key find
// it. A turn whose answer was stored before the stop is not run again.
// Call it once at start, before the bus serves clients. It returns how
// many turns it queued.
func (s *Service) Resume(ctx context.Context) (int, error) {
	pending, err := s.opts.Store.AcceptedRuns(ctx)
	if err != nil {
		return 0, fmt.Errorf("resume accepted runs: %w", err)
	}
	cfg := s.config()
	n := 0
	for _, a := range pending {
		log := s.log.With("runId", a.RunID, "sessionKey", a.SessionKey)
		drop := func(why string) {
			log.Warn("accepted run not resumed", "reason", why)
			s.endAccepted(a.RunID)
		}
		if _, ok := s.Lookup(a.RunID); ok {
			continue // already started again in this process
		}
		asked, err := s.opts.Store.HasUserMessage(ctx, a.SessionID, a.RunID)
		if err != nil {
			return n, fmt.Errorf("resume run %s: %w", a.RunID, err)
		}
		if !asked {
			drop("its message is gone (the transcript was deleted)")
			continue
		}
		if _, answered, err := s.opts.Store.RunAnswer(ctx, a.SessionID, a.RunID); err != nil {
			return n, fmt.Errorf("resume run %s: %w", a.RunID, err)
		} else if answered {
			s.endAccepted(a.RunID) // the stop came after the answer was stored
			continue
		}
		agent, ok := resolveAgent(cfg, s.opts.StateDir, a.AgentID)
		if !ok {
			drop("agent " + a.AgentID + " is no longer configured")
			continue
		}
		var rr resumeRequest
		if err := json.Unmarshal(a.Request, &rr); err != nil {
			drop("its request does not decode: " + err.Error())
			continue
		}
		req := StartRequest{
			AgentID: agent.ID, SessionKey: a.SessionKey, RunID: a.RunID, Timeout: time.Duration(rr.TimeoutMs) * time.Millisecond,
			ExtraSystemPrompt: rr.ExtraSystemPrompt, SpawnedBy: rr.SpawnedBy, Depth: rr.Depth, Label: rr.Label,
			Models: rr.Models, ToolsAllow: rr.ToolsAllow, ToolsDeny: rr.ToolsDeny, Owner: rr.Owner, Resumable: true,
		}
		// The session's own model override, if it still has one; the run
		// stays in the transcript it was accepted into even if the key was
		// reset since.
		sess, err := s.opts.Store.Get(ctx, a.SessionKey)
		if err != nil {
			sess = &sessions.Session{}
		}
		run := &Run{ID: a.RunID, AgentID: agent.ID, SessionKey: a.SessionKey, SessionID: a.SessionID, AcceptedAt: a.AcceptedAt, done: make(chan struct{})}
		s.register(run)
		s.launch(run, agent, sess, req, false)
		log.Info("accepted run resumed after a restart")
		n++
	}
	return n, nil
}
