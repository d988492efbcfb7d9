package tools

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

func TestAuditListFilters(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, Migrations())
	a := &SQLAudit{DB: st.DB}
	t0 := time.UnixMilli(1_700_000_000_000)
	entries := []AuditEntry{
		{At: t0, Who: Who{AgentID: "main", SessionKey: "agent:main:main"}, Tool: "exec", Decision: "allowed"},
		{At: t0.Add(time.Second), Who: Who{AgentID: "main", SessionKey: "agent:main:main"}, Tool: "exec", Decision: "denied", Reason: "rule 0"},
		{At: t0.Add(2 * time.Second), Who: Who{AgentID: "ops"}, Tool: "read", Decision: "approved", IsError: true},
		{At: t0.Add(3 * time.Second), Who: Who{AgentID: "ops"}, Tool: "nope", Decision: "refused", Reason: "unknown tool"},
		{At: t0.Add(4 * time.Second), Who: Who{AgentID: "main"}, Tool: "web_fetch", Decision: "error"},
	}
	for _, e := range entries {
		a.Audit(ctx, e)
	}
	tools := func(rs []AuditRecord) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Tool+":"+r.Outcome())
		}
		return out
	}
	tests := []struct {
		name string
		q    AuditQuery
		want []string
	}{
		{"all newest first", AuditQuery{}, []string{"web_fetch:failed", "nope:blocked", "read:failed", "exec:blocked", "exec:succeeded"}},
		{"agent", AuditQuery{AgentID: "ops"}, []string{"nope:blocked", "read:failed"}},
		{"session", AuditQuery{SessionKey: "agent:main:main"}, []string{"exec:blocked", "exec:succeeded"}},
		{"tool", AuditQuery{Tool: "exec"}, []string{"exec:blocked", "exec:succeeded"}},
		{"blocked", AuditQuery{Outcome: OutcomeBlocked}, []string{"nope:blocked", "exec:blocked"}},
		{"failed", AuditQuery{Outcome: OutcomeFailed}, []string{"web_fetch:failed", "read:failed"}},
		{"succeeded", AuditQuery{Outcome: OutcomeSucceeded}, []string{"exec:succeeded"}},
		{"time window, ends included", AuditQuery{After: t0.Add(time.Second), Before: t0.Add(2 * time.Second)}, []string{"read:failed", "exec:blocked"}},
		{"limit", AuditQuery{Limit: 2}, []string{"web_fetch:failed", "nope:blocked"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a.List(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if g := tools(got); !slices.Equal(g, tc.want) {
				t.Errorf("got %v, want %v", g, tc.want)
			}
		})
	}
	page, _ := a.List(ctx, AuditQuery{Limit: 2})
	rest, err := a.List(ctx, AuditQuery{BeforeID: page[1].ID})
	if err != nil || !slices.Equal(tools(rest), []string{"read:failed", "exec:blocked", "exec:succeeded"}) {
		t.Errorf("continuing after %d: %v %v", page[1].ID, tools(rest), err)
	}
	if _, err := a.List(ctx, AuditQuery{Outcome: "exploded"}); err == nil {
		t.Error("unknown outcome accepted")
	}
}
