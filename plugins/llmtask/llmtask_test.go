package llmtask

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// scripted answers each Complete with the next reply and keeps the
// requests.
type scripted struct {
	replies []string
	err     error
	got     []Request
}

func (s *scripted) Complete(ctx context.Context, who tools.Who, req Request) (string, error) {
	s.got = append(s.got, req)
	if s.err != nil {
		return "", s.err
	}
	if len(s.replies) == 0 {
		return "", errors.New("no reply scripted")
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r, nil
}

const ticketSchema = `{"type":"object","required":["priority","tags"],"properties":{
  "priority":{"type":"string","enum":["low","high"]},"tags":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`

func invoke(t *testing.T, c Completer, cfg Config, args string) (tools.Result, error) {
	t.Helper()
	tool := Tool(c, cfg)
	return tool.Call(context.Background(), tools.Call{Name: "llm-task", Args: json.RawMessage(args), Who: tools.Who{AgentID: "main"}})
}

func TestLLMTask(t *testing.T) {
	yes := func() bool { return true }
	tests := []struct {
		name    string
		replies []string
		cfg     Config
		args    string
		want    string // the result text
		wantErr string
		calls   int
	}{
		{name: "plain JSON", replies: []string{`{"ok": true}`}, args: `{"prompt":"say ok"}`, want: `{"ok":true}`, calls: 1},
		{name: "fenced JSON", replies: []string{"```json\n[1, 2]\n```"}, args: `{"prompt":"two numbers"}`, want: `[1,2]`, calls: 1},
		{name: "schema satisfied", replies: []string{`{"priority":"high","tags":["db"]}`},
			args: `{"prompt":"triage","input":{"title":"db down"},"schema":` + ticketSchema + `}`,
			want: `{"priority":"high","tags":["db"]}`, calls: 1},
		{name: "schema retry fixes it", replies: []string{`{"priority":"urgent"}`, `{"priority":"low","tags":[]}`},
			args: `{"prompt":"triage","schema":` + ticketSchema + `}`, want: `{"priority":"low","tags":[]}`, calls: 2},
		{name: "prose twice", replies: []string{"Sure! Here it is", "I think low"},
			args: `{"prompt":"triage"}`, wantErr: "not usable JSON", calls: 2},
		{name: "trailing text", replies: []string{`{"a":1} and more`, `{"a":1}`}, args: `{"prompt":"x"}`, want: `{"a":1}`, calls: 2},
		{name: "no prompt", args: `{"prompt":" "}`, wantErr: "prompt is required"},
		{name: "bad schema", args: `{"prompt":"x","schema":{"type":12}}`, wantErr: "schema"},
		{name: "model override off", args: `{"prompt":"x","model":"openai/gpt-x"}`, wantErr: "allowModelOverride"},
		{name: "model override on", replies: []string{`1`}, cfg: Config{AllowModelOverride: yes},
			args: `{"prompt":"x","model":"openai/gpt-x"}`, want: `1`, calls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &scripted{replies: tt.replies}
			res, err := invoke(t, c, tt.cfg, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v (result %q), want %q", err, res.Text, tt.wantErr)
				}
			} else if err != nil || res.Text != tt.want {
				t.Fatalf("result %q err %v, want %q", res.Text, err, tt.want)
			}
			if len(c.got) != tt.calls {
				t.Fatalf("%d model calls, want %d", len(c.got), tt.calls)
			}
		})
	}
}

func TestLLMTaskPromptCarriesInputSchemaAndTheRejection(t *testing.T) {
	c := &scripted{replies: []string{`{"priority":"urgent"}`, `{"priority":"low","tags":[]}`}}
	if _, err := invoke(t, c, Config{}, `{"prompt":"triage this","input":{"title":"db down"},"schema":`+ticketSchema+`}`); err != nil {
		t.Fatal(err)
	}
	first, second := c.got[0], c.got[1]
	if !strings.Contains(first.System, "exactly one JSON value") || !strings.Contains(first.Prompt, `{"title":"db down"}`) ||
		!strings.Contains(first.Prompt, `"enum":["low","high"]`) {
		t.Fatalf("first request: %+v", first)
	}
	if !strings.Contains(second.Prompt, "rejected") || !strings.Contains(second.Prompt, `"urgent"`) {
		t.Fatalf("retry request lacks the rejection: %q", second.Prompt)
	}
}

func TestLLMTaskModelError(t *testing.T) {
	_, err := invoke(t, &scripted{err: errors.New("rate limited")}, Config{}, `{"prompt":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("err %v", err)
	}
}

// FuzzParseJSON: model output is untrusted text.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n[]\n```", "```", "x", `"s"`, `{"a":1} {"b":2}`, "```json```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseJSON(s)
		if err == nil {
			if _, merr := json.Marshal(v); merr != nil {
				t.Fatalf("accepted %q but cannot re-encode: %v", s, merr)
			}
		}
	})
}
