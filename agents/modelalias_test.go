package agents

import (
	"context"
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
