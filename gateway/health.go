package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// healthCache serves health from a snapshot refreshed at most every
// healthTTL, as the real gateway does, so the hottest read is a copy of
// bytes already encoded.
type healthCache struct {
	build func() map[string]any
	ttl   time.Duration
	// state, if set, names the state the figures come from (the session
	// store's count and newest update): a snapshot built from another
	// state is rebuilt at once, so a new session is counted at the next
	// read, not a TTL later.
	state func() string

	mu       sync.Mutex
	raw      json.RawMessage
	builtAt  time.Time
	builtFor string
	version  atomic.Int64
}

const healthTTL = 5 * time.Second

func (h *healthCache) get(probe bool) json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	state := ""
	if h.state != nil {
		state = h.state()
	}
	if !probe && h.raw != nil && time.Since(h.builtAt) < h.ttl && state == h.builtFor {
		return h.raw
	}
	start := time.Now()
	snap := h.build()
	snap["durationMs"] = time.Since(start).Milliseconds()
	raw, _ := json.Marshal(snap)
	h.raw, h.builtAt, h.builtFor = raw, time.Now(), state
	h.version.Add(1)
	return raw
}

// sessionsState is healthCache.state: how many sessions there are and
// when the newest changed.
func (s *System) sessionsState() string {
	if s.sessions == nil {
		return "" // not open yet
	}
	list, total, err := s.sessions.List(context.Background(), sessions.ListFilter{IncludeGlobal: true, IncludeUnknown: true, Limit: 1})
	if err != nil {
		return "" // the build logs it
	}
	newest := int64(0)
	if len(list) > 0 {
		newest = list[0].UpdatedAt.UnixNano()
	}
	return fmt.Sprintf("%d/%d", total, newest)
}

// invalidate drops the snapshot, so the next read sees a change at once
// (a failed or applied reload) rather than after healthTTL.
func (h *healthCache) invalidate() {
	h.mu.Lock()
	h.raw = nil
	h.mu.Unlock()
}

// buildHealth assembles the health snapshot from the running state: the
// channel manager's accounts, the session store's counts, the reload
// watcher.
func (s *System) buildHealth() map[string]any {
	ctx := context.Background()
	now := time.Now()
	cfg := s.current()
	channelsByName, order, labels := map[string]any{}, []string{}, map[string]string{}
	if s.channels != nil {
		st := s.channels.Status()
		order, _ = st["channelOrder"].([]string)
		labels, _ = st["channelLabels"].(map[string]string)
		accounts, _ := st["channelAccounts"].(map[string][]map[string]any)
		summaries, _ := st["channels"].(map[string]any)
		for _, name := range order {
			channelsByName[name] = healthChannel(summaries[name], accounts[name])
		}
	}
	out := map[string]any{
		"ok":               true,
		"ts":               now.UnixMilli(),
		"plugins":          map[string]any{"loaded": []string{}, "errors": []any{}, "unavailable": []any{}},
		"configReload":     s.configReload(cfg),
		"channels":         channelsByName,
		"channelOrder":     order,
		"channelLabels":    labels,
		"heartbeatSeconds": heartbeatSeconds(cfg.snap.Config),
		"defaultAgentId":   cfg.snap.Config.DefaultAgentID(),
		"agents":           s.healthAgents(ctx, cfg.snap.Config, now),
		"modelRuntime":     map[string]any{"degraded": false, "pendingAgents": []any{}},
		"process":          processVitals(),
	}
	// A store that cannot be read leaves the figure out rather than
	// reporting a count nobody measured.
	if all, err := s.sessionFigures(ctx, ""); err != nil {
		s.log.Warn("health: sessions not counted", "err", err)
	} else {
		out["sessions"] = s.healthSessions(all, now)
	}
	return out
}

// healthAgents lists the agents with their heartbeat settings and
// sessions.
func (s *System) healthAgents(ctx context.Context, cfg *config.Config, now time.Time) []any {
	def := cfg.DefaultAgentID()
	var out []any
	for _, id := range cfg.AgentIDs() {
		row := map[string]any{"agentId": id, "isDefault": id == def, "heartbeat": heartbeatSummary(cfg, id)}
		if e, _ := cfg.Agent(id); e.Name != "" {
			row["name"] = e.Name
		}
		if st, err := s.sessionFigures(ctx, id); err != nil {
			s.log.Warn("health: sessions not counted", "agent", id, "err", err)
		} else {
			row["sessions"] = s.healthSessions(st, now)
		}
		out = append(out, row)
	}
	return out
}

// heartbeatSummary is an agent's heartbeat as health and status report
// it.
func heartbeatSummary(cfg *config.Config, agentID string) map[string]any {
	hb := cfg.HeartbeatFor(agentID)
	every, _ := hb.Interval()
	prompt := hb.Prompt
	if prompt == "" {
		prompt = defaultHeartbeatPrompt
	}
	target := hb.Target
	if target == "" {
		target = "none"
	}
	out := map[string]any{"agentId": agentID, "enabled": every > 0, "every": hb.Every, "everyMs": every.Milliseconds(),
		"prompt": prompt, "target": target, "ackMaxChars": heartbeatAckMaxChars}
	if every <= 0 {
		out["every"], out["everyMs"] = "disabled", nil
	}
	return out
}

// heartbeatSeconds is the default agent's heartbeat interval in seconds
// (0 when off).
func heartbeatSeconds(cfg *config.Config) int64 {
	every, _ := cfg.HeartbeatFor(cfg.DefaultAgentID()).Interval()
	return int64(every / time.Second)
}

func processVitals() map[string]any {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return map[string]any{
		"pid": os.Getpid(), "goroutines": runtime.NumGoroutine(),
		"heapAllocBytes": ms.HeapAlloc, "sysBytes": ms.Sys,
	}
}

func (s *System) handleHealth(ctx context.Context, req *rpc.Request) (any, error) {
	var p struct {
		Probe bool `json:"probe"`
	}
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	return s.health.get(p.Probe), nil
}

// healthChannel is one channel of the health snapshot in OpenClaw's
// shape: the channel's own summary (configured, running) with its
// accounts as an object keyed by account id, which OpenClaw's health
// formatter indexes by the ids bound to the default agent (a list would
// read as accounts "0", "1", …).
func healthChannel(summary any, accounts []map[string]any) map[string]any {
	out := map[string]any{}
	if m, ok := summary.(map[string]any); ok {
		for k, v := range m {
			out[k] = v
		}
	}
	byID := make(map[string]any, len(accounts))
	for _, a := range accounts {
		id, _ := a["accountId"].(string)
		byID[id] = a
	}
	out["accounts"] = byID
	return out
}
