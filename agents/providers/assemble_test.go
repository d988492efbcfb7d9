package providers

import (
	"log/slog"
	"testing"
)

func TestAnswerAssemblesCalls(t *testing.T) {
	type delta struct {
		index          int64
		id, name, args string
	}
	tests := []struct {
		name   string
		deltas []delta
		want   []ToolCall
	}{
		{
			name: "interleaved by index",
			deltas: []delta{
				{0, "a", "f", ""}, {1, "b", "g", ""},
				{0, "", "", `{"x":`}, {1, "", "", `{"y":`}, {0, "", "", `1}`}, {1, "", "", `2}`},
			},
			want: []ToolCall{{ID: "a", Name: "f", Arguments: []byte(`{"x":1}`)}, {ID: "b", Name: "g", Arguments: []byte(`{"y":2}`)}},
		},
		{
			name:   "whole calls all at index 0",
			deltas: []delta{{0, "a", "f", `{}`}, {0, "b", "g", `{"k":true}`}},
			want:   []ToolCall{{ID: "a", Name: "f", Arguments: []byte(`{}`)}, {ID: "b", Name: "g", Arguments: []byte(`{"k":true}`)}},
		},
		{
			name:   "no id, no arguments",
			deltas: []delta{{3, "", "now", ""}},
			want:   []ToolCall{{ID: "call_0", Name: "now", Arguments: []byte(`{}`)}},
		},
		{
			name:   "arguments that are not JSON",
			deltas: []delta{{0, "a", "f", `{"x":`}},
			want:   []ToolCall{{ID: "a", Name: "f", Arguments: []byte(`"{\"x\":"`)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAnswer(Hooks{})
			for _, d := range tt.deltas {
				a.addCall(d.index, d.id, d.name, d.args)
			}
			got := a.toolCalls(slog.New(slog.DiscardHandler))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d calls %+v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if got[i].ID != tt.want[i].ID || got[i].Name != tt.want[i].Name || string(got[i].Arguments) != string(tt.want[i].Arguments) {
					t.Errorf("call %d = %s %s %s, want %s %s %s", i, got[i].ID, got[i].Name, got[i].Arguments,
						tt.want[i].ID, tt.want[i].Name, tt.want[i].Arguments)
				}
			}
		})
	}
}

func TestAnswerPassesTextOn(t *testing.T) {
	var got []string
	a := newAnswer(Hooks{OnDelta: func(s string) { got = append(got, s) }})
	for _, s := range []string{"a", "", "b"} {
		a.addText(s)
	}
	if a.text.String() != "ab" || len(got) != 2 {
		t.Errorf("text %q, deltas %q; want ab in two deltas", a.text.String(), got)
	}
}
