package tts

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

type fakeSpeaker struct {
	text    string
	timeout time.Duration
	key     string
}

func (f *fakeSpeaker) SpeakTo(ctx context.Context, who tools.Who, text string, timeout time.Duration, key string) (string, error) {
	f.text, f.timeout, f.key = text, timeout, key
	return "to telegram chat 42 (sent)", nil
}

func call(t *testing.T, tool tools.Tool, args any) (tools.Result, error) {
	t.Helper()
	b, _ := json.Marshal(args)
	return tool.Call(context.Background(), tools.Call{ID: "c1", Name: "tts", Args: b, Who: tools.Who{RunID: "r1", AgentID: "main"}})
}

func TestTool(t *testing.T) {
	s := &fakeSpeaker{}
	res, err := call(t, Tool(s), Args{Text: "  hello there  ", TimeoutMs: 20 * 60 * 1000})
	if err != nil || !strings.Contains(res.Text, "voice message sent") {
		t.Fatalf("%+v %v", res, err)
	}
	if s.text != "hello there" || s.key != "r1:c1" || s.timeout != maxTimeout {
		t.Errorf("speaker got %+v", s)
	}
	if _, err := call(t, Tool(s), Args{Text: " "}); err == nil {
		t.Error("empty text accepted")
	}
	if _, err := call(t, Tool(nil), Args{Text: "hi"}); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("nil speaker: %v", err)
	}
}
