package admin

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// recentSessions is how many sessions health and status name, as OpenClaw.
const recentSessions = 10

// storedSessions is what the session store holds for health and status:
// the count of all sessions (each agent's, the global and unknown keys
// too, as OpenClaw counts its store) with the most recently updated ones.
type storedSessions struct {
	count  int
	recent []sessions.Session
}

// sessionFigures reads the store: all sessions, or one agent's.
func (w *Wing) sessionFigures(ctx context.Context, agentID string) (storedSessions, error) {
	list, total, err := w.opts.Sessions.List(ctx, sessions.ListFilter{
		AgentID: agentID, IncludeGlobal: true, IncludeUnknown: true, Limit: recentSessions,
	})
	if err != nil {
		return storedSessions{}, fmt.Errorf("session figures for %q: %w", agentID, err)
	}
	return storedSessions{count: total, recent: list}, nil
}

// healthSessions is one HealthSessionSummary: path, count and the recent
// keys with their age.
func (w *Wing) healthSessions(st storedSessions, now time.Time) map[string]any {
	recent := make([]any, 0, len(st.recent))
	for _, sess := range st.recent {
		recent = append(recent, map[string]any{
			"key": sess.Key, "updatedAt": sess.UpdatedAt.UnixMilli(), "age": max(now.Sub(sess.UpdatedAt).Milliseconds(), 0),
		})
	}
	return map[string]any{"path": w.opts.StorePath, "count": st.count, "recent": recent}
}

// statusSessionRow is one recent session as OpenClaw's status lists it
// (the fields its CLI and TUI read).
func statusSessionRow(cfg *config.Config, sess *sessions.Session, now time.Time) map[string]any {
	model := sess.Model
	if model == "" {
		model = cfg.PrimaryModel(sess.AgentID)
	}
	total := sess.InputTokens + sess.OutputTokens
	return map[string]any{
		"agentId": sess.AgentID, "key": sess.Key, "kind": sess.RowKind(), "sessionId": sess.SessionID,
		"updatedAt": sess.UpdatedAt.UnixMilli(), "age": max(now.Sub(sess.UpdatedAt).Milliseconds(), 0),
		"thinkingLevel": nilIfBlank(sess.Thinking), "inputTokens": sess.InputTokens, "outputTokens": sess.OutputTokens,
		"totalTokens": total, "totalTokensFresh": true, "remainingTokens": nil, "percentUsed": nil,
		"model": nilIfBlank(model), "configuredModel": nilIfBlank(cfg.PrimaryModel(sess.AgentID)), "selectedModel": nilIfBlank(model),
		"contextTokens": nil, "flags": []string{},
	}
}

func nilIfBlank(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// channelSummaryLines is OpenClaw's status channelSummary: per configured
// channel a "<Label>: <state>" line, then one "  - <account> (details)"
// line per account.
func (w *Wing) channelSummaryLines() []string {
	lines := []string{}
	st := w.channelStatus()
	if st == nil {
		return lines
	}
	order, _ := st["channelOrder"].([]string)
	labels, _ := st["channelLabels"].(map[string]string)
	accounts, _ := st["channelAccounts"].(map[string][]map[string]any)
	for _, name := range order {
		state := "disabled"
		for _, a := range accounts[name] {
			if on, _ := a["enabled"].(bool); on {
				state = "configured"
				break
			}
		}
		lines = append(lines, cmp.Or(labels[name], name)+": "+state)
		for _, a := range accounts[name] {
			label, _ := a["accountId"].(string)
			if n, _ := a["name"].(string); n != "" {
				label += " (" + n + ")"
			}
			var details []string
			if on, _ := a["enabled"].(bool); !on {
				details = append(details, "disabled")
			}
			if p, _ := a["dmPolicy"].(string); p != "" {
				details = append(details, "dm:"+p)
			}
			if h, _ := a["healthState"].(string); h != "" {
				details = append(details, h)
			}
			line := "  - " + label
			if len(details) > 0 {
				line += " (" + strings.Join(details, ", ") + ")"
			}
			lines = append(lines, line)
		}
	}
	return lines
}

// processMemory is OpenClaw's status processMemory for this process:
// the resident set from /proc where there is one, and the Go heap.
func processMemory(heapUsed, heapTotal uint64) map[string]any {
	// int64 throughout: the stability summary compares them.
	out := map[string]any{"heapUsedBytes": int64(heapUsed), "heapTotalBytes": int64(heapTotal)}
	if rss, ok := residentBytes(); ok {
		out["rssBytes"] = rss
	}
	return out
}

// residentBytes reads this process's resident set size from
// /proc/self/statm (Linux); ok is false where that file is missing.
func residentBytes() (int64, bool) { return ResidentBytes(0) }

// ResidentBytes is the resident memory of process pid (0: this one), read
// from /proc; false where there is no /proc.
func ResidentBytes(pid int) (int64, bool) {
	proc := "self"
	if pid > 0 {
		proc = strconv.Itoa(pid)
	}
	raw, err := os.ReadFile("/proc/" + proc + "/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
