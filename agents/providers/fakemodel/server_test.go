package fakemodel_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// event is one server-sent event.
type event struct {
	name string
	data string
}

func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	var out []event
	var cur event
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, cur)
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

const openAIStreamBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},
	"messages":[{"role":"system","content":"sys"},{"role":"user","content":"hello there"}]}`

func TestOpenAIStreamWire(t *testing.T) {
	srv := fakemodel.New(t)
	srv.Script(fakemodel.Reply{Text: "a b", ToolCalls: []fakemodel.ToolCall{
		{ID: "c1", Name: "f", Arguments: `{"x":1}`},
		{ID: "c2", Name: "g", Arguments: `{"y":2}`},
	}})
	res := post(t, srv.URL()+"/v1/chat/completions", openAIStreamBody)
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	events := readEvents(t, res.Body)
	if last := events[len(events)-1]; last.data != "[DONE]" {
		t.Errorf("last event %q, want [DONE]", last.data)
	}
	var text strings.Builder
	args := map[int]string{}
	var finish string
	var usage map[string]any
	var order []int // index of each arguments delta, in order
	for _, ev := range events[:len(events)-1] {
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int `json:"index"`
						Function struct {
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
			t.Fatalf("chunk %q: %v", ev.data, err)
		}
		if c.Object != "chat.completion.chunk" {
			t.Errorf("object = %q", c.Object)
		}
		if c.Usage != nil {
			usage = c.Usage
			if len(c.Choices) != 0 {
				t.Error("usage chunk has choices")
			}
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
			for _, tc := range ch.Delta.ToolCalls {
				args[tc.Index] += tc.Function.Arguments
				if tc.Function.Arguments != "" {
					order = append(order, tc.Index)
				}
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if text.String() != "a b" || args[0] != `{"x":1}` || args[1] != `{"y":2}` || finish != "tool_calls" {
		t.Errorf("text %q args %v finish %q", text.String(), args, finish)
	}
	if !slices.Equal(order, []int{0, 1, 0, 1, 0, 1}) {
		t.Errorf("argument pieces by index %v, want the two calls interleaved", order)
	}
	if usage == nil || usage["prompt_tokens"] == nil {
		t.Errorf("usage = %v", usage)
	}
	rec := srv.Requests()[0]
	if rec.System != "sys" || len(rec.Messages) != 1 || rec.Messages[0].Text != "hello there" {
		t.Errorf("recorded %+v", rec)
	}
}

func TestAnthropicStreamWire(t *testing.T) {
	srv := fakemodel.New(t)
	srv.Script(fakemodel.Reply{Text: "hi you", ToolCalls: []fakemodel.ToolCall{{ID: "tu1", Name: "f", Arguments: `{"q":"x"}`}}})
	res := post(t, srv.URL()+"/v1/messages",
		`{"model":"claude","max_tokens":10,"stream":true,"system":"sys","messages":[{"role":"user","content":"yo"}]}`)
	var names []string
	var partial strings.Builder
	for _, ev := range readEvents(t, res.Body) {
		names = append(names, ev.name)
		var d struct {
			Type  string `json:"type"`
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
			t.Fatalf("event %q: %v", ev.data, err)
		}
		if d.Type != ev.name {
			t.Errorf("event %q carries type %q", ev.name, d.Type)
		}
		partial.WriteString(d.Delta.PartialJSON)
	}
	want := []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if !slices.Equal(names, want) {
		t.Errorf("events %v\nwant   %v", names, want)
	}
	if partial.String() != `{"q":"x"}` {
		t.Errorf("input_json_delta pieces join to %q", partial.String())
	}
	if rec := srv.Requests()[0]; rec.System != "sys" || rec.MaxTokens != 10 || rec.Messages[0].Text != "yo" {
		t.Errorf("recorded %+v", rec)
	}
}

func TestNonStreamBodies(t *testing.T) {
	srv := fakemodel.New(t)
	srv.Script(fakemodel.Reply{Text: "one"}, fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "t", Name: "f", Arguments: `{}`}}})

	var oa struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	res := post(t, srv.URL()+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	if err := json.NewDecoder(res.Body).Decode(&oa); err != nil {
		t.Fatal(err)
	}
	if oa.Choices[0].Message.Content != "one" || oa.Choices[0].FinishReason != "stop" {
		t.Errorf("openai body %+v", oa)
	}

	var an struct {
		Content []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	res = post(t, srv.URL()+"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"q"}]}`)
	if err := json.NewDecoder(res.Body).Decode(&an); err != nil {
		t.Fatal(err)
	}
	if len(an.Content) != 1 || an.Content[0].Type != "tool_use" || an.StopReason != "tool_use" {
		t.Errorf("anthropic body %+v", an)
	}
}

func TestErrorReplies(t *testing.T) {
	tests := []struct {
		path, body, wantType string
		reply                fakemodel.Reply
	}{
		{"/v1/chat/completions", `{"model":"m","messages":[]}`, "rate_limit_exceeded", fakemodel.Reply{Status: 429, RetryAfter: "3"}},
		{"/v1/messages", `{"model":"m","max_tokens":1,"messages":[]}`, "overloaded_error", fakemodel.Reply{Status: 529, RetryAfter: "3"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			srv := fakemodel.New(t)
			srv.Script(tt.reply)
			res := post(t, srv.URL()+tt.path, tt.body)
			if res.StatusCode != tt.reply.Status || res.Header.Get("Retry-After") != "3" {
				t.Errorf("status %d Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
			}
			var body struct {
				Error struct {
					Type string `json:"type"`
				} `json:"error"`
			}
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil || body.Error.Type != tt.wantType {
				t.Errorf("error type %q (%v), want %q", body.Error.Type, err, tt.wantType)
			}
		})
	}
}

func TestRequireKey(t *testing.T) {
	srv := fakemodel.New(t)
	srv.RequireKey("good")
	body := `{"model":"m","messages":[{"role":"user","content":"q"}]}`
	if res := post(t, srv.URL()+"/v1/chat/completions", body, "Authorization", "Bearer bad"); res.StatusCode != 401 {
		t.Errorf("bad key: status %d", res.StatusCode)
	}
	if res := post(t, srv.URL()+"/v1/chat/completions", body, "Authorization", "Bearer good"); res.StatusCode != 200 {
		t.Errorf("good key: status %d", res.StatusCode)
	}
	if res := post(t, srv.URL()+"/v1/messages", `{"model":"m","max_tokens":1,"messages":[]}`, "X-Api-Key", "good"); res.StatusCode != 200 {
		t.Errorf("good x-api-key: status %d", res.StatusCode)
	}
}

func TestConcurrentUse(t *testing.T) {
	srv := fakemodel.New(t)
	const n = 16
	for i := range n {
		srv.Script(fakemodel.Reply{Text: fmt.Sprint("reply ", i)})
	}
	var wg sync.WaitGroup
	got := make(chan string, 2*n)
	for range n {
		wg.Go(func() {
			// post would call t.Fatal, which only the test goroutine may.
			res, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"q"}]}`))
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			var b struct {
				Choices []struct {
					Message struct {
						Content string `json:"content"`
					} `json:"message"`
				} `json:"choices"`
			}
			if err := json.NewDecoder(res.Body).Decode(&b); err == nil && len(b.Choices) == 1 {
				got <- b.Choices[0].Message.Content
			}
		})
	}
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for s := range got {
		seen[s] = true
	}
	if len(seen) != n || srv.Pending() != 0 || len(srv.Requests()) != n {
		t.Errorf("%d distinct replies, %d pending, %d recorded; want %d, 0, %d", len(seen), srv.Pending(), len(srv.Requests()), n, n)
	}
	// With the script used up, the server echoes.
	res := post(t, srv.URL()+"/v1/messages", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"marco"}]}]}`)
	b, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(b), "echo: marco") {
		t.Errorf("echo body %s", b)
	}
}

// TestRespond: a responder answers from the request, a script still
// comes first, and declining falls back to the echo.
func TestRespond(t *testing.T) {
	srv := fakemodel.New(t)
	srv.Respond(func(rec fakemodel.Recorded) (fakemodel.Reply, bool) {
		if last := rec.Messages[len(rec.Messages)-1]; strings.Contains(last.Text, "[tool]") {
			return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "DateTimeTool", Arguments: `{}`}}}, true
		}
		return fakemodel.Reply{}, false
	})
	srv.Script(fakemodel.Reply{Text: "scripted"})
	ask := func(text string) string {
		t.Helper()
		res := post(t, srv.URL()+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"`+text+`"}]}`)
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct{ text, want string }{
		{"[tool] first", "scripted"},
		{"[tool] second", "DateTimeTool"},
		{"plain", "echo: plain"},
	} {
		if got := ask(tc.text); !strings.Contains(got, tc.want) {
			t.Errorf("%q answered %s, want %q in it", tc.text, got, tc.want)
		}
	}
}
