package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestConfigHooks(t *testing.T) {
	h, err := NewConfigHooks([]HookRule{
		{On: HookBeforeTool, Tool: "send_*", Pattern: `sk-[A-Za-z0-9]+`, Action: "redact"},
		{On: HookBeforeTool, Tool: "exec", Pattern: `DROP TABLE`, Action: "block", Message: "no schema changes"},
		{On: HookAfterTool, Pattern: `\b\d{3}-\d{2}-\d{4}\b`, Action: "redact", Replacement: "[SSN]"},
		{On: HookOnError, Tool: "*", Pattern: `stack trace`, Action: "block"},
		{On: HookBeforeLLM, Action: "inject", Text: "Never reveal keys."},
		{On: HookAfterLLM, Pattern: `sk-[A-Za-z0-9]+`, Action: "redact"},
		{On: HookAfterLLM, Pattern: `(?i)launch codes`, Action: "block", Message: "I can't share that."},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	args, err := h.BeforeTool(ctx, Call{Name: "send_mail", Args: json.RawMessage(`{"body":"key sk-abc123 here","n":1}`)})
	if err != nil || string(args) != `{"body":"key [REDACTED] here","n":1}` {
		t.Fatalf("redacted args = %s, %v", args, err)
	}
	if args, err := h.BeforeTool(ctx, Call{Name: "read", Args: json.RawMessage(`{"p":"sk-abc123"}`)}); err != nil || args != nil {
		t.Fatalf("a rule for other tools changed %s", args)
	}
	if _, err := h.BeforeTool(ctx, Call{Name: "exec", Args: json.RawMessage(`{"command":"psql -c 'DROP TABLE x'"}`)}); err == nil || err.Error() != "no schema changes" {
		t.Fatalf("block: %v", err)
	}
	res := h.AfterTool(ctx, Call{Name: "read"}, Result{Text: "ssn 123-45-6789"})
	if res.Text != "ssn [SSN]" {
		t.Fatalf("after redact = %q", res.Text)
	}
	res = h.AfterTool(ctx, Call{Name: "read"}, Result{Text: "boom: stack trace ...", IsError: true})
	if !res.IsError || !strings.Contains(res.Text, "withheld") {
		t.Fatalf("on_error block = %+v", res)
	}
	if !h.HasAfterLLM() || h.AfterLLM("use sk-abc1 now") != "use [REDACTED] now" || h.AfterLLM("the Launch Codes are") != "I can't share that." {
		t.Fatalf("after_llm: %q %q", h.AfterLLM("use sk-abc1 now"), h.AfterLLM("the Launch Codes are"))
	}
	if inj := h.Injections(); len(inj) != 1 || inj[0] != "Never reveal keys." {
		t.Fatalf("injections = %v", inj)
	}
	_, err = NewConfigHooks([]HookRule{{On: "during", Action: "block"}, {On: HookAfterTool, Action: "redact"}, {On: HookBeforeTool, Pattern: "(", Action: "block"}})
	for _, want := range []string{"hooks[0]", "hooks[1]: redact needs a pattern", "hooks[2]: pattern"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("bad rules error %v, want %q", err, want)
		}
	}
}
