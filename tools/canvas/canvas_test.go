package canvas

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// fakeSurface records calls and answers from its fields.
type fakeSurface struct {
	mu    sync.Mutex
	calls []string
	png   []byte
	err   error
}

func (f *fakeSurface) rec(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
	return f.err
}

func (f *fakeSurface) Present(_ context.Context, u string) error  { return f.rec("present " + u) }
func (f *fakeSurface) Hide(context.Context) error                 { return f.rec("hide") }
func (f *fakeSurface) Navigate(_ context.Context, u string) error { return f.rec("navigate " + u) }
func (f *fakeSurface) Eval(_ context.Context, js string) (json.RawMessage, error) {
	return json.RawMessage(`{"ok":1}`), f.rec("eval " + js)
}
func (f *fakeSurface) Snapshot(context.Context) ([]byte, error) { return f.png, f.rec("snapshot") }
func (f *fakeSurface) A2UIPush(_ context.Context, jsonl string) error {
	return f.rec("push " + strings.TrimSpace(jsonl))
}
func (f *fakeSurface) A2UIReset(context.Context) error { return f.rec("reset") }

var _ Surface = (*fakeSurface)(nil)

type fakePicker struct {
	s     *fakeSurface
	nodes []string // nodes asked for
	err   error
}

func (p *fakePicker) Surface(_ context.Context, _ tools.Who, node string) (Surface, error) {
	p.nodes = append(p.nodes, node)
	if p.err != nil {
		return nil, p.err
	}
	return p.s, nil
}

var testPNG = append(append([]byte{}, pngSignature...), "fake image data"...)

func newTestTool(t *testing.T) (tools.Tool, *fakePicker, string) {
	t.Helper()
	ws := t.TempDir()
	p := &fakePicker{s: &fakeSurface{png: testPNG}}
	tt := &tool{p: p, workspace: func(tools.Who) (string, error) { return ws, nil },
		now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }}
	return tt.typed(), p, ws
}

func call(t *testing.T, tl tools.Tool, args string) (string, error) {
	t.Helper()
	res, err := tl.Call(context.Background(), tools.Call{Name: "canvas", Args: json.RawMessage(args)})
	if err == nil && res.IsError {
		err = errors.New(res.Text)
	}
	return res.Text, err
}

func TestToolSpec(t *testing.T) {
	s := Tool(&fakePicker{}, nil).Spec()
	if s.Name != "canvas" || s.Tier != tools.TierExtension || s.Source != tools.SourceCore || len(s.Groups) != 1 || s.Groups[0] != "group:ui" {
		t.Fatalf("spec = %+v", s)
	}
	for _, field := range []string{"javaScript", "jsonl", "text", "url", "node", "a2ui_push"} {
		if !strings.Contains(string(s.Parameters), field) {
			t.Errorf("schema lacks %s", field)
		}
	}
}

func TestToolActions(t *testing.T) {
	cases := []struct {
		name, args, wantCall, wantText string
	}{
		{"present", `{"action":"present"}`, "present ", `"ok":true`},
		{"present url", `{"action":"present","url":" https://a.example/ "}`, "present https://a.example/", `"ok":true`},
		{"hide", `{"action":"hide"}`, "hide", `"ok":true`},
		{"navigate", `{"action":"navigate","url":"https://a.example/x"}`, "navigate https://a.example/x", `"ok":true`},
		{"eval", `{"action":"eval","javaScript":"1+1"}`, "eval 1+1", `{"ok":1}`},
		{"push jsonl", `{"action":"a2ui_push","jsonl":"\n{\"deleteSurface\":{\"surfaceId\":\"a\"}}\n"}`, `push {"deleteSurface":{"surfaceId":"a"}}`, `"ok":true`},
		{"push text", `{"action":"a2ui_push","text":"Hello from A2UI"}`, "push ", `"ok":true`},
		{"reset", `{"action":"a2ui_reset","node":" phone "}`, "reset", `"ok":true`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tl, p, _ := newTestTool(t)
			text, err := call(t, tl, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text, tc.wantText) {
				t.Errorf("text = %s", text)
			}
			if len(p.s.calls) != 1 || !strings.HasPrefix(p.s.calls[0], tc.wantCall) {
				t.Fatalf("calls = %q, want %q", p.s.calls, tc.wantCall)
			}
		})
	}
	t.Run("text form is valid v0.8", func(t *testing.T) {
		tl, p, _ := newTestTool(t)
		if _, err := call(t, tl, `{"action":"a2ui_push","text":"Hello from A2UI"}`); err != nil {
			t.Fatal(err)
		}
		msgs, err := ParseJSONL(strings.TrimPrefix(p.s.calls[0], "push "))
		if err != nil || len(msgs) != 2 || !strings.Contains(p.s.calls[0], "Hello from A2UI") {
			t.Fatalf("pushed %q: %v", p.s.calls[0], err)
		}
	})
	t.Run("node passed to picker", func(t *testing.T) {
		tl, p, _ := newTestTool(t)
		call(t, tl, `{"action":"hide","node":" phone "}`)
		if len(p.nodes) != 1 || p.nodes[0] != "phone" {
			t.Fatalf("nodes = %q", p.nodes)
		}
	})
}

func TestToolSnapshot(t *testing.T) {
	tl, _, ws := newTestTool(t)
	for i, want := range []string{"snap-1.png", "snap-2.png"} {
		text, err := call(t, tl, `{"action":"snapshot"}`)
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.Join("canvas", "2026-11-30", want)
		if !strings.Contains(text, "\nMEDIA:"+filepath.Join(ws, rel)) || !strings.Contains(text, `"path":"canvas/2026-11-30/`+want+`"`) {
			t.Fatalf("snapshot %d text = %s", i, text)
		}
		b, err := os.ReadFile(filepath.Join(ws, rel))
		if err != nil || string(b) != string(testPNG) {
			t.Fatalf("saved file: %v", err)
		}
	}
}

func TestToolErrors(t *testing.T) {
	cases := []struct {
		name, args, want string
		noPick           bool // the surface must not be picked
	}{
		{"unknown action", `{"action":"draw"}`, `unknown action "draw"`, true},
		{"missing action", `{}`, "missing required action", true},
		{"unknown field", `{"action":"hide","colour":"red"}`, "colour", true},
		{"navigate without url", `{"action":"navigate"}`, "navigate needs url", true},
		{"eval without javaScript", `{"action":"eval","javaScript":"  "}`, "eval needs javaScript", true},
		{"push without input", `{"action":"a2ui_push"}`, "a2ui_push needs jsonl", true},
		{"push both", `{"action":"a2ui_push","jsonl":"{}","text":"x"}`, "jsonl or text, not both", true},
		{"push v0.9", `{"action":"a2ui_push","jsonl":"{\"deleteSurface\":{\"surfaceId\":\"a\"}}\n\n{\"createSurface\":{}}"}`, "jsonl: line 3: createSurface is A2UI v0.9; this canvas takes v0.8", true},
		{"push bad json", `{"action":"a2ui_push","jsonl":"{nope"}`, "jsonl: line 1: invalid JSON", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tl, p, _ := newTestTool(t)
			_, err := call(t, tl, tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.noPick && len(p.nodes) != 0 {
				t.Errorf("picked a surface for a bad call")
			}
		})
	}
}

func TestToolSurfaceErrors(t *testing.T) {
	tl, p, _ := newTestTool(t)
	p.err = errors.New(`no node "tv"`)
	if _, err := call(t, tl, `{"action":"hide","node":"tv"}`); err == nil || !strings.Contains(err.Error(), `no node "tv"`) {
		t.Fatalf("picker error: %v", err)
	}
	p.err = nil
	p.s.err = errors.New("node went away")
	if _, err := call(t, tl, `{"action":"navigate","url":"https://a.example"}`); err == nil || err.Error() != "navigate: node went away" {
		t.Fatalf("surface error: %v", err)
	}
	p.s.err = nil
	p.s.png = []byte("GIF89a")
	if _, err := call(t, tl, `{"action":"snapshot"}`); err == nil || !strings.Contains(err.Error(), "did not return a PNG") {
		t.Fatalf("non-PNG snapshot: %v", err)
	}
	p.s.png = testPNG
	noWS := &tool{p: p, workspace: func(tools.Who) (string, error) { return "", errors.New("agent has no workspace") }, now: time.Now}
	if _, err := call(t, noWS.typed(), `{"action":"snapshot"}`); err == nil || !strings.Contains(err.Error(), "agent has no workspace") {
		t.Fatalf("workspace error: %v", err)
	}
}
