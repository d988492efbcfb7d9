package providers_test

import (
	"encoding/json"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func TestAnthropicRequestShape(t *testing.T) {
	srv := fakemodel.New(t)
	// A trailing /v1, as some configs write it, must not double up.
	p := providers.NewAnthropic(providers.Options{Name: "anthropic", BaseURL: srv.URL() + "/v1/"})
	temp := 0.5
	req := toolTranscript("claude-opus-4-6")
	req.Temperature = &temp
	completeOK(t, p, req, &recorder{})

	got := srv.Requests()[0]
	if got.Path != "/v1/messages" || got.Model != "claude-opus-4-6" || !got.Stream {
		t.Errorf("request %s model %q stream %v", got.Path, got.Model, got.Stream)
	}
	if got.System != "you are terse" {
		t.Errorf("System = %q", got.System)
	}
	if got.MaxTokens != 4096 {
		t.Errorf("max_tokens = %d, want the default 4096", got.MaxTokens)
	}
	if got.Temperature == nil || *got.Temperature != 0.5 {
		t.Errorf("temperature = %v, want 0.5", got.Temperature)
	}

	// user / assistant (text + 2 tool_use) / user (2 tool_result + text).
	want := []struct {
		role   string
		blocks []fakemodel.Block
	}{
		{"user", []fakemodel.Block{{Type: "text", Text: "weather in Paris and Oslo?"}}},
		{"assistant", []fakemodel.Block{
			{Type: "text", Text: "checking"},
			{Type: "tool_use", ID: "call_a", Name: "weather", Input: json.RawMessage(`{"city":"Paris"}`)},
			{Type: "tool_use", ID: "call_b", Name: "weather", Input: json.RawMessage(`{"city":"Oslo"}`)},
		}},
		{"user", []fakemodel.Block{
			{Type: "tool_result", ToolUseID: "call_a", Text: "sunny"},
			{Type: "tool_result", ToolUseID: "call_b", Text: "no such city", IsError: true},
			{Type: "text", Text: "thanks"},
		}},
	}
	if len(got.Messages) != len(want) {
		t.Fatalf("got %d messages, want %d: %+v", len(got.Messages), len(want), got.Messages)
	}
	for i, w := range want {
		g := got.Messages[i]
		if g.Role != w.role || len(g.Blocks) != len(w.blocks) {
			t.Errorf("message %d = %s with %d blocks %+v, want %s with %d", i, g.Role, len(g.Blocks), g.Blocks, w.role, len(w.blocks))
			continue
		}
		for j, wb := range w.blocks {
			gb := g.Blocks[j]
			if gb.Type != wb.Type || gb.Text != wb.Text || gb.ID != wb.ID || gb.Name != wb.Name ||
				gb.ToolUseID != wb.ToolUseID || gb.IsError != wb.IsError {
				t.Errorf("message %d block %d = %+v, want %+v", i, j, gb, wb)
			}
			if wb.Input != nil && !sameJSON(t, string(gb.Input), string(wb.Input)) {
				t.Errorf("message %d block %d input = %s, want %s", i, j, gb.Input, wb.Input)
			}
		}
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "weather" || got.Tools[0].Description != "current weather" ||
		!sameJSON(t, string(got.Tools[0].Parameters), string(req.Tools[0].Parameters)) {
		t.Errorf("tools = %+v, want weather with the schema as given", got.Tools)
	}
}

func TestAnthropicMessageMerging(t *testing.T) {
	tests := []struct {
		name      string
		msgs      []providers.Message
		wantRoles []string
		wantTypes [][]string
	}{
		{
			name: "tool results after calls",
			msgs: []providers.Message{
				{Role: providers.RoleUser, Text: "go"},
				{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "1", Name: "a"}, {ID: "2", Name: "b"}}},
				{Role: providers.RoleTool, ToolCallID: "1", Text: "r1"},
				{Role: providers.RoleTool, ToolCallID: "2", Text: ""},
			},
			wantRoles: []string{"user", "assistant", "user"},
			wantTypes: [][]string{{"text"}, {"tool_use", "tool_use"}, {"tool_result", "tool_result"}},
		},
		{
			name: "empty turns dropped",
			msgs: []providers.Message{
				{Role: providers.RoleUser, Text: "a"},
				{Role: providers.RoleAssistant},
				{Role: providers.RoleUser, Text: "b"},
			},
			wantRoles: []string{"user"},
			wantTypes: [][]string{{"text", "text"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakemodel.New(t)
			p := providers.NewAnthropic(providers.Options{Name: "a", BaseURL: srv.URL()})
			completeOK(t, p, providers.Request{Model: "m", MaxTokens: 10, Messages: tt.msgs}, &recorder{})
			got := srv.Requests()[0]
			if got.MaxTokens != 10 {
				t.Errorf("max_tokens = %d, want 10", got.MaxTokens)
			}
			if len(got.Messages) != len(tt.wantRoles) {
				t.Fatalf("got %d messages %+v, want roles %v", len(got.Messages), got.Messages, tt.wantRoles)
			}
			for i, m := range got.Messages {
				var types []string
				for _, b := range m.Blocks {
					types = append(types, b.Type)
				}
				if m.Role != tt.wantRoles[i] || len(types) != len(tt.wantTypes[i]) {
					t.Errorf("message %d = %s %v, want %s %v", i, m.Role, types, tt.wantRoles[i], tt.wantTypes[i])
					continue
				}
				for j := range types {
					if types[j] != tt.wantTypes[i][j] {
						t.Errorf("message %d = %s %v, want %s %v", i, m.Role, types, tt.wantRoles[i], tt.wantTypes[i])
						break
					}
				}
			}
		})
	}
}
