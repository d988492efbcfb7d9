package providers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, value string
		want        time.Duration
	}{
		{"empty", "", 0},
		{"seconds", "30", 30 * time.Second},
		{"fraction", "1.5", 1500 * time.Millisecond},
		{"zero", "0", 0},
		{"negative", "-4", 0},
		{"absurd", "99999999", 0},
		{"http date", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"date in the past", now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"garbage", "soon", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseRetryAfter(tt.value, now); got != tt.want {
				t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
}

func TestRetryAfterPrefersMilliseconds(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "20")
	h.Set("Retry-After-Ms", "1500")
	if got := retryAfter(h, time.Now()); got != 1500*time.Millisecond {
		t.Errorf("retryAfter = %v, want 1.5s", got)
	}
}

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		name, body            string
		message, typ, codeStr string
	}{
		{"openai", `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Rate limit reached", "requests", "rate_limit_exceeded"},
		{"anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded", "overloaded_error", ""},
		{"vllm", `{"object":"error","message":"maximum context length is 4096 tokens","type":"BadRequestError","code":400}`, "maximum context length is 4096 tokens", "BadRequestError", "400"},
		{"ollama", `{"error":"model \"x\" not found"}`, `model "x" not found`, "", ""},
		{"fastapi", `{"detail":"Not Found"}`, "Not Found", "", ""},
		{"text", "upstream connect error\n", "upstream connect error", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErrorBody([]byte(tt.body))
			if got.message != tt.message || got.typ != tt.typ || got.code != tt.codeStr {
				t.Errorf("parseErrorBody = %+v, want %q %q %q", got, tt.message, tt.typ, tt.codeStr)
			}
		})
	}
}

func TestKindForStatus(t *testing.T) {
	tests := []struct {
		status int
		msg    string
		want   ErrorKind
	}{
		{429, "", KindRateLimit},
		{401, "", KindAuth},
		{403, "", KindAuth},
		{402, "insufficient credits", KindAuth},
		{408, "", KindTimeout},
		{413, "", KindContextLength},
		{400, "This model's maximum context length is 8192 tokens", KindContextLength},
		{400, "the request exceeds the available context size", KindContextLength},
		{400, "input is too long for requested model", KindContextLength},
		{400, "messages: roles must alternate", KindBadRequest},
		{404, "model not found", KindBadRequest},
		{422, "unprocessable", KindBadRequest},
		{500, "", KindUnavailable},
		{502, "", KindUnavailable},
		{529, "", KindUnavailable},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status)+" "+tt.msg, func(t *testing.T) {
			if got := kindForStatus(tt.status, errorInfo{message: tt.msg}); got != tt.want {
				t.Errorf("kindForStatus(%d, %q) = %s, want %s", tt.status, tt.msg, got, tt.want)
			}
		})
	}
}

func TestClassifyWithoutResponse(t *testing.T) {
	expired, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	c := call{provider: "p", model: "m", apiKey: "k-123456"}
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want ErrorKind
	}{
		{"deadline", expired, errors.New("read: i/o timeout"), KindTimeout},
		{"cancelled", cancelled, errors.New("whatever"), KindCanceled},
		{"dropped", context.Background(), io.ErrUnexpectedEOF, KindUnavailable},
		{"other", context.Background(), errors.New("decode chunk: bad json k-123456"), KindUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := c.classify(tt.ctx, tt.err, nil)
			if e.Kind != tt.want {
				t.Errorf("Kind = %s, want %s", e.Kind, tt.want)
			}
			if !errors.Is(e, tt.err) {
				t.Errorf("%v does not wrap %v", e, tt.err)
			}
			if strings.Contains(e.Error(), c.apiKey) || strings.Contains(e.Err.Error(), c.apiKey) {
				t.Errorf("key in %q", e.Error())
			}
		})
	}
}

func TestCleanBoundsMessage(t *testing.T) {
	c := call{}
	long := strings.Repeat("é", maxMessage)
	got := c.clean(long, "x")
	if len(got) > maxMessage+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("clean kept %d bytes", len(got))
	}
	if !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Error("clean cut inside a rune")
	}
}
