package gateway

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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
		"heartbeatSeconds": 0,
		"defaultAgentId":   "main",
		"agents": []any{map[string]any{
			"agentId": "main", "isDefault": true,
			"heartbeat": map[string]any{"enabled": false, "every": "disabled", "everyMs": nil, "prompt": "", "target": "owner", "ackMaxChars": 300},
			"sessions":  map[string]any{"path": s.storePath, "count": 0, "recent": []any{}},
		}},
		"sessions":     map[string]any{"path": s.storePath, "count": 0, "recent": []any{}},
		"modelRuntime": map[string]any{"degraded": false, "pendingAgents": []any{}},
		"process":      processVitals(),
	}
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
