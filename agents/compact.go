package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// compactPrompt asks the model for the summary that replaces older turns
// in the context. The transcript itself keeps every message.
const compactPrompt = `Summarise the conversation below for your own later use. Keep facts, decisions, names, numbers, open tasks and anything the user asked you to remember; drop small talk. Write plain prose, at most a few paragraphs.`

// strictIdentifiersPrompt is added under identifierPolicy "strict".
const strictIdentifiersPrompt = `Copy every identifier exactly as written: URLs, file paths, ids, hashes, ticket numbers, e-mail addresses. Never shorten, paraphrase or invent one.`

// chunkPrompt continues a safeguard summary over the next chunk.
const chunkPrompt = `The summary so far of the earlier part of the conversation is below, then the next part. Write one summary of both, as instructed.`

// Compaction notices to the chat (agents.defaults.compaction.notifyUser).
const (
	noticeCompacting = "Compacting context..."
	noticeCompacted  = "Compaction complete"
)

// compactionSettings is agents.defaults.compaction as a run applies it.
type compactionSettings struct {
	auto       bool // threshold compaction
	safeguard  bool
	keepRecent int
	turns      int
	strictIDs  bool
	guard      bool
	retries    int
	timeout    time.Duration
	model      string // resolved; "" uses the session's chain
	maxBytes   int64
	notify     bool
	sections   []string
}

func compactionOf(cfg *config.Config) compactionSettings {
	c := cfg.Agents.Defaults.Compaction
	guard, retries := c.Guarded()
	st := compactionSettings{
		auto: c.CompactionOn(), safeguard: c.Safeguard(), strictIDs: c.StrictIdentifiers(), guard: guard, retries: retries,
		keepRecent: c.KeepRecentTokens, turns: c.RecentTurnsPreserve.Or(config.DefaultCompactionRecentTurns),
		timeout: time.Duration(c.TimeoutSeconds) * time.Second, maxBytes: int64(c.MaxActiveTranscriptBytes),
		notify: c.NotifyUser || cfg.Hooks.InternalHookOn("compaction-notifier"), sections: c.PostCompactionSections,
	}
	if st.keepRecent <= 0 {
		st.keepRecent = config.DefaultCompactionKeepRecent
	}
	if st.timeout <= 0 {
		st.timeout = config.DefaultCompactionTimeoutSeconds * time.Second
	}
	if c.Model != "" {
		st.model = cfg.ResolveModel(c.Model)
	}
	return st
}

// transcriptBytes is the size of what the model would see of msgs, for
// maxActiveTranscriptBytes.
func transcriptBytes(msgs []sessions.Message) int64 {
	var n int64
	for _, m := range msgs {
		n += int64(len(m.Text) + len(m.ToolName))
		for _, c := range m.ToolCalls {
			n += int64(len(c.Name) + len(c.Arguments))
		}
	}
	return n
}

// maybeCompact summarises the older part of a run's context (history,
// the run's turn of full, the session's whole context) when it nears the
// model's window, or has outgrown maxActiveTranscriptBytes, records the
// summary, and returns the context to use and whether it was compacted.
// On any failure it returns the context unchanged: a long prompt beats a
// lost turn.
func (s *Service) maybeCompact(ctx context.Context, ev *runEvents, chain *providers.Chain, sessionID, modelRef, workspace string, full, history []sessions.Message) (_ []sessions.Message, compacted bool) {
	st := compactionOf(s.config())
	window := s.contextWindow(modelRef)
	keep := min(st.keepRecent, window/2)
	split := window
	switch {
	case st.maxBytes > 0 && transcriptBytes(history) >= st.maxBytes:
		split = 0 // due whatever the window
	case !st.auto:
		return history, false
	}
	older, recent, need := sessions.SplitForCompaction(history, split, keep)
	if !need || len(older) == 0 {
		return history, false
	}
	if st.safeguard {
		older, recent = sessions.PreserveTurns(older, recent, st.turns)
	}
	if st.notify {
		ev.notice(noticeCompacting)
	}
	out, _, err := s.summarise(ctx, ev.agent, chain, sessionID, workspace, full, older, recent)
	if err != nil {
		return history, false
	}
	if st.notify {
		ev.notice(noticeCompacted)
	}
	return out, true
}

// errNothingToCover means a summary could cover no message: the part
// chosen to summarise is interleaved with a later turn's messages.
var errNothingToCover = errors.New("no message can be summarised without covering a later turn")

// summarise asks for a summary of older (the part of full, the session's
// whole context, that SplitForCompaction chose), records it and returns
// the context that follows: the summary, the messages older must keep
// verbatim, then recent. note hears the compaction's progress (start,
// end, error). Both a run's automatic compaction and sessions.compact go
// through here, so there is one way a transcript is summarised: with
// agents.defaults.compaction's model (else chain), its timeout per
// request, in chunks and audited in safeguard mode, and followed by the
// AGENTS.md sections it names (workspace "" skips them).
func (s *Service) summarise(ctx context.Context, note func(stream string, data map[string]any), chain *providers.Chain, sessionID, workspace string, full, older, recent []sessions.Message) (_ []sessions.Message, through int64, _ error) {
	// The summary must not cover a later turn's message this run does not
	// see: that turn's own run would lose it.
	through, older, keep := sessions.SummaryCut(full, older)
	if through == 0 {
		return nil, 0, errNothingToCover
	}
	st := compactionOf(s.config())
	if st.model != "" {
		// An explicit summary model is exact: no fallbacks.
		c, err := s.chain([]string{st.model})
		if err == nil && len(c.Steps) == 0 {
			err = fmt.Errorf("model %s has no provider key", st.model)
		}
		if err != nil {
			s.log.Warn("compaction model unavailable; sending the full context", "session", sessionID, "model", st.model, "err", err)
			note("compaction", map[string]any{"phase": "error"})
			return nil, 0, fmt.Errorf("summarise session %s with %s: %w", sessionID, st.model, err)
		}
		chain = c
	}
	note("compaction", map[string]any{"phase": "start", "messages": len(older)})
	text, err := s.writeSummary(ctx, chain, st, older)
	if err != nil {
		s.log.Warn("compaction failed; sending the full context", "session", sessionID, "err", err)
		note("compaction", map[string]any{"phase": "error"})
		return nil, 0, fmt.Errorf("summarise session %s: %w", sessionID, err)
	}
	if kept := agentsSections(workspace, st.sections); kept != "" {
		text += "\n\n" + kept
	}
	if err := s.opts.Store.AppendSummary(context.WithoutCancel(ctx), sessionID, text, through); err != nil {
		s.log.Warn("save compaction summary", "session", sessionID, "err", err)
		return nil, 0, fmt.Errorf("save the summary of session %s: %w", sessionID, err)
	}
	note("compaction", map[string]any{"phase": "end", "messages": len(older), "throughSeq": through})
	out := append([]sessions.Message{{Role: "system", Text: text, Summary: true, SummaryThrough: through}}, keep...)
	return append(out, recent...), through, nil
}

// writeSummary asks chain for the summary of older: in one request, or in
// safeguard mode over chunks of a quarter of the summary model's window
// (each request carrying the summary so far), and audited when the
// quality guard is on.
func (s *Service) writeSummary(ctx context.Context, chain *providers.Chain, st compactionSettings, older []sessions.Message) (string, error) {
	system := compactPrompt
	if st.strictIDs {
		system += "\n\n" + strictIdentifiersPrompt
	}
	chunks := [][]sessions.Message{older}
	if st.safeguard {
		chunks = chunkMessages(older, max(s.contextWindow(chain.Steps[0].Ref())/4, 256))
	}
	var summary string
	for _, chunk := range chunks {
		input := renderForSummary(chunk)
		if summary != "" {
			input = chunkPrompt + "\n\n[summary so far]\n" + summary + "\n\n[next part]\n" + input
		}
		msgs := []providers.Message{{Role: providers.RoleUser, Text: input}}
		text, err := s.summaryRequest(ctx, chain, st, system, msgs)
		if err != nil {
			return "", err
		}
		summary = text
	}
	if !st.guard {
		return summary, nil
	}
	want := []string(nil)
	if st.strictIDs {
		want = userIdentifiers(older)
	}
	replaced := sessions.EstimateTokens(older)
	for attempt := 0; ; attempt++ {
		problem := auditSummary(summary, replaced, want)
		if problem == "" {
			return summary, nil
		}
		if attempt >= st.retries {
			return "", fmt.Errorf("the summary failed the quality guard after %d attempts: %s", attempt+1, problem)
		}
		// The retry carries the summary and what is wrong with it, not the
		// messages again: in safeguard mode they were cut into chunks
		// because together they do not fit the summary model's window,
		// and what the guard misses (identifiers, length) it names.
		msgs := []providers.Message{{Role: providers.RoleUser, Text: "[summary]\n" + summary +
			"\n\nThis summary of a conversation cannot be used: " + problem + ". Write the whole summary again, fixing that and keeping everything else it says."}}
		text, err := s.summaryRequest(ctx, chain, st, system, msgs)
		if err != nil {
			return "", err
		}
		summary = text
	}
}

// summaryRequest is one summary request, within the compaction timeout.
func (s *Service) summaryRequest(ctx context.Context, chain *providers.Chain, st compactionSettings, system string, msgs []providers.Message) (string, error) {
	rctx, cancel := context.WithTimeout(ctx, st.timeout)
	defer cancel()
	resp, _, err := chain.Complete(rctx, providers.Request{System: system, Messages: msgs}, providers.Hooks{})
	if err != nil {
		if rctx.Err() != nil && ctx.Err() == nil {
			return "", fmt.Errorf("the summary request took longer than agents.defaults.compaction.timeoutSeconds (%s): %w", st.timeout, err)
		}
		return "", err
	}
	if strings.TrimSpace(resp.Text) == "" {
		return "", errors.New("the model answered with an empty summary")
	}
	return strings.TrimSpace(resp.Text), nil
}

// auditSummary is the quality guard: it returns what is wrong with
// summary, or "".
func auditSummary(summary string, replacedTokens int, identifiers []string) string {
	if strings.TrimSpace(summary) == "" {
		return "it is empty"
	}
	if t := sessions.EstimateTokens([]sessions.Message{{Role: "system", Text: summary}}); t >= replacedTokens {
		return fmt.Sprintf("it is no shorter than the messages it replaces (about %d tokens for %d)", t, replacedTokens)
	}
	var missing []string
	for _, id := range identifiers {
		if !strings.Contains(summary, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return "it leaves out these identifiers the user gave, which must appear exactly: " + strings.Join(missing, ", ")
	}
	return ""
}

// identifierRE finds what identifierPolicy "strict" keeps exact: URLs,
// e-mail addresses, UUIDs, ticket ids, file paths and hashes.
var identifierRE = regexp.MustCompile(`https?://[^\s<>"'` + "`" + `]+` +
	`|[\w.+-]+@[\w-]+(?:\.[\w-]+)+` +
	`|\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b` +
	`|\b[A-Z][A-Z0-9]+-\d+\b` +
	`|(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)+` +
	`|\b[0-9a-f]{7,64}\b`)

// maxGuardedIdentifiers bounds the identifiers the guard insists on: the
// newest ones the user gave.
const maxGuardedIdentifiers = 16

// userIdentifiers lists the distinct identifiers in the user's messages
// of msgs, newest first. A hash must mix digits and letters, so a plain
// number or word is not taken for one.
func userIdentifiers(msgs []sessions.Message) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0 && len(out) < maxGuardedIdentifiers; i-- {
		if msgs[i].Role != sessions.RoleUser {
			continue
		}
		for _, id := range identifierRE.FindAllString(msgs[i].Text, -1) {
			id = strings.TrimRight(id, ".,;:!?)]}")
			if isPlainHex(id) && (strings.IndexFunc(id, isDigit) < 0 || strings.IndexFunc(id, isLetter) < 0) {
				continue
			}
			if id != "" && !slices.Contains(out, id) && len(out) < maxGuardedIdentifiers {
				out = append(out, id)
			}
		}
	}
	return out
}

func isPlainHex(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !isDigit(r) && (r < 'a' || r > 'f') }) < 0
}
func isDigit(r rune) bool  { return r >= '0' && r <= '9' }
func isLetter(r rune) bool { return r >= 'a' && r <= 'z' }

// chunkMessages cuts msgs into runs of about budget tokens each (one
// message bigger than that is a chunk of its own).
func chunkMessages(msgs []sessions.Message, budget int) [][]sessions.Message {
	var out [][]sessions.Message
	start, size := 0, 0
	for i := range msgs {
		t := sessions.EstimateTokens(msgs[i : i+1])
		if size+t > budget && i > start {
			out = append(out, msgs[start:i])
			start, size = i, 0
		}
		size += t
	}
	return append(out, msgs[start:])
}

// renderForSummary writes messages as the summariser reads them.
func renderForSummary(msgs []sessions.Message) string {
	var b strings.Builder
	for _, m := range msgs {
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
	return b.String()
}

// agentsSections returns the H2/H3 sections of the workspace's AGENTS.md
// whose titles are in titles (case does not matter), word for word, for
// postCompactionSections; "" when there are none.
func agentsSections(workspace string, titles []string) string {
	if workspace == "" || len(titles) == 0 {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(workspace, "AGENTS.md"))
	if err != nil {
		return ""
	}
	want := func(title string) bool {
		return slices.ContainsFunc(titles, func(t string) bool { return strings.EqualFold(strings.TrimSpace(t), title) })
	}
	var kept []string
	var cur []string
	level := 0 // of the section being kept; 0 when none
	flush := func() {
		if len(cur) > 0 {
			kept = append(kept, strings.TrimSpace(strings.Join(cur, "\n")))
		}
		cur, level = nil, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		h := 0
		for h < len(line) && line[h] == '#' {
			h++
		}
		isHeading := h > 0 && h < len(line) && line[h] == ' '
		if isHeading && level > 0 && h <= level {
			flush()
		}
		if isHeading && level == 0 && (h == 2 || h == 3) && want(strings.TrimSpace(line[h:])) {
			level = h
		}
		if level > 0 {
			cur = append(cur, line)
		}
	}
	flush()
	if len(kept) == 0 {
		return ""
	}
	return "[From AGENTS.md, kept word for word after this compaction]\n" + strings.Join(kept, "\n\n")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
