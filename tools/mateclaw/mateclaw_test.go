package mateclaw

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

func TestTools(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "note.txt"), []byte("héllo"), 0o600)
	os.WriteFile(filepath.Join(ws, "img.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o600)
	fixed := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ts := Tools(func() time.Time { return fixed }, func(tools.Who) (string, error) { return ws, nil })
	call := func(tl tools.Tool, args string) (string, error) {
		r, err := tl.Call(context.Background(), tools.Call{Args: json.RawMessage(args)})
		return r.Text, err
	}
	tests := []struct {
		tool    int
		args    string
		want    string
		wantErr string
	}{
		{0, `{"timezone":"America/New_York"}`, "2026-11-30T07:00:00 (America/New_York, Monday)", ""},
		{0, `{}`, "2026-11-30T12:00:00 (UTC, Monday)", ""},
		{0, `{"timezone":"Mars/Olympus"}`, "", "unknown time zone"},
		{1, `{"path":"note.txt"}`, "mime: text/plain; charset=utf-8\nencoding: utf-8", ""},
		{1, `{"path":"img.png"}`, "mime: image/png\nencoding: binary", ""},
		{1, `{"path":"../../etc/passwd"}`, "", "open ../../etc/passwd"},
	}
	for _, tt := range tests {
		got, err := call(ts[tt.tool], tt.args)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}
