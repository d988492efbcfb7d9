package admin

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/tools/memory"
)

// The stability recorder keeps OpenClaw's payload-free diagnostic events
// in a ring, for `diagnostics.stability` (the real `openclaw doctor` and
// `openclaw gateway stability` read it). This gateway records what it
// measures: a memory sample of the process every memorySampleEvery.
const (
	stabilityCapacity     = 1000
	stabilityDefaultLimit = 50
	memorySampleEvery     = 30 * time.Second
)

// stabilityRecord is one event as OpenClaw sanitises it: seq, ts, type and
// the type's own fields.
type stabilityRecord struct {
	Seq    int64          `json:"seq"`
	Ts     int64          `json:"ts"`
	Type   string         `json:"type"`
	Memory map[string]any `json:"memory,omitempty"`
}

type stabilityRing struct {
	mu      sync.Mutex
	records []stabilityRecord // oldest first, at most stabilityCapacity
	seq     int64
	dropped int64
}

func (r *stabilityRing) add(rec stabilityRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	rec.Seq = r.seq
	if len(r.records) == stabilityCapacity {
		r.records = append(r.records[:0], r.records[1:]...)
		r.dropped++
	}
	r.records = append(r.records, rec)
}

// sampleMemory records the process's memory as a diagnostic.memory.sample.
func (w *Wing) sampleMemory() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mem := processMemory(ms.HeapAlloc, ms.HeapSys)
	w.stability.add(stabilityRecord{Ts: time.Now().UnixMilli(), Type: "diagnostic.memory.sample", Memory: mem})
}

// SampleMemory samples at once and then every memorySampleEvery until ctx
// ends; the root runs it for as long as the gateway serves.
func (w *Wing) SampleMemory(ctx context.Context) {
	w.sampleMemory()
	t := time.NewTicker(memorySampleEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.sampleMemory()
		}
	}
}

// stabilityQuery is diagnostics.stability's params, checked as OpenClaw
// checks them: limit 1–1000 (default 50), type a non-empty string,
// sinceSeq a non-negative integer; numbers may come as digit strings.
type stabilityQuery struct {
	limit    int
	typ      string
	sinceSeq int64
}

func parseStabilityQuery(raw json.RawMessage) (stabilityQuery, error) {
	q := stabilityQuery{limit: stabilityDefaultLimit, sinceSeq: -1}
	var p map[string]any
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &p); err != nil {
			return q, errors.New("params must be an object")
		}
	}
	if v, ok, err := nonNegativeInt(p["limit"], "limit"); err != nil {
		return q, err
	} else if ok {
		if v < 1 || v > stabilityCapacity {
			return q, errors.New("limit must be between 1 and " + strconv.Itoa(stabilityCapacity))
		}
		q.limit = int(v)
	}
	switch t := p["type"].(type) {
	case nil:
	case string:
		if t != "" && strings.TrimSpace(t) == "" {
			return q, errors.New("type must be a non-empty string")
		}
		q.typ = strings.TrimSpace(t)
	default:
		return q, errors.New("type must be a non-empty string")
	}
	if v, ok, err := nonNegativeInt(p["sinceSeq"], "sinceSeq"); err != nil {
		return q, err
	} else if ok {
		q.sinceSeq = v
	}
	return q, nil
}

func nonNegativeInt(v any, field string) (int64, bool, error) {
	bad := errors.New(field + " must be a non-negative integer")
	switch n := v.(type) {
	case nil:
		return 0, false, nil
	case string:
		if n == "" {
			return 0, false, nil
		}
		i, err := strconv.ParseInt(n, 10, 64)
		if err != nil || i < 0 || strings.TrimLeft(n, "0123456789") != "" {
			return 0, false, bad
		}
		return i, true, nil
	case float64:
		if n < 0 || n != float64(int64(n)) {
			return 0, false, bad
		}
		return int64(n), true, nil
	default:
		return 0, false, bad
	}
}

// snapshot answers a query in OpenClaw's DiagnosticStabilitySnapshot shape.
func (r *stabilityRing) snapshot(q stabilityQuery) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Exporter health is kept apart in OpenClaw (16 states); this gateway
	// runs no telemetry exporter, so there are none.
	capacity, dropped := stabilityCapacity, r.dropped
	var filtered []stabilityRecord
	if q.typ == "telemetry.exporter" {
		capacity, dropped = 16, 0
	} else {
		for _, rec := range r.records {
			if (q.typ == "" || rec.Type == q.typ) && rec.Seq > q.sinceSeq {
				filtered = append(filtered, rec)
			}
		}
	}
	events := filtered[max(0, len(filtered)-q.limit):]
	byType := map[string]int{}
	var latest map[string]any
	var maxRSS, maxHeap int64
	for _, rec := range filtered {
		byType[rec.Type]++
		if rec.Memory != nil {
			latest = rec.Memory
			if v, ok := rec.Memory["rssBytes"].(int64); ok {
				maxRSS = max(maxRSS, v)
			}
			if v, ok := rec.Memory["heapUsedBytes"].(int64); ok {
				maxHeap = max(maxHeap, v)
			}
		}
	}
	summary := map[string]any{"byType": byType}
	if latest != nil {
		m := map[string]any{"latest": latest, "maxHeapUsedBytes": maxHeap, "pressureCount": 0}
		if maxRSS > 0 {
			m["maxRssBytes"] = maxRSS
		}
		summary["memory"] = m
	}
	out := map[string]any{
		"generatedAt": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"capacity":    capacity, "count": len(filtered), "dropped": dropped,
		"events": append([]stabilityRecord{}, events...), "summary": summary,
	}
	if len(filtered) > 0 {
		out["firstSeq"], out["lastSeq"] = filtered[0].Seq, filtered[len(filtered)-1].Seq
	}
	return out
}

// handleStability serves diagnostics.stability (operator.read, as
// doctor.memory.status, as in OpenClaw). Its params are checked by hand:
// OpenClaw takes numbers as digit strings too.
func (w *Wing) handleStability(ctx context.Context, req *rpc.Request) (any, error) {
	q, err := parseStabilityQuery(req.Params)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "%v", err)
	}
	return w.stability.snapshot(q), nil
}

// memoryStatusParams are doctor.memory.status's params. Probe and deep
// change nothing here: there is no embedding provider to probe.
type memoryStatusParams struct {
	AgentID *string `json:"agentId"` // default: the default agent
	Probe   bool    `json:"probe"`
	Deep    bool    `json:"deep"`
}

// handleDoctorMemoryStatus answers in OpenClaw's shape for the agent asked
// (default: the default agent). This gateway's memory search is
// full-text (SQLite FTS5) over the workspace's Markdown files: there are
// no embeddings, so the embedding check is reported as not checked, with
// the reason, and never as ready. index (ours) counts what is indexed.
func (w *Wing) handleDoctorMemoryStatus(ctx context.Context, req *rpc.Request, p memoryStatusParams) (*memoryStatus, error) {
	cfg := w.opts.Config().Config
	agent := cfg.DefaultAgentID()
	if p.AgentID != nil {
		agent = strings.ToLower(strings.TrimSpace(*p.AgentID))
		if _, ok := cfg.Agent(agent); !ok {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "unknown agent id %q", *p.AgentID)
		}
	}
	files, chunks, err := memory.IndexStats(ctx, w.opts.DB, agent)
	if err != nil {
		return nil, err
	}
	return &memoryStatus{
		AgentID: agent, Provider: "fts5", SearchRuntimeRegistered: true,
		Embedding: memoryEmbedding{Error: "memory search here is full-text (SQLite FTS5) over the workspace's Markdown files; it uses no embeddings"},
		Index:     memoryIndex{Files: files, Chunks: chunks},
	}, nil
}

// memoryStatus is doctor.memory.status's answer in OpenClaw's shape, plus
// index (ours).
type memoryStatus struct {
	AgentID                 string          `json:"agentId"`
	Provider                string          `json:"provider"`
	SearchRuntimeRegistered bool            `json:"searchRuntimeRegistered"`
	Embedding               memoryEmbedding `json:"embedding"`
	Index                   memoryIndex     `json:"index"`
}

// memoryEmbedding is never ok nor checked here: there are no embeddings.
type memoryEmbedding struct {
	OK      bool   `json:"ok"`
	Checked bool   `json:"checked"`
	Error   string `json:"error"`
}

type memoryIndex struct {
	Files  int `json:"files"`
	Chunks int `json:"chunks"`
}
