package gateway

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
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

	mu      sync.Mutex
	raw     json.RawMessage
	builtAt time.Time
	version atomic.Int64
}

const healthTTL = 5 * time.Second

func (h *healthCache) get(probe bool) json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !probe && h.raw != nil && time.Since(h.builtAt) < h.ttl {
		return h.raw
	}
	start := time.Now()
	snap := h.build()
	snap["durationMs"] = time.Since(start).Milliseconds()
	raw, _ := json.Marshal(snap)
	h.raw, h.builtAt = raw, time.Now()
	h.version.Add(1)
	return raw
}

// buildHealth assembles the health snapshot. Parts that later issues fill
// in (channels, agents, sessions) are present and empty so clients that
// read them see the shape they expect.
func (s *System) buildHealth() map[string]any {
	cfg := s.current()
	channelsByName, order, labels := map[string]any{}, []string{}, map[string]string{}
	if s.channels != nil {
		st := s.channels.Status()
		order, _ = st["channelOrder"].([]string)
		labels, _ = st["channelLabels"].(map[string]string)
		accounts, _ := st["channelAccounts"].(map[string][]map[string]any)
		for _, name := range order {
			channelsByName[name] = map[string]any{"accounts": accounts[name]}
		}
	}
	return map[string]any{
		"ok":               true,
		"ts":               time.Now().UnixMilli(),
		"plugins":          map[string]any{"loaded": []string{}, "errors": []any{}, "unavailable": []any{}},
		"configReload":     map[string]any{"hotReloadStatus": cfg.reloadStatus},
		"channels":         channelsByName,
		"channelOrder":     order,
		"channelLabels":    labels,
		"heartbeatSeconds": heartbeatSeconds(cfg.snap.Config),
		"defaultAgentId":   cfg.snap.Config.DefaultAgentID(),
		"agents":           s.healthAgents(cfg.snap.Config),
		"sessions":         map[string]any{"path": s.storePath, "count": 0, "recent": []any{}},
		"modelRuntime":     map[string]any{"degraded": false, "pendingAgents": []any{}},
		"process":          processVitals(),
	}
}

// healthAgents lists the agents with their heartbeat settings.
func (s *System) healthAgents(cfg *config.Config) []any {
	def := cfg.DefaultAgentID()
	var out []any
	for _, id := range cfg.AgentIDs() {
		out = append(out, map[string]any{
			"agentId": id, "isDefault": id == def, "heartbeat": heartbeatSummary(cfg, id),
			"sessions": map[string]any{"path": s.storePath, "count": 0, "recent": []any{}},
		})
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
