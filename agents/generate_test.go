package agents

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/generate"
)

// chatFiles stands in for the channel: it keeps what was attached.
type chatFiles struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (c *chatFiles) Attach(_ context.Context, who tools.Who, file, caption, key string) (bool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files[filepath.Base(file)] = b
	return true, nil
}

// TestTurnGeneratesAndDeliversImage: the fake model activates
// image_generate, calls it, and the picture the fake OpenAI Images API
// drew is saved in the workspace and attached to the chat, with progress
// reported as tool update events.
func TestTurnGeneratesAndDeliversImage(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), []byte("a cat, drawn")...)
	var asked map[string]any
	openai := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/images/generations" || r.Header.Get("Authorization") != "Bearer sk-fake" {
			http.Error(w, `{"error":{"message":"wrong call"}}`, http.StatusBadRequest)
			return
		}
		json.NewDecoder(r.Body).Decode(&asked)
		fmt.Fprintf(w, `{"created":1764500000,"data":[{"b64_json":%q}]}`, base64.StdEncoding.EncodeToString(png))
	}))
	defer openai.Close()

	f := newFixture(t, "", nil)
	ws := t.TempDir()
	chat := &chatFiles{files: map[string][]byte{}}
	gen := generate.Tools(generate.Config{
		Workspace: func(tools.Who) (string, error) { return ws, nil },
		Credentials: func(string) generate.Credentials {
			return generate.Credentials{BaseURL: openai.URL + "/v1", APIKey: "sk-fake"}
		},
		Attach: chat,
	})
	reg := tools.NewRegistry()
	if err := reg.Register(append(f.svc.SessionTools(), gen...)...); err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t, tools.Migrations())
	settings, _ := tools.LoadSettings(context.Background(), st.DB)
	f.svc.UseTools(&RegistryTools{Runner: &tools.Runner{Registry: reg, Settings: settings}})
	f.model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "e1", Name: "enable_tool", Arguments: `{"toolName":"image_generate"}`}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "g1", Name: "image_generate", Arguments: `{"prompt":"a cat on a mat","filename":"cat"}`}}},
		fakemodel.Reply{Text: "here is your cat"},
	)
	res := f.run(t, StartRequest{Message: "draw a cat", RunID: "gen-run"})
	if res.Status != "ok" || res.Text != "here is your cat" {
		t.Fatalf("result %+v", res)
	}
	if asked["prompt"] != "a cat on a mat" || asked["model"] != "gpt-image-2" {
		t.Errorf("OpenAI was asked %v", asked)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "generated", "cat.png")); string(got) != string(png) {
		t.Errorf("workspace file holds %q", got)
	}
	if string(chat.files["cat.png"]) != string(png) {
		t.Errorf("chat got %v", chat.files)
	}
	var result string
	for _, m := range f.transcript(t, "agent:main:main") {
		if m.ToolCallID == "g1" {
			result = m.Text
		}
	}
	if !strings.Contains(result, `"path":"generated/cat.png"`) || !strings.Contains(result, `"delivered":"attachment"`) {
		t.Errorf("the model read %q", result)
	}
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	var updates int
	for _, e := range f.rec.events {
		if d, ok := e.payload["data"].(map[string]any); ok && e.payload["runId"] == "gen-run" && d["phase"] == "update" && d["toolCallId"] == "g1" {
			updates++
		}
	}
	if updates == 0 {
		t.Error("no tool update events while image_generate ran")
	}
}
