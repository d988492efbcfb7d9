package agents

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/rpc/rpctest"
)

// serveRPC puts the fixture's service behind an in-process bus and
// returns a dialer for operators with the given scopes.
func serveRPC(t *testing.T, f *fixture) func(scopes ...protocol.Scope) *client.Client {
	t.Helper()
	srv := rpctest.NewServer(rpc.Options{Pairing: rpctest.GrantAsked{}})
	f.svc.Register(srv)
	url := rpctest.Serve(t, srv)
	return func(scopes ...protocol.Scope) *client.Client {
		t.Helper()
		ss := make([]string, len(scopes))
		for i, s := range scopes {
			ss[i] = string(s)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := client.Dial(ctx, client.Options{URL: url, Token: rpctest.Token, Scopes: ss})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
}

// changes returns the sessions.changed events recorded so far as
// "reason key" strings.
func (r *recorder) changes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.name == "sessions.changed" {
			out = append(out, e.payload["reason"].(string)+" "+e.payload["sessionKey"].(string))
		}
	}
	return out
}

// TestSessionsWritesNeedScopes: the catalog marks sessions.delete and
// sessions.patch dynamic, so their handlers check: delete needs admin,
// patch needs write, and a refused call changes nothing.
func TestSessionsWritesNeedScopes(t *testing.T) {
	tests := []struct {
		method  string
		params  map[string]any
		refused [][]protocol.Scope
		allowed protocol.Scope
		changed func(*sessions.Session, error) bool
	}{
		{"sessions.delete", map[string]any{}, [][]protocol.Scope{{protocol.ScopeRead}, {protocol.ScopeRead, protocol.ScopeWrite}}, protocol.ScopeAdmin,
			func(_ *sessions.Session, err error) bool { return errors.Is(err, sessions.ErrNotFound) }},
		{"sessions.patch", map[string]any{"label": "renamed"}, [][]protocol.Scope{{protocol.ScopeRead}}, protocol.ScopeWrite,
			func(s *sessions.Session, err error) bool { return err == nil && s.Label == "renamed" }},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			f := newFixture(t, "", nil)
			dial := serveRPC(t, f)
			ctx := context.Background()
			const key = "agent:main:guarded"
			if _, _, err := f.store.Ensure(ctx, key, sessions.Init{AgentID: "main"}); err != nil {
				t.Fatal(err)
			}
			params := map[string]any{"key": key}
			for k, v := range tc.params {
				params[k] = v
			}
			for _, scopes := range tc.refused {
				err := dial(scopes...).Call(ctx, tc.method, params, nil)
				var pe *protocol.Error
				if !errors.As(err, &pe) || !strings.Contains(pe.Message, string(tc.allowed)) {
					t.Errorf("%s with %v: err = %v, want a missing %s scope", tc.method, scopes, err, tc.allowed)
				}
				if tc.changed(f.store.Get(ctx, key)) {
					t.Fatalf("%s with %v changed the session", tc.method, scopes)
				}
			}
			if err := dial(tc.allowed).Call(ctx, tc.method, params, nil); err != nil {
				t.Fatalf("%s with %s: %v", tc.method, tc.allowed, err)
			}
			if !tc.changed(f.store.Get(ctx, key)) {
				t.Fatalf("%s with %s did not change the session", tc.method, tc.allowed)
			}
		})
	}
}

// TestSessionsChangedEvents: create, patch, reset and delete each tell
// clients with sessions.changed; a create of an existing session and a
// delete of a missing one do not.
func TestSessionsChangedEvents(t *testing.T) {
	f := newFixture(t, "", nil)
	c := serveRPC(t, f)(protocol.ScopeAdmin)
	ctx := context.Background()
	const key = "agent:main:evented"
	call := func(method string, params map[string]any) {
		t.Helper()
		if err := c.Call(ctx, method, params, nil); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	call("sessions.create", map[string]any{"key": key})
	call("sessions.create", map[string]any{"key": key})
	call("sessions.patch", map[string]any{"key": key, "label": "Evented"})
	call("sessions.reset", map[string]any{"key": key})
	call("sessions.delete", map[string]any{"key": key})
	call("sessions.delete", map[string]any{"key": key})
	want := []string{"create " + key, "patch " + key, "reset " + key, "delete " + key}
	if got := f.rec.changes(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sessions.changed events = %q, want %q", got, want)
	}
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	for _, e := range f.rec.events {
		if e.name != "sessions.changed" {
			continue
		}
		row, _ := e.payload["session"].(map[string]any)
		if e.payload["reason"] == "delete" {
			if row != nil {
				t.Errorf("the delete event carries a row: %v", row)
			}
		} else if row == nil || row["key"] != key {
			t.Errorf("the %v event's row = %v", e.payload["reason"], row)
		}
	}
}

// TestSessionsPatchRefusesWhatItWouldDrop: answering "ok" to a field
// that is not kept told the TUI its /reasoning or /elevated took effect.
// Fields OpenClaw's schema lacks are refused as its additionalProperties
// is false; fields it has that this gateway does not keep are refused by
// name; a kept field in the same call is not applied either.
func TestSessionsPatchRefusesWhatItWouldDrop(t *testing.T) {
	f := newFixture(t, "", nil)
	c := serveRPC(t, f)(protocol.ScopeAdmin)
	ctx := context.Background()
	const key = "agent:main:patched"
	if _, _, err := f.store.Ensure(ctx, key, sessions.Init{AgentID: "main"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		params  map[string]any
		wantErr string // "" means accepted
	}{
		{"kept fields", map[string]any{"label": "L", "thinkingLevel": "high", "verboseLevel": "on", "agentId": "main"}, ""},
		{"not kept by this gateway", map[string]any{"reasoningLevel": "on", "label": "X"}, "does not keep reasoningLevel"},
		{"several not kept", map[string]any{"fastMode": true, "elevatedLevel": "on"}, "does not keep elevatedLevel, fastMode"},
		{"clearing one never held", map[string]any{"responseUsage": nil}, ""},
		{"outside OpenClaw's schema", map[string]any{"nonsense": 1}, "unknown field nonsense"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"key": key}
			for k, v := range tc.params {
				params[k] = v
			}
			err := c.Call(ctx, "sessions.patch", params, nil)
			var pe *protocol.Error
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("sessions.patch %v: %v", tc.params, err)
			case tc.wantErr != "" && (!errors.As(err, &pe) || pe.Code != protocol.CodeInvalidRequest || !strings.Contains(pe.Message, tc.wantErr)):
				t.Fatalf("sessions.patch %v: err = %v, want INVALID_REQUEST naming %q", tc.params, err, tc.wantErr)
			}
		})
	}
	if s, err := f.store.Get(ctx, key); err != nil || s.Label != "L" {
		t.Errorf("label after the refused patches = %q (%v), want L: a refused call applied its kept field", s.Label, err)
	}
}
