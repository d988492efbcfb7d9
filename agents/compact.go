package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/sessions"
)

// compactPrompt asks the model for the summary that replaces older turns
// in the context. The transcript itself keeps every message.
const compactPrompt = `Summarise the conversation below for your own later use. Keep facts, decisions, names, numbers, open tasks and anything the user asked you to remember; drop small talk. Write plain prose, at most a few paragraphs.`

// maybeCompact summarises the older part of a run's context (history,
// the run's turn of full, the session's whole context) when it nears the
// model's window, records the summary, and returns the context to use and
// whether it was compacted.
// On any failure it returns the context unchanged: a long prompt beats a
// lost turn.
func (s *Service) maybeCompact(ctx context.Context, ev *runEvents, chain *providers.Chain, sessionID, modelRef string, full, history []sessions.Message) (_ []sessions.Message, compacted bool) {
	window := s.contextWindow(modelRef)
	older, recent, need := sessions.SplitForCompaction(history, window, window/4)
	if !need || len(older) == 0 {
		return history, false
	}
	out, _, err := s.summarise(ctx, ev.agent, chain, sessionID, full, older, recent)
	if err != nil {
		return history, false
	}
	return out, true
}

// errNothingToCover means a summary could cover no message: the part
// chosen to summarise is interleaved with a later turn's messages.
var errNothingToCover = errors.New("no message can be summarised without covering a later turn")

// summarise asks chain for a summary of older (the part of full, the
// session's whole context, that SplitForCompaction chose), records it and
// returns the context that follows: the summary, the messages older must
// keep verbatim, then recent. note hears the compaction's progress
// (start, end, error). Both a run's automatic compaction and
// sessions.compact go through here, so there is one way a transcript is
// summarised.
func (s *Service) summarise(ctx context.Context, note func(stream string, data map[string]any), chain *providers.Chain, sessionID string, full, older, recent []sessions.Message) (_ []sessions.Message, through int64, _ error) {
	// The summary must not cover a later turn's message this run does not
	// see: that turn's own run would lose it.
	through, older, keep := sessions.SummaryCut(full, older)
	if through == 0 {
		return nil, 0, errNothingToCover
	}
	var b strings.Builder
	for _, m := range older {
		switch m.Role {
		case "tool":
			fmt.Fprintf(&b, "[tool %s result] %s\n", m.ToolName, clip(m.Text, 2000))
		default:
			fmt.Fprintf(&b, "[%s] %s\n", m.Role, m.Text)
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "[%s called %s %s]\n", m.Role, c.Name, clip(string(c.Arguments), 500))
			}
		}
	}
	note("compaction", map[string]any{"phase": "start", "messages": len(older)})
	resp, _, err := chain.Complete(ctx, providers.Request{
		System:   compactPrompt,
		Messages: []providers.Message{{Role: providers.RoleUser, Text: b.String()}},
	}, providers.Hooks{})
	if err == nil && strings.TrimSpace(resp.Text) == "" {
		err = errors.New("the model answered with an empty summary")
	}
	if err != nil {
		s.log.Warn("compaction failed; sending the full context", "session", sessionID, "err", err)
		note("compaction", map[string]any{"phase": "error"})
		return nil, 0, fmt.Errorf("summarise session %s: %w", sessionID, err)
	}
	if err := s.opts.Store.AppendSummary(context.WithoutCancel(ctx), sessionID, resp.Text, through); err != nil {
		s.log.Warn("save compaction summary", "session", sessionID, "err", err)
		return nil, 0, fmt.Errorf("save the summary of session %s: %w", sessionID, err)
	}
	note("compaction", map[string]any{"phase": "end", "messages": len(older), "throughSeq": through})
	out := append([]sessions.Message{{Role: "system", Text: resp.Text, Summary: true, SummaryThrough: through}}, keep...)
	return append(out, recent...), through, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
