package mcp

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestLineLog(t *testing.T) {
	var out bytes.Buffer
	l := &lineLog{log: slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))}
	l.Write([]byte("first li"))
	l.Write([]byte("ne\r\n\nsecond\n"))
	l.Write([]byte(strings.Repeat("x", maxLogLine+10)))
	got := out.String()
	for _, want := range []string{`line="first line"`, "line=second", "line=" + strings.Repeat("x", maxLogLine) + "\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("log %q lacks %q", got, want)
		}
	}
	if n := strings.Count(got, "\n"); n != 3 {
		t.Errorf("%d lines logged, want 3:\n%s", n, got)
	}
}

func TestBackoff(t *testing.T) {
	m := &Manager{MinBackoff: time.Second, MaxBackoff: time.Minute}
	tests := []struct {
		attempt int
		want    time.Duration
	}{{0, time.Second}, {1, 2 * time.Second}, {5, 32 * time.Second}, {6, time.Minute}, {100, time.Minute}}
	for _, tt := range tests {
		if got := m.backoff(tt.attempt); got != tt.want {
			t.Errorf("backoff(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
	if got := (&Manager{}).backoff(0); got != time.Second {
		t.Errorf("default first backoff = %v", got)
	}
}
