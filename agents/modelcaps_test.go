package agents

import (
	"context"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/tools/image"
)

// TestUsageCostFromModelPrice: a model's cost in models.providers puts
// dollar figures on the run's usage in the final chat event.
func TestUsageCostFromModelPrice(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1", cost:{input:3, output:15}}]}}}, agents:{defaults:{model:"fake/echo-1"}}}`, nil)
	f.model.Script(fakemodel.Reply{Text: "ok", Usage: fakemodel.Usage{InputTokens: 1000, OutputTokens: 200}})
	f.run(t, StartRequest{Message: "hi"})
	var cost map[string]any
	f.rec.mu.Lock()
	for _, e := range f.rec.events {
		if e.name == "chat" && e.payload["state"] == "final" {
			usage, _ := e.payload["usage"].(map[string]any)
			cost, _ = usage["cost"].(map[string]any)
		}
	}
	f.rec.mu.Unlock()
	// 1000 × $3/M + 200 × $15/M = $0.003 + $0.003.
	if cost["input"] != 0.003 || cost["output"] != 0.003 || cost["total"] != 0.006 {
		t.Fatalf("usage cost %v, want input 0.003, output 0.003, total 0.006", cost)
	}
}

// TestWithoutImagesFor: images go only to models not declared text-only,
// and what is dropped is said in the message.
func TestWithoutImagesFor(t *testing.T) {
	cfg := configFor(t, `{models:{providers:{p:{models:[{id:"text", input:["text"]}, {id:"vision", input:["text","image"]}, {id:"plain"}]}}}}`)
	msgs := []providers.Message{{Role: providers.RoleUser, Text: "look", Images: []providers.Image{{MediaType: "image/png", Data: []byte("x")}}}}
	cases := []struct {
		ref  string
		kept bool
	}{
		{"p/text", false},
		{"p/vision", true},
		{"p/plain", true}, // undeclared: capabilities unknown, so not refused
		{"other/model", true},
	}
	for _, tc := range cases {
		got := withoutImagesFor(cfg, tc.ref, msgs)
		if kept := len(got[0].Images) > 0; kept != tc.kept {
			t.Errorf("%s: images kept %v, want %v", tc.ref, kept, tc.kept)
		}
		if !tc.kept && !strings.Contains(got[0].Text, "look\n[1 image(s) not sent: p/text takes only text") {
			t.Errorf("%s: text %q does not say why", tc.ref, got[0].Text)
		}
	}
	if len(msgs[0].Images) != 1 {
		t.Fatal("the caller's messages were changed")
	}
}

// TestImageToolSkipsTextOnlyModel: the image tool never sends a picture
// to an image model declared text-only, and says why.
func TestImageToolSkipsTextOnlyModel(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1", input:["text"]}]}}}, agents:{defaults:{model:"fake/echo-1", imageModel:"fake/echo-1"}}}`, nil)
	_, err := f.svc.Analyze(context.Background(), "main", "what is this?", []image.Image{{MediaType: "image/png", Data: []byte("x")}})
	if err == nil || !strings.Contains(err.Error(), "fake/echo-1 take only text") {
		t.Fatalf("err = %v, want a text-only refusal", err)
	}
	if n := len(f.model.Requests()); n != 0 {
		t.Fatalf("the text-only model was called %d times", n)
	}
}

// TestModelsModeReplaceDropsBuiltins: with models.mode "replace" a model
// of a built-in provider that models.providers does not configure is not
// called; under "merge" (the default) the built-in is used.
func TestModelsModeReplaceDropsBuiltins(t *testing.T) {
	f := newFixture(t, `{models:{mode:"replace", providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}}, agents:{defaults:{model:"ollama/llama3"}}}`, nil)
	res := f.run(t, StartRequest{Message: "hi"})
	if res.Status == "ok" || !strings.Contains(res.Error, `models.mode is "replace"`) {
		t.Fatalf("status %q error %q, want a refusal naming models.mode", res.Status, res.Error)
	}
	cfg := configFor(t, `{models:{providers:{}}, agents:{defaults:{model:"ollama/llama3"}}}`)
	if _, err := f.svc.provider(cfg, "ollama"); err != nil {
		t.Fatalf("merge mode should keep the built-in ollama: %v", err)
	}
}
