package agents

import (
	"encoding/json"

	"errors"
	"github.com/openclaw-go/openclaw/agents/providers"

	"context"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"strings"
	"testing"
)

// TestModelAliasesAndAllowlist: agents.defaults.models names the primary
// by alias, /model takes an alias, and a model outside the map is refused
// with the allowlist named, so the session keeps its model.
func TestModelAliasesAndAllowlist(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"},{id:"other"},{id:"secret"}]}}},
		agents:{defaults:{model:"Echo", models:{"fake/echo-1":{alias:"Echo"}, "fake/other":{alias:"Other"}}}}}`, nil)
	op := &CommandSender{ID: "operator:cli", Operator: true}

	f.run(t, StartRequest{Message: "hi"})
	if reqs := f.model.Requests(); len(reqs) != 1 || reqs[0].Model != "echo-1" {
		t.Fatalf("the alias primary should call echo-1; requests %+v", reqs)
	}
	cases := []struct {
		msg, want, model string
	}{
		{"/model other", "Model set to fake/other", "fake/other"},
		{"/model fake/secret", `not allowed for agent "main" by agents.defaults.models (allowed: fake/echo-1, fake/other)`, "fake/other"},
		{"/model Echo", "Model set to fake/echo-1", "fake/echo-1"},
	}
	for _, tc := range cases {
		res := f.run(t, StartRequest{Message: tc.msg, Commands: op})
		if !strings.Contains(res.Text, tc.want) {
			t.Errorf("%q answered %q, want %q", tc.msg, res.Text, tc.want)
		}
		sess, err := f.store.Get(context.Background(), "agent:main:main")
		if err != nil {
			t.Fatal(err)
		}
		if sess.Model != tc.model {
			t.Errorf("after %q the session model is %q, want %q", tc.msg, sess.Model, tc.model)
		}
	}
}

// TestSessionsPatchModelAliasAndAllowlist: sessions.patch resolves an
// alias and refuses a model outside agents.defaults.models, keeping the
// session's model.
func TestSessionsPatchModelAliasAndAllowlist(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"},{id:"other"}]}}},
		agents:{defaults:{model:"fake/echo-1", models:{"fake/echo-1":{}, "fake/other":{alias:"Other"}}}}}`, nil)
	c := serveRPC(t, f)(protocol.ScopeAdmin)
	ctx := context.Background()
	const key = "agent:main:patched"
	if _, _, err := f.store.Ensure(ctx, key, sessions.Init{AgentID: "main"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		model, wantErr, stored string
	}{
		{"other", "", "fake/other"},
		{"fake/gpt-9", `not allowed for agent "main" by agents.defaults.models`, "fake/other"},
		{"nonsense", "neither provider/model nor an alias", "fake/other"},
		{"fake/echo-1", "", "fake/echo-1"},
	}
	for _, tc := range cases {
		err := c.Call(ctx, "sessions.patch", map[string]any{"key": key, "model": tc.model}, nil)
		var pe *protocol.Error
		switch {
		case tc.wantErr == "" && err != nil:
			t.Fatalf("model %q: %v", tc.model, err)
		case tc.wantErr != "" && (!errors.As(err, &pe) || pe.Code != protocol.CodeInvalidRequest || !strings.Contains(pe.Message, tc.wantErr)):
			t.Fatalf("model %q: err = %v, want INVALID_REQUEST naming %q", tc.model, err, tc.wantErr)
		}
		if s, err := f.store.Get(ctx, key); err != nil || s.Model != tc.stored {
			t.Fatalf("after %q the model is %q (%v), want %q", tc.model, s.Model, err, tc.stored)
		}
	}
}

// TestModelsListOffersTheAllowlist: with agents.defaults.models set,
// models.list lists only its models, with their aliases.
func TestModelsListOffersTheAllowlist(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1", reasoning:true},{id:"hidden"}]}}},
		agents:{defaults:{model:"fake/echo-1", models:{"fake/echo-1":{alias:"Echo"}}}}}`, nil)
	c := serveRPC(t, f)(protocol.ScopeAdmin)
	var out struct {
		Models []map[string]any `json:"models"`
	}
	if err := c.Call(context.Background(), "models.list", map[string]any{}, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Models) != 1 || out.Models[0]["id"] != "echo-1" || out.Models[0]["alias"] != "Echo" || out.Models[0]["reasoning"] != true {
		t.Fatalf("models.list = %v, want only echo-1 with alias Echo, reasoning", out.Models)
	}
}

// TestSpawnObeysModelAllowlist: a (possibly prompt-injected) model cannot
// escape agents.defaults.models by spawning a sub-agent on another model;
// an alias it names resolves.
func TestSpawnObeysModelAllowlist(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"},{id:"pricey"}]}}},
		agents:{defaults:{model:"fake/echo-1", models:{"fake/echo-1":{alias:"Echo"}}}}}`, nil)
	turn := &Turn{AgentID: "main", SessionKey: "agent:main:main"}
	r := f.svc.opts.Tools.Run(context.Background(), turn, providers.ToolCall{ID: "x", Name: "sessions_spawn", Arguments: json.RawMessage(`{"task":"x","model":"fake/pricey"}`)})
	if !r.IsError || !strings.Contains(r.Text, `model override "fake/pricey" is not allowed`) {
		t.Fatalf("spawn on fake/pricey = %+v, want refused by the allowlist", r)
	}
	if f.svc.sub.running != 0 {
		t.Fatalf("the refused spawn leaked %d slots", f.svc.sub.running)
	}
}
