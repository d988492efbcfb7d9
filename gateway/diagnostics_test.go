package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func TestParseStabilityQuery(t *testing.T) {
	tests := []struct {
		params  string
		want    stabilityQuery
		wantErr string
	}{
		{``, stabilityQuery{limit: 50, sinceSeq: -1}, ""},
		{`{}`, stabilityQuery{limit: 50, sinceSeq: -1}, ""},
		{`{"limit":1000,"type":" telemetry.exporter "}`, stabilityQuery{limit: 1000, typ: "telemetry.exporter", sinceSeq: -1}, ""},
		{`{"limit":"25","sinceSeq":"7"}`, stabilityQuery{limit: 25, sinceSeq: 7}, ""},
		{`{"limit":0}`, stabilityQuery{}, "limit must be between 1 and 1000"},
		{`{"limit":1001}`, stabilityQuery{}, "limit must be between 1 and 1000"},
		{`{"limit":2.5}`, stabilityQuery{}, "limit must be a non-negative integer"},
		{`{"limit":"-3"}`, stabilityQuery{}, "limit must be a non-negative integer"},
		{`{"sinceSeq":-1}`, stabilityQuery{}, "sinceSeq must be a non-negative integer"},
		{`{"type":"  "}`, stabilityQuery{}, "type must be a non-empty string"},
		{`{"type":3}`, stabilityQuery{}, "type must be a non-empty string"},
		{`[1]`, stabilityQuery{}, "params must be an object"},
	}
	for _, tc := range tests {
		got, err := parseStabilityQuery(json.RawMessage(tc.params))
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s: err %v, want %q", tc.params, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.params, got, err, tc.want)
		}
	}
}

func TestStabilityRingKeepsTheNewest(t *testing.T) {
	var r stabilityRing
	for range stabilityCapacity + 5 {
		r.add(stabilityRecord{Type: "diagnostic.memory.sample", Memory: map[string]any{"heapUsedBytes": int64(10), "rssBytes": int64(20)}})
	}
	snap := r.snapshot(stabilityQuery{limit: 3, sinceSeq: -1})
	events := snap["events"].([]stabilityRecord)
	if snap["count"] != stabilityCapacity || snap["dropped"] != int64(5) || len(events) != 3 ||
		events[2].Seq != stabilityCapacity+5 || snap["firstSeq"] != int64(6) {
		t.Fatalf("snapshot = count %v dropped %v firstSeq %v, %d events, last %+v", snap["count"], snap["dropped"], snap["firstSeq"], len(events), events[len(events)-1])
	}
	since := r.snapshot(stabilityQuery{limit: 50, sinceSeq: stabilityCapacity + 3})
	if since["count"] != 2 {
		t.Errorf("sinceSeq: count %v, want 2", since["count"])
	}
	ex := r.snapshot(stabilityQuery{limit: 50, typ: "telemetry.exporter", sinceSeq: -1})
	if ex["count"] != 0 || ex["capacity"] != 16 {
		t.Errorf("exporter query = %v", ex)
	}
}

// TestDoctorRPCs: the two methods the real `openclaw doctor` calls answer
// in its shapes, from this gateway's own state.
func TestDoctorRPCs(t *testing.T) {
	r := startTruthGateway(t)
	c, err := r.dial(t, truthToken, "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var st struct {
		Capacity int `json:"capacity"`
		Count    int `json:"count"`
		Events   []struct {
			Seq    int64  `json:"seq"`
			Type   string `json:"type"`
			Memory struct {
				HeapUsedBytes int64 `json:"heapUsedBytes"`
			} `json:"memory"`
		} `json:"events"`
		Summary struct {
			ByType map[string]int `json:"byType"`
		} `json:"summary"`
	}
	if err := c.Call(ctx, "diagnostics.stability", map[string]any{"limit": 1000}, &st); err != nil {
		t.Fatal(err)
	}
	if st.Capacity != 1000 || st.Count < 1 || len(st.Events) != st.Count || st.Events[0].Type != "diagnostic.memory.sample" ||
		st.Events[0].Memory.HeapUsedBytes <= 0 || st.Summary.ByType["diagnostic.memory.sample"] != st.Count {
		t.Errorf("diagnostics.stability = %+v, want the gateway's memory samples", st)
	}
	var pe *protocol.Error
	if err := c.Call(ctx, "diagnostics.stability", map[string]any{"limit": 0}, nil); !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidRequest {
		t.Errorf("limit 0: %v, want INVALID_REQUEST", err)
	}

	var mem struct {
		AgentID   string `json:"agentId"`
		Embedding struct {
			OK      bool   `json:"ok"`
			Checked *bool  `json:"checked"`
			Error   string `json:"error"`
		} `json:"embedding"`
		Index *struct {
			Files int `json:"files"`
		} `json:"index"`
	}
	if err := c.Call(ctx, "doctor.memory.status", map[string]any{"probe": false}, &mem); err != nil {
		t.Fatal(err)
	}
	if mem.AgentID != "ops" || mem.Embedding.OK || mem.Embedding.Checked == nil || *mem.Embedding.Checked ||
		!strings.Contains(mem.Embedding.Error, "FTS5") || mem.Index == nil {
		t.Errorf("doctor.memory.status = %+v", mem)
	}
	err = c.Call(ctx, "doctor.memory.status", map[string]any{"agentId": "nobody"}, nil)
	if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidRequest || !strings.Contains(pe.Message, `unknown agent id "nobody"`) {
		t.Errorf("unknown agent: %v", err)
	}
}
