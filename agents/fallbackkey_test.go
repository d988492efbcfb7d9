package agents

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// A fallback on a built-in provider whose key variable is not set is not
// called (it could only fail, after retries when offline): the run's
// error names it once as skipped, with the reason.
func TestFallbackWithoutKeyIsSkipped(t *testing.T) {
	old := lookupEnv
	lookupEnv = func(string) string { return "" }
	t.Cleanup(func() { lookupEnv = old })
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}},
  agents:{defaults:{model:{primary:"fake/echo-1", fallbacks:["openai/gpt-4o"]}}}}`, nil)
	f.model.Script(fakemodel.Reply{Status: 401, ErrorMessage: "bad key"})
	res := f.run(t, StartRequest{Message: "hi"})
	if res.Status != "error" {
		t.Fatalf("result %+v, want an error", res)
	}
	want := "openai/gpt-4o: skipped: no API key: OPENAI_API_KEY is not set"
	if !strings.Contains(res.Error, want) || strings.Count(res.Error, "openai/gpt-4o") != 1 {
		t.Errorf("error = %q, want %q once", res.Error, want)
	}
}
