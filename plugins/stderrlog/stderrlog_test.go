package stderrlog

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestLineLog(t *testing.T) {
	var out bytes.Buffer
	l := New(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})), "child stderr")
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
