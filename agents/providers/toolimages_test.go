package providers_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// pngBytes is a 1x1 PNG: a real image both APIs accept.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// TestToolResultImages: a screenshot a tool returns reaches the model on
// both wire formats: inside the tool result for Anthropic, as a user
// message after the step's tool results for OpenAI's chat API.
func TestToolResultImages(t *testing.T) {
	tests := []struct {
		name  string
		make  func(url string) providers.Provider
		check func(t *testing.T, msgs []fakemodel.Message)
	}{
		{"openai", func(url string) providers.Provider {
			return providers.NewOpenAI(providers.Options{Name: "local", BaseURL: url + "/v1"})
		}, func(t *testing.T, msgs []fakemodel.Message) {
			roles := []string{}
			for _, m := range msgs {
				roles = append(roles, m.Role)
			}
			if strings.Join(roles, " ") != "user assistant tool tool user user" {
				t.Fatalf("roles %v: want the pictures as a user message after both tool results", roles)
			}
			shown := msgs[4]
			if len(shown.Images) != 1 || !bytes.Equal(shown.Images[0].Data, pngBytes) || !strings.Contains(shown.Text, "weather (call_a)") {
				t.Fatalf("pictures message: %+v", shown)
			}
		}},
		{"anthropic", func(url string) providers.Provider {
			return providers.NewAnthropic(providers.Options{Name: "claude", BaseURL: url, APIKey: "k"})
		}, func(t *testing.T, msgs []fakemodel.Message) {
			var found bool
			for _, m := range msgs {
				for _, img := range m.Images {
					found = found || bytes.Equal(img.Data, pngBytes) && img.MediaType == "image/png"
				}
			}
			if !found {
				t.Fatalf("no image in the tool result: %+v", msgs)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakemodel.New(t)
			req := toolTranscript("m")
			req.Messages[2].Images = []providers.Image{{MediaType: "image/png", Data: pngBytes}}
			completeOK(t, tt.make(srv.URL()), req, &recorder{})
			tt.check(t, srv.Requests()[0].Messages)
		})
	}
}
