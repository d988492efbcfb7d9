package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type searchArgs struct {
	Query string `json:"query" jsonschema:"description=What to look for"`
	Limit int    `json:"limit,omitempty"`
}

func TestTypedTool(t *testing.T) {
	tool := NewTyped(Spec{Name: "search"}, func(ctx context.Context, c Call, a searchArgs) (Result, error) {
		return Result{Text: a.Query}, nil
	})
	var schema map[string]any
	json.Unmarshal(tool.Spec().Parameters, &schema)
	props, _ := schema["properties"].(map[string]any)
	if schema["type"] != "object" || props["query"] == nil || !reflect.DeepEqual(schema["required"], []any{"query"}) || schema["additionalProperties"] != false {
		t.Fatalf("schema = %s", tool.Spec().Parameters)
	}
	tests := []struct{ args, wantErr string }{
		{`{"query":"go"}`, ""},
		{`{"query":"go","limit":3}`, ""},
		{`{}`, "missing required query"},
		{`{"query":1}`, "cannot unmarshal number"},
		{`{"query":"go","extra":true}`, `unknown field "extra"`},
		{`[1]`, "must be a JSON object"},
	}
	for _, tt := range tests {
		err := tool.Validate(json.RawMessage(tt.args))
		if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("Validate(%s) = %v, want %q", tt.args, err, tt.wantErr)
		}
	}
	// The runner refuses invalid arguments before the tool runs.
	r, _, _, _ := newRunner(t, tool)
	if res := r.Run(context.Background(), Call{Name: "search", Args: json.RawMessage(`{}`)}); !res.IsError || !strings.Contains(res.Text, "invalid arguments for search: missing required query") {
		t.Fatalf("runner result = %+v", res)
	}
}

func TestMCPScope(t *testing.T) {
	enabled := []string{"gh_issue", "gh_pr", "fs_read"}
	if got := MCPScope(enabled, nil); !reflect.DeepEqual(got, enabled) {
		t.Fatalf("nothing ticked = %v", got)
	}
	if got := MCPScope(enabled, []string{"GH_PR"}); !reflect.DeepEqual(got, []string{"gh_pr"}) {
		t.Fatalf("ticked = %v", got)
	}
}
