package fakemodel_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestStartServesWithoutRecording: a server from Start echoes like one
// from New, keeps no requests, and stops on Close.
func TestStartServesWithoutRecording(t *testing.T) {
	srv, err := fakemodel.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Script(fakemodel.Reply{Text: "scripted first"})
	for _, want := range []string{"scripted first", "echo: hello there"} {
		res := post(t, srv.URL()+"/v1/chat/completions", openAIStreamBody)
		var text strings.Builder
		for _, ev := range readEvents(t, res.Body) {
			var c struct {
				Choices []struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if ev.data == "[DONE]" {
				continue
			}
			if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
				t.Fatalf("chunk %q: %v", ev.data, err)
			}
			for _, ch := range c.Choices {
				text.WriteString(ch.Delta.Content)
			}
		}
		if text.String() != want {
			t.Errorf("streamed %q, want %q", text.String(), want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("kept %d requests, want none", n)
	}
	srv.Close()
	if res, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", strings.NewReader(openAIStreamBody)); err == nil {
		res.Body.Close()
		t.Error("still answering after Close")
	}
}

func TestStartBadAddress(t *testing.T) {
	if _, err := fakemodel.Start("127.0.0.1:notaport"); err == nil {
		t.Fatal("Start on a bad address succeeded")
	}
}
