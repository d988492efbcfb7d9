package admin

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

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

// sessionsState is healthCache.state: the session store's write count.
// Every health call asks, so it must not query: two queries per call
// under the cache's lock made 32 connections queue behind SQLite.
func (w *Wing) sessionsState() string {
	return "w" + strconv.FormatUint(w.opts.Sessions.Changes(), 10)
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
func (w *Wing) buildHealth() map[string]any {
	ctx := context.Background()
	now := time.Now()
	snap := w.opts.Config()
	channelsByName, order, labels := map[string]any{}, []string{}, map[string]string{}
	if st := w.channelStatus(); st != nil {
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
		"configReload":     w.configReload(snap),
		"channels":         channelsByName,
		"channelOrder":     order,
		"channelLabels":    labels,
		"heartbeatSeconds": heartbeatSeconds(snap.Config),
		"defaultAgentId":   snap.Config.DefaultAgentID(),
		"agents":           w.healthAgents(ctx, snap.Config, now),
		"modelRuntime":     map[string]any{"degraded": false, "pendingAgents": []any{}},
		"process":          processVitals(),
	}
	// A store that cannot be read leaves the figure out rather than
	// reporting a count nobody measured.
	if all, err := w.sessionFigures(ctx, ""); err != nil {
		w.log.Warn("health: sessions not counted", "err", err)
	} else {
		out["sessions"] = w.healthSessions(all, now)
	}
	return out
}

// healthAgents lists the agents with their heartbeat settings and
// sessions.
func (w *Wing) healthAgents(ctx context.Context, cfg *config.Config, now time.Time) []any {
	def := cfg.DefaultAgentID()
	var out []any
	for _, id := range cfg.AgentIDs() {
		row := map[string]any{"agentId": id, "isDefault": id == def, "heartbeat": w.heartbeatSummary(cfg, id)}
		if e, _ := cfg.Agent(id); e.Name != "" {
			row["name"] = e.Name
		}
		if st, err := w.sessionFigures(ctx, id); err != nil {
			w.log.Warn("health: sessions not counted", "agent", id, "err", err)
		} else {
			row["sessions"] = w.healthSessions(st, now)
		}
		out = append(out, row)
	}
	return out
}

// heartbeatSummary is an agent's heartbeat as health and status report
// it.
func (w *Wing) heartbeatSummary(cfg *config.Config, agentID string) map[string]any {
	hb := cfg.HeartbeatFor(agentID)
	every, _ := hb.Interval()
	prompt := hb.Prompt
	if prompt == "" {
		prompt = w.opts.Heartbeat.Prompt
	}
	target := hb.Target
	if target == "" {
		target = "none"
	}
	out := map[string]any{"agentId": agentID, "enabled": every > 0, "every": hb.Every, "everyMs": every.Milliseconds(),
		"prompt": prompt, "target": target, "ackMaxChars": w.opts.Heartbeat.AckMaxChars}
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

// healthParams are health's params.
type healthParams struct {
	// Probe rebuilds the snapshot rather than serve the cached one.
	Probe bool `json:"probe"`
}

func (w *Wing) handleHealth(ctx context.Context, req *rpc.Request, p healthParams) (json.RawMessage, error) {
	return w.health.get(p.Probe), nil
}

// Health is the health snapshot as the health method answers it (probe
// rebuilds it), for hello-ok and the health event.
func (w *Wing) Health(probe bool) json.RawMessage { return w.health.get(probe) }

// HealthVersion counts the health snapshots built, hello-ok's
// stateVersion.health.
func (w *Wing) HealthVersion() int64 { return w.health.version.Load() }

// channelStatus is the channel manager's status, or nil without one.
func (w *Wing) channelStatus() map[string]any {
	if w.opts.ChannelStatus == nil {
		return nil
	}
	return w.opts.ChannelStatus()
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
