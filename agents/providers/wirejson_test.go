package providers

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestFlexText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"string", `"hi"`, "hi"},
		{"null", `null`, ""},
		{"escaped", `"a\nb \u2603"`, "a\nb ☃"},
		{"parts", `[{"type":"text","text":"a"},{"type":"thinking","thinking":"x"},{"type":"text","text":"b"}]`, "ab"},
		{"odd parts", `[1,2]`, ""},
		{"object arguments", `{"city":"Paris"}`, `{"city":"Paris"}`},
		{"number", `12`, ""},
		{"bool", `true`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v struct {
				F flexText `json:"f"`
			}
			if err := json.Unmarshal([]byte(`{"f":`+tt.in+`}`), &v); err != nil {
				t.Fatal(err)
			}
			if string(v.F) != tt.want {
				t.Errorf("got %q, want %q", v.F, tt.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want count
	}{
		{`12`, 12}, {`12.9`, 12}, {`null`, 0}, {`"7"`, 0}, {`{}`, 0}, {`1e300`, 0}, {`-3`, -3},
	}
	for _, tt := range tests {
		var v struct {
			C count `json:"c"`
		}
		if err := json.Unmarshal([]byte(`{"c":`+tt.in+`}`), &v); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if v.C != tt.want {
			t.Errorf("%s: got %d, want %d", tt.in, v.C, tt.want)
		}
	}
}

func TestEndpointURL(t *testing.T) {
	tests := []struct {
		base, rel, want string
	}{
		{"https://api.openai.com/v1", "chat/completions", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1/", "chat/completions", "https://api.openai.com/v1/chat/completions"},
		{"http://127.0.0.1:11434", "chat/completions", "http://127.0.0.1:11434/chat/completions"},
		{"https://proxy.example/a/b?key=1", "v1/messages", "https://proxy.example/a/b/v1/messages"},
		{"https://api.anthropic.com", "v1/messages", "https://api.anthropic.com/v1/messages"},
	}
	for _, tt := range tests {
		got, err := endpointURL(tt.base, tt.rel)
		if err != nil || got != tt.want {
			t.Errorf("endpointURL(%q, %q) = %q, %v; want %q", tt.base, tt.rel, got, err, tt.want)
		}
	}
	_, err := endpointURL("http://user:secret@[::1:x/v1", "chat/completions")
	var be *buildError
	if !errors.As(err, &be) || be.kind != KindNotConfigured {
		t.Fatalf("bad base: got %v, want a not-configured buildError", err)
	}
	if msg := be.Error(); msg == "" || strings.Contains(msg, "secret") {
		t.Errorf("message %q must say what is wrong without the URL", msg)
	}
}
