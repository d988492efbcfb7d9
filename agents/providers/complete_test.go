package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// Tests in this file run each case against both wire protocols.

func TestCompleteStreamsText(t *testing.T) {
	tests := []struct {
		name      string
		reply     fakemodel.Reply
		wantText  string
		wantStop  string
		wantUsage providers.Usage
	}{
		{
			name:      "words",
			reply:     fakemodel.Reply{Text: "Hello there, how are you?", Usage: fakemodel.Usage{InputTokens: 12, OutputTokens: 7}},
			wantText:  "Hello there, how are you?",
			wantStop:  providers.StopEnd,
			wantUsage: providers.Usage{InputTokens: 12, OutputTokens: 7},
		},
		{
			name:      "cached input",
			reply:     fakemodel.Reply{Text: "ok then", Usage: fakemodel.Usage{InputTokens: 100, OutputTokens: 1, CacheReadTokens: 80}},
			wantText:  "ok then",
			wantStop:  providers.StopEnd,
			wantUsage: providers.Usage{InputTokens: 100, OutputTokens: 1, CacheReadTokens: 80},
		},
		{
			name:      "unicode",
			reply:     fakemodel.Reply{Text: "héllo wörld ☃ ok", Usage: fakemodel.Usage{InputTokens: 1, OutputTokens: 2}},
			wantText:  "héllo wörld ☃ ok",
			wantStop:  providers.StopEnd,
			wantUsage: providers.Usage{InputTokens: 1, OutputTokens: 2},
		},
	}
	for _, w := range wires {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				srv := fakemodel.New(t)
				srv.Script(tt.reply)
				p := w.make(srv, providers.Options{Name: "fake"})
				rec := &recorder{}
				resp := completeOK(t, p, userRequest("m1", "hi"), rec)
				if resp.Text != tt.wantText {
					t.Errorf("Text = %q, want %q", resp.Text, tt.wantText)
				}
				if len(rec.deltas) < 2 {
					t.Errorf("got %d deltas, want the text in several pieces", len(rec.deltas))
				}
				if resp.StopReason != tt.wantStop {
					t.Errorf("StopReason = %q, want %q", resp.StopReason, tt.wantStop)
				}
				if resp.Usage != tt.wantUsage {
					t.Errorf("Usage = %+v, want %+v", resp.Usage, tt.wantUsage)
				}
				if resp.Provider != "fake" || resp.Model != "m1" {
					t.Errorf("answered by %s/%s, want fake/m1", resp.Provider, resp.Model)
				}
				if len(resp.ToolCalls) != 0 {
					t.Errorf("ToolCalls = %v, want none", resp.ToolCalls)
				}
			})
		}
	}
}

func TestCompleteEchoesWithoutScript(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := fakemodel.New(t)
			p := w.make(srv, providers.Options{Name: "fake"})
			resp := completeOK(t, p, userRequest("m", "ping pong"), &recorder{})
			if resp.Text != "echo: ping pong" {
				t.Errorf("Text = %q, want the echo", resp.Text)
			}
		})
	}
}

func TestCompleteAssemblesToolCalls(t *testing.T) {
	calls := []fakemodel.ToolCall{
		{ID: "call_1", Name: "read_file", Arguments: `{"path":"/etc/hosts","lines":[1,2,3]}`},
		{ID: "call_2", Name: "exec", Arguments: `{"command":"ls -la","cwd":"/tmp"}`},
	}
	tests := []struct {
		name     string
		reply    fakemodel.Reply
		wantText string
	}{
		{"calls only", fakemodel.Reply{ToolCalls: calls}, ""},
		{"text then calls", fakemodel.Reply{Text: "let me look", ToolCalls: calls}, "let me look"},
		{"empty arguments", fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "c0", Name: "now"}}}, ""},
	}
	for _, w := range wires {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				srv := fakemodel.New(t)
				srv.Script(tt.reply)
				p := w.make(srv, providers.Options{Name: "fake"})
				resp := completeOK(t, p, userRequest("m", "go"), &recorder{})
				if resp.StopReason != providers.StopToolCalls {
					t.Errorf("StopReason = %q, want tool_calls", resp.StopReason)
				}
				if resp.Text != tt.wantText {
					t.Errorf("Text = %q, want %q", resp.Text, tt.wantText)
				}
				if len(resp.ToolCalls) != len(tt.reply.ToolCalls) {
					t.Fatalf("got %d tool calls, want %d: %+v", len(resp.ToolCalls), len(tt.reply.ToolCalls), resp.ToolCalls)
				}
				for i, want := range tt.reply.ToolCalls {
					got := resp.ToolCalls[i]
					if got.ID != want.ID || got.Name != want.Name {
						t.Errorf("call %d = %s %s, want %s %s", i, got.ID, got.Name, want.ID, want.Name)
					}
					wantArgs := want.Arguments
					if wantArgs == "" {
						wantArgs = "{}"
					}
					if !sameJSON(t, string(got.Arguments), wantArgs) {
						t.Errorf("call %d arguments = %s, want %s", i, got.Arguments, wantArgs)
					}
				}
			})
		}
	}
}

func TestCompleteStopReasons(t *testing.T) {
	tests := []struct {
		wire, stop, want string
	}{
		{"openai", "length", providers.StopLength},
		{"openai", "content_filter", providers.StopRefusal},
		{"openai", "stop", providers.StopEnd},
		{"anthropic", "max_tokens", providers.StopLength},
		{"anthropic", "refusal", providers.StopRefusal},
		{"anthropic", "stop_sequence", providers.StopEnd},
		{"anthropic", "end_turn", providers.StopEnd},
	}
	for _, tt := range tests {
		t.Run(tt.wire+"/"+tt.stop, func(t *testing.T) {
			w := wires[0]
			if tt.wire == "anthropic" {
				w = wires[1]
			}
			srv := fakemodel.New(t)
			srv.Script(fakemodel.Reply{Text: "cut short", Stop: tt.stop})
			resp := completeOK(t, w.make(srv, providers.Options{Name: "fake"}), userRequest("m", "x"), &recorder{})
			if resp.StopReason != tt.want {
				t.Errorf("StopReason = %q, want %q", resp.StopReason, tt.want)
			}
		})
	}
}

func TestCompleteClassifiesErrors(t *testing.T) {
	future := time.Now().Add(40 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name           string
		reply          fakemodel.Reply
		wantKind       providers.ErrorKind
		wantStatus     int
		wantRetryAfter time.Duration // exact, or a lower bound when wantAbout is set
		wantAbout      bool
	}{
		{"429 seconds", fakemodel.Reply{Status: 429, RetryAfter: "7"}, providers.KindRateLimit, 429, 7 * time.Second, false},
		{"429 date", fakemodel.Reply{Status: 429, RetryAfter: future}, providers.KindRateLimit, 429, 30 * time.Second, true},
		{"429 bare", fakemodel.Reply{Status: 429}, providers.KindRateLimit, 429, 0, false},
		{"401", fakemodel.Reply{Status: 401}, providers.KindAuth, 401, 0, false},
		{"403", fakemodel.Reply{Status: 403}, providers.KindAuth, 403, 0, false},
		{"400 context length", fakemodel.Reply{Status: 400, ErrorMessage: "prompt is too long: 210000 tokens > 200000 maximum"}, providers.KindContextLength, 400, 0, false},
		{"400 context code", fakemodel.Reply{Status: 400, ErrorType: "context_length_exceeded", ErrorMessage: "too big"}, providers.KindContextLength, 400, 0, false},
		{"400 other", fakemodel.Reply{Status: 400, ErrorMessage: "tools[0].name: bad"}, providers.KindBadRequest, 400, 0, false},
		{"404 model", fakemodel.Reply{Status: 404, ErrorMessage: "model not found"}, providers.KindBadRequest, 404, 0, false},
		{"500", fakemodel.Reply{Status: 500}, providers.KindUnavailable, 500, 0, false},
		{"503", fakemodel.Reply{Status: 503, RetryAfter: "2"}, providers.KindUnavailable, 503, 2 * time.Second, false},
		{"529 overloaded", fakemodel.Reply{Status: 529}, providers.KindUnavailable, 529, 0, false},
		{"overloaded in stream", fakemodel.Reply{Text: "one two three four", StreamError: "overloaded_error"}, providers.KindUnavailable, 0, 0, false},
		{"rate limit in stream", fakemodel.Reply{Text: "one two", StreamError: "rate_limit_error"}, providers.KindRateLimit, 0, 0, false},
	}
	for _, w := range wires {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				srv := fakemodel.New(t)
				srv.Script(tt.reply)
				p := w.make(srv, providers.Options{Name: "fake"})
				resp, err := p.Complete(context.Background(), userRequest("m", "hi"), providers.Hooks{})
				if err == nil {
					t.Fatalf("Complete = %+v, want an error", resp)
				}
				pe := asError(t, err)
				if pe.Kind != tt.wantKind || pe.Status != tt.wantStatus {
					t.Errorf("got %s (HTTP %d), want %s (HTTP %d): %v", pe.Kind, pe.Status, tt.wantKind, tt.wantStatus, err)
				}
				if tt.wantAbout {
					if pe.RetryAfter < tt.wantRetryAfter || pe.RetryAfter > 41*time.Second {
						t.Errorf("RetryAfter = %v, want about 40s", pe.RetryAfter)
					}
				} else if pe.RetryAfter != tt.wantRetryAfter {
					t.Errorf("RetryAfter = %v, want %v", pe.RetryAfter, tt.wantRetryAfter)
				}
				if pe.Provider != "fake" || pe.Model != "m" {
					t.Errorf("error names %s/%s, want fake/m", pe.Provider, pe.Model)
				}
				if pe.Message == "" {
					t.Error("empty Message")
				}
				if tt.reply.ErrorMessage != "" && !strings.Contains(pe.Message, tt.reply.ErrorMessage) {
					t.Errorf("Message = %q, want the server's %q", pe.Message, tt.reply.ErrorMessage)
				}
			})
		}
	}
}

func TestCompleteTimesOut(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration // Options.Timeout
		ctxWait time.Duration // deadline on the caller's context
		reply   fakemodel.Reply
	}{
		{"per-call timeout before headers", 50 * time.Millisecond, 0, fakemodel.Reply{Delay: time.Minute, Text: "late"}},
		{"caller deadline before headers", 0, 50 * time.Millisecond, fakemodel.Reply{Delay: time.Minute, Text: "late"}},
		{"per-call timeout mid-stream", 200 * time.Millisecond, 0, fakemodel.Reply{ChunkDelay: time.Minute, Text: "a b c"}},
	}
	for _, w := range wires {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				srv := fakemodel.New(t)
				srv.Script(tt.reply)
				p := w.make(srv, providers.Options{Name: "fake", Timeout: tt.timeout})
				ctx := context.Background()
				if tt.ctxWait > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.ctxWait)
					defer cancel()
				}
				_, err := p.Complete(ctx, userRequest("m", "hi"), providers.Hooks{})
				pe := asError(t, err)
				if pe.Kind != providers.KindTimeout {
					t.Errorf("Kind = %s, want timeout: %v", pe.Kind, err)
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
				}
				if want := tt.timeout.String(); tt.timeout > 0 && !strings.Contains(pe.Message, want) {
					t.Errorf("Message = %q, want it to name the %s timeout", pe.Message, want)
				}
				if tt.timeout == 0 && !strings.Contains(pe.Message, "caller") {
					t.Errorf("Message = %q, want it to blame the caller's deadline", pe.Message)
				}
			})
		}
	}
}

func TestCompleteCancelled(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := fakemodel.New(t)
			srv.Script(fakemodel.Reply{Delay: time.Minute})
			p := w.make(srv, providers.Options{Name: "fake"})
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for len(srv.Requests()) == 0 {
					time.Sleep(time.Millisecond) // poll until the request is in flight
				}
				cancel()
			}()
			_, err := p.Complete(ctx, userRequest("m", "hi"), providers.Hooks{})
			if k := providers.KindOf(err); k != providers.KindCanceled || !errors.Is(err, context.Canceled) {
				t.Errorf("got %s %v, want canceled wrapping context.Canceled", k, err)
			}
		})
	}
}

func TestCompleteMidStreamFailure(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := fakemodel.New(t)
			srv.Script(fakemodel.Reply{Text: "one two three four five six", FailMidStream: true})
			p := w.make(srv, providers.Options{Name: "fake"})
			rec := &recorder{}
			_, err := p.Complete(context.Background(), userRequest("m", "hi"), rec.hooks())
			pe := asError(t, err)
			if pe.Kind != providers.KindUnavailable || !pe.Retryable() {
				t.Errorf("Kind = %s, want retryable unavailable: %v", pe.Kind, err)
			}
			if got := strings.Join(rec.deltas, ""); got == "" || !strings.HasPrefix("one two three four five six", got) {
				t.Errorf("streamed %q before the failure, want a prefix of the answer", got)
			}
		})
	}
}

// A server that echoes a wrong key back in its 401 body must not get the
// key into any error text; nor may a transport failure.
func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-live-SECRET-0123456789abcdef"
	for _, w := range wires {
		t.Run(w.name+"/401 echoing the key", func(t *testing.T) {
			srv := fakemodel.New(t)
			srv.RequireKey("the-right-key")
			p := w.make(srv, providers.Options{Name: "fake", APIKey: key})
			_, err := p.Complete(context.Background(), userRequest("m", "hi"), providers.Hooks{})
			if providers.KindOf(err) != providers.KindAuth {
				t.Fatalf("got %v, want an auth error", err)
			}
			if body := srv.Requests()[0].Header; !strings.Contains(fmt.Sprint(body), key) {
				t.Fatalf("the key was not sent at all; headers %v", body)
			}
			assertNoKey(t, err, key)
		})
		t.Run(w.name+"/connection refused", func(t *testing.T) {
			// Port 1 on loopback: nothing listens there.
			dead := providers.Options{Name: "fake", APIKey: key, BaseURL: "http://127.0.0.1:1/v1"}
			var p providers.Provider = providers.NewOpenAI(dead)
			if w.name == "anthropic" {
				p = providers.NewAnthropic(dead)
			}
			_, err := p.Complete(context.Background(), userRequest("m", "hi"), providers.Hooks{})
			if providers.KindOf(err) != providers.KindUnavailable {
				t.Fatalf("got %v, want unavailable", err)
			}
			assertNoKey(t, err, key)
		})
	}
}

func assertNoKey(t *testing.T, err error, key string) {
	t.Helper()
	for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), asError(t, err).Message} {
		if strings.Contains(text, key) {
			t.Errorf("error text holds the API key: %s", text)
		}
	}
	if pe := asError(t, err); pe.Err != nil && strings.Contains(pe.Err.Error(), key) {
		t.Errorf("the wrapped error's text holds the API key: %s", pe.Err)
	}
}

func TestCompleteSendsKeyAndHeaders(t *testing.T) {
	tests := []struct {
		wire, key, header, want string
	}{
		{"openai", "sk-1", "Authorization", "Bearer sk-1"},
		{"openai", "", "Authorization", ""},
		{"anthropic", "ak-1", "X-Api-Key", "ak-1"},
		{"anthropic", "", "X-Api-Key", ""},
		{"anthropic", "", "Authorization", ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/key=%q", tt.wire, tt.header, tt.key), func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", "env-openai-key")
			t.Setenv("ANTHROPIC_API_KEY", "env-anthropic-key")
			w := wires[0]
			if tt.wire == "anthropic" {
				w = wires[1]
			}
			srv := fakemodel.New(t)
			p := w.make(srv, providers.Options{Name: "fake", APIKey: tt.key, Headers: map[string]string{"X-Title": "openclaw"}})
			completeOK(t, p, userRequest("m", "hi"), &recorder{})
			h := srv.Requests()[0].Header
			if got := h.Get(tt.header); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.header, got, tt.want)
			}
			if got := h.Get("X-Title"); got != "openclaw" {
				t.Errorf("X-Title = %q, want the configured header", got)
			}
			if strings.Contains(fmt.Sprint(h), "env-") {
				t.Errorf("a key from the environment was sent: %v", h)
			}
		})
	}
}

func TestCompleteRejectsBadRequests(t *testing.T) {
	tests := []struct {
		name string
		req  providers.Request
		kind providers.ErrorKind
	}{
		{"no model", userRequest("", "hi"), providers.KindNotConfigured},
		{"unknown role", providers.Request{Model: "m", Messages: []providers.Message{{Role: "system", Text: "x"}}}, providers.KindBadRequest},
		{"tool result without id", providers.Request{Model: "m", Messages: []providers.Message{{Role: providers.RoleTool, Text: "x"}}}, providers.KindBadRequest},
		{"bad schema", providers.Request{Model: "m", Tools: []providers.Tool{{Name: "t", Parameters: json.RawMessage(`[1`)}}}, providers.KindBadRequest},
	}
	for _, w := range wires {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				srv := fakemodel.New(t)
				p := w.make(srv, providers.Options{Name: "fake"})
				_, err := p.Complete(t.Context(), tt.req, providers.Hooks{})
				if k := providers.KindOf(err); k != tt.kind {
					t.Errorf("got %s (%v), want %s", k, err, tt.kind)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%d requests sent, want none", n)
				}
			})
		}
	}
}
