package telegram

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

func TestFetchMedia(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	fake.AddFile("doc-report.pdf", []byte("%PDF-1.7 report"))
	fake.AddFile("big", make([]byte, 3<<20))
	a := newAdapter(t, fake, nil)
	tests := []struct {
		name string
		m    channels.Media
		max  int64
		want string
		err  string
	}{
		{"downloads through getFile", channels.Media{FileID: "doc-report.pdf"}, 1 << 20, "%PDF-1.7 report", ""},
		{"stated size over the cap", channels.Media{FileID: "big", Size: 3 << 20}, 1 << 20, "", "over the 1 MB limit"},
		{"size from getFile over the cap", channels.Media{FileID: "big"}, 1 << 20, "", "over the 1 MB limit"},
		{"unknown file", channels.Media{FileID: "nope"}, 1 << 20, "", "invalid file_id"},
		{"no file id", channels.Media{}, 1 << 20, "", "no file id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := a.FetchMedia(context.Background(), tt.m, tt.max)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				if strings.Contains(err.Error(), testToken) {
					t.Errorf("error reveals the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, _ := io.ReadAll(rc)
			if string(b) != tt.want {
				t.Errorf("got %q", b)
			}
		})
	}
	if _, err := a.FetchMedia(context.Background(), channels.Media{FileID: "big"}, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversize error %v is not ErrTooLarge", err)
	}
}
