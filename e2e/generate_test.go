package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// generatedPNG is what the fake OpenAI Images API draws.
var generatedPNG = append([]byte("\x89PNG\r\n\x1a\n"), []byte("e2e drawing")...)

// fakeImages is OpenAI's /v1/images/generations answering b64_json; it
// counts the calls that carried the right key.
func fakeImages(t *testing.T, key string) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/images/generations" || r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"bad call","type":"invalid_request_error"}}`)
			return
		}
		calls.Add(1)
		fmt.Fprintf(w, `{"created":1764500000,"data":[{"b64_json":%q}]}`, base64.StdEncoding.EncodeToString(generatedPNG))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestImageGenerateToTelegram: in a Telegram chat the model activates
// image_generate and calls it; the picture the fake OpenAI drew arrives in
// that chat as a native attachment.
func TestImageGenerateToTelegram(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	images, calls := fakeImages(t, "sk-e2e-images")
	const token = "123456:TEST-generate"
	tg := telegramtest.New(t, token)
	startGateway(t, gatewayOpts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: {
    fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] },
    openai: { baseUrl: %q, apiKey: "sk-e2e-images", models: [] },
  } },
  agents: { defaults: { model: "fake/echo-1", mediaModels: { image: "openai/gpt-image-2" } } },
  channels: { telegram: { botToken: %q, apiRoot: %q, allowFrom: [2001] } },
}`, model.URL()+"/v1", images.URL+"/v1", token, tg.URL())})
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "e1", Name: "enable_tool", Arguments: `{"toolName":"image_generate"}`}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "g1", Name: "image_generate", Arguments: `{"prompt":"a lighthouse at dawn","filename":"lighthouse"}`}}},
		fakemodel.Reply{Text: "drawn"},
	)
	bea := telegramtest.User{ID: 2001, Username: "bea", FirstName: "Bea"}
	tg.AddPrivateText(bea, "draw a lighthouse")
	pic := waitSentWhere(t, tg, "with the picture", func(m telegramtest.Message) bool { return len(m.FileBytes) > 0 })
	if !bytes.Equal(pic.FileBytes, generatedPNG) || pic.ChatID != "2001" || !strings.HasPrefix(pic.FileName, "lighthouse") {
		t.Fatalf("sent %+v", pic)
	}
	waitSentWhere(t, tg, "with the answer", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "drawn") })
	if calls.Load() != 1 {
		t.Errorf("OpenAI was called %d times", calls.Load())
	}
}

// TestImageGenerateLink: outside a chat (tools.invoke) the picture is
// saved in the workspace and served once at a download link.
func TestImageGenerateLink(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	images, _ := fakeImages(t, "sk-e2e-link")
	g := startGateway(t, gatewayOpts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { openai: { baseUrl: %q, apiKey: "sk-e2e-link", models: [] } } },
}`, images.URL+"/v1")})
	c := ourClient(t, g)
	ok, text := invokeTool(t, c, "image_generate", `{"prompt":"a red kite"}`)
	if !ok {
		t.Fatalf("image_generate: %s", text)
	}
	if strings.Contains(text, "sk-e2e-link") {
		t.Fatalf("the key is in the result: %s", text)
	}
	var res struct {
		Files []struct {
			Path, URL, Delivered string
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(text), &res); err != nil || len(res.Files) != 1 || res.Files[0].URL == "" || res.Files[0].Delivered != "link" {
		t.Fatalf("result %s: %v", text, err)
	}
	get := func() (int, []byte) {
		resp, err := http.Get(res.Files[0].URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, body := get(); code != http.StatusOK || !bytes.Equal(body, generatedPNG) {
		t.Fatalf("download: %d %q", code, body)
	}
	if code, _ := get(); code != http.StatusNotFound {
		t.Fatalf("second download of a one-time link: %d", code)
	}
}
