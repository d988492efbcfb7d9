package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

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
