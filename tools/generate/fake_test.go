package generate

import (
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/generate/generatetest"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// TestFakeRunwayVersion: the fake wants the version header the client
// sends.
func TestFakeRunwayVersion(t *testing.T) {
	if generatetest.RunwayVersion != RunwayVersion {
		t.Fatalf("the fake wants %s, the client sends %s", generatetest.RunwayVersion, RunwayVersion)
	}
}

// loopbackOK lets result downloads reach the fake, as an operator's
// allowlist would let them reach an internal store.
var loopbackOK = netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}

// attached records what the tools sent to the chat.
type attached struct {
	mu    sync.Mutex
	files map[string][]byte // base name → bytes
	chat  bool
}

func (a *attached) Attach(_ context.Context, who tools.Who, file, caption, key string) (bool, error) {
	if !a.chat {
		return false, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.files == nil {
		a.files = map[string][]byte{}
	}
	a.files[filepath.Base(file)] = b
	return true, nil
}

// harness is the tools over a fake, in a temporary workspace.
type harness struct {
	f      *generatetest.Fake
	ws     string
	tools  map[string]tools.Tool
	att    *attached
	events []tools.Progress
	mu     sync.Mutex
	links  []string
}

func newHarness(t *testing.T, policy netguard.Policy, chat bool) *harness {
	t.Helper()
	h := &harness{f: generatetest.New(t), ws: t.TempDir(), tools: map[string]tools.Tool{}, att: &attached{chat: chat}}
	cfg := Config{
		Workspace: func(tools.Who) (string, error) { return h.ws, nil },
		Credentials: func(p string) Credentials {
			return Credentials{BaseURL: h.f.BaseURL(p), APIKey: generatetest.Key}
		},
		Attach: h.att,
		Publish: func(_ context.Context, _ tools.Who, rel string) (string, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.links = append(h.links, rel)
			return "http://gateway.test/files/tok/" + filepath.Base(rel), nil
		},
		Network:      func() netguard.Policy { return policy },
		PollInterval: 1, // a nanosecond: the fake answers at once
		MaxBytes:     func(Kind) int64 { return 1 << 20 },
	}
	for _, tl := range Tools(cfg) {
		h.tools[tl.Spec().Name] = tl
	}
	return h
}

// call runs a tool the way the runner does, collecting progress.
func (h *harness) call(t *testing.T, name, args string) (tools.Result, error) {
	t.Helper()
	ctx := tools.WithProgress(t.Context(), func(p tools.Progress) {
		h.mu.Lock()
		h.events = append(h.events, p)
		h.mu.Unlock()
	})
	return h.tools[name].Call(ctx, tools.Call{ID: "c1", Name: name, Args: json.RawMessage(args), Who: tools.Who{AgentID: "main", RunID: "r1"}})
}

// files is the result's files list.
func files(t *testing.T, res tools.Result) []saved {
	t.Helper()
	var out struct {
		Files []saved `json:"files"`
	}
	if err := json.Unmarshal([]byte(res.Text), &out); err != nil {
		t.Fatalf("result %q: %v", res.Text, err)
	}
	return out.Files
}

func (h *harness) read(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.ws, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not say %q", s, sub)
		}
	}
}
