package nodes

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// fakeGateway is a node registry with canned nodes and answers.
type fakeGateway struct {
	nodes   []Node
	answers map[string]string // command -> payload JSON
	fail    error
	calls   []string // "node command params timeout"
}

func (f *fakeGateway) List(ctx context.Context) ([]Node, error) { return f.nodes, nil }

func (f *fakeGateway) Describe(ctx context.Context, id string) (Node, error) {
	for _, n := range f.nodes {
		if n.NodeID == id {
			return n, nil
		}
	}
	return Node{}, fmt.Errorf("unknown nodeId: %s", id)
}

func (f *fakeGateway) Invoke(ctx context.Context, id, command string, params any, timeout time.Duration) (json.RawMessage, error) {
	b, _ := json.Marshal(params)
	f.calls = append(f.calls, fmt.Sprintf("%s %s %s %v", id, command, b, timeout))
	if f.fail != nil {
		return nil, f.fail
	}
	return json.RawMessage(f.answers[command]), nil
}

// pairingGateway adds the optional pairing capability.
type pairingGateway struct{ *fakeGateway }

func (p pairingGateway) PendingPairings(ctx context.Context) (any, error) {
	return map[string]any{"pending": []any{map[string]any{"requestId": "r1"}}}, nil
}

func (p pairingGateway) ResolvePairing(ctx context.Context, id string, approve bool) (any, error) {
	return nil, fmt.Errorf("unknown requestId: %s", id)
}

var (
	mac   = Node{NodeID: "dev-mac", DisplayName: "Office Mac", Platform: "macos", Connected: true, Paired: true, Commands: []string{"system.notify", "camera.snap", "camera.clip", "screen.record", "location.get"}}
	linux = Node{NodeID: "dev-linux", DisplayName: "build", Platform: "linux", Connected: true, Commands: []string{"system.which"}}
	gone  = Node{NodeID: "dev-gone", DisplayName: "old phone", Platform: "ios", Commands: []string{"camera.snap"}, LastSeenAtMs: 5}
)

func TestNodesTool(t *testing.T) {
	jpeg := []byte("\xff\xd8\xffpicture")
	mp4 := []byte("....ftypmp42")
	now := func() time.Time { return time.Date(2026, 11, 30, 13, 4, 5, 0, time.UTC) }
	tests := []struct {
		name  string
		nodes []Node
		args  string
		fail  error
		want  []string // substrings of the text
		err   string
		call  string // the invoke sent, "" for none
		file  []byte // content of the saved media
	}{
		{name: "status", nodes: []Node{mac, gone}, args: `{"action":"status"}`,
			want: []string{`{"nodes":[{"nodeId":"dev-mac","displayName":"Office Mac","platform":"macos","connected":true,"commands":["system.notify"`, `"nodeId":"dev-gone"`, `"connected":false`, `"lastSeenAtMs":5`}},
		{name: "status empty", args: `{"action":"status"}`, want: []string{`{"nodes":[]}`}},
		{name: "describe by name", nodes: []Node{mac, linux}, args: `{"action":"describe","node":"office mac"}`,
			want: []string{`"nodeId":"dev-mac"`, `"paired":true`}},
		{name: "describe by id", nodes: []Node{mac, linux}, args: `{"action":"describe","node":"dev-linux"}`, want: []string{`"platform":"linux"`}},
		{name: "describe unknown", nodes: []Node{mac}, args: `{"action":"describe","node":"nope"}`, err: `no node "nope" (known: Office Mac (dev-mac))`},
		{name: "describe needs a choice", nodes: []Node{mac, linux}, args: `{"action":"describe"}`, err: "2 nodes are connected; name one"},
		{name: "no node connected", nodes: []Node{gone}, args: `{"action":"location_get"}`, err: "no node is connected"},
		{name: "run refused", nodes: []Node{mac}, args: `{"action":"run","node":"dev-mac","command":["echo","hi"],"commandTimeoutMs":1000}`,
			err: "use the exec tool with host=node"},
		{name: "notify", nodes: []Node{mac, gone}, args: `{"action":"notify","title":"Hi","body":"there","priority":"active"}`,
			want: []string{`{"ok":true}`}, call: `dev-mac system.notify {"body":"there","priority":"active","title":"Hi"} 0s`},
		{name: "notify empty", nodes: []Node{mac}, args: `{"action":"notify"}`, err: "needs a title or a body"},
		{name: "not invocable", nodes: []Node{linux}, args: `{"action":"camera_snap"}`, err: "node build (dev-linux) cannot run camera.snap (invocable: system.which)"},
		{name: "offline", nodes: []Node{mac, gone}, args: `{"action":"camera_snap","node":"dev-gone"}`, err: "node old phone (dev-gone) is not connected"},
		{name: "camera snap saved", nodes: []Node{mac}, args: `{"action":"camera_snap","facing":"back","maxWidth":800}`,
			want: []string{`"format":"jpg"`, `"width":1`, `"path":"nodes/2026-11-30/camera_snap-dev-mac-130405-`, "\nMEDIA:"},
			call: `dev-mac camera.snap {"facing":"back","format":"jpg","maxWidth":800} 0s`, file: jpeg},
		{name: "camera clip saved", nodes: []Node{mac}, args: `{"action":"camera_clip","durationMs":999999}`,
			want: []string{`"durationMs":60000`, "\nFILE:"}, call: `dev-mac camera.clip {"durationMs":60000,"format":"mp4"} 1m30s`, file: mp4},
		{name: "screen record", nodes: []Node{mac}, args: `{"action":"screen_record","screenIndex":0,"invokeTimeoutMs":5000}`,
			want: []string{"\nFILE:"}, call: `dev-mac screen.record {"durationMs":10000,"format":"mp4","screenIndex":0} 5s`, file: mp4},
		{name: "location", nodes: []Node{mac}, args: `{"action":"location_get","desiredAccuracy":"precise"}`,
			want: []string{`{"lat":52.5,"lon":13.4}`}, call: `dev-mac location.get {"desiredAccuracy":"precise"} 0s`},
		{name: "node error", nodes: []Node{mac}, args: `{"action":"location_get"}`, fail: errors.New("node not connected"),
			err: "location.get on Office Mac (dev-mac): node not connected"},
		{name: "pending without pairing", args: `{"action":"pending"}`, want: []string{`{"pending":[]}`}},
		{name: "approve needs request", args: `{"action":"approve"}`, err: "approve needs requestId"},
		{name: "reject unknown", args: `{"action":"reject","requestId":"x"}`, err: "unknown requestId: x"},
		{name: "unknown action", args: `{"action":"dance"}`, err: "unknown action"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			g := &fakeGateway{nodes: tc.nodes, fail: tc.fail, answers: map[string]string{
				"system.notify": `{"ok":true}`,
				"camera.snap":   `{"format":"jpg","base64":"` + base64.StdEncoding.EncodeToString(jpeg) + `","width":1,"height":1}`,
				"camera.clip":   `{"format":"mp4","base64":"` + base64.StdEncoding.EncodeToString(mp4) + `","durationMs":60000}`,
				"screen.record": `{"format":"../../x","base64":"` + base64.StdEncoding.EncodeToString(mp4) + `"}`,
				"location.get":  `{"lat":52.5,"lon":13.4}`,
			}}
			tool := Tool(g, func(tools.Who) (string, error) { return ws, nil }, now)
			res, err := tool.Call(context.Background(), tools.Call{ID: "c1", Args: json.RawMessage(tc.args), Who: tools.Who{AgentID: "main"}})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("text %q does not contain %q", res.Text, w)
				}
			}
			var call string
			if len(g.calls) > 0 {
				call = g.calls[0]
			}
			if call != tc.call {
				t.Errorf("invoke %q, want %q", call, tc.call)
			}
			if tc.file != nil {
				_, p, _ := strings.Cut(res.Text, "MEDIA:")
				if p == "" {
					_, p, _ = strings.Cut(res.Text, "FILE:")
				}
				if !strings.HasPrefix(p, filepath.Join(ws, "nodes", "2026-11-30")+string(filepath.Separator)) {
					t.Fatalf("saved at %q, want under the workspace's nodes/2026-11-30", p)
				}
				got, err := os.ReadFile(p)
				if err != nil || string(got) != string(tc.file) {
					t.Errorf("saved %q (%v), want %q", got, err, tc.file)
				}
				if ext := filepath.Ext(p); ext != ".jpg" && ext != ".mp4" {
					t.Errorf("extension %q", ext)
				}
			}
		})
	}
}

func TestNodesToolPairingCapability(t *testing.T) {
	tool := Tool(pairingGateway{&fakeGateway{}}, nil, nil)
	res, err := tool.Call(context.Background(), tools.Call{Args: json.RawMessage(`{"action":"pending"}`)})
	if err != nil || res.Text != `{"pending":[{"requestId":"r1"}]}` {
		t.Errorf("pending: %q %v", res.Text, err)
	}
	_, err = tool.Call(context.Background(), tools.Call{Args: json.RawMessage(`{"action":"approve","requestId":"r9"}`)})
	if err == nil || err.Error() != "unknown requestId: r9" {
		t.Errorf("approve: %v", err)
	}
}

func TestNodesToolMediaLimits(t *testing.T) {
	ws := t.TempDir()
	big := strings.Repeat("A", (MaxMediaBytes/3+2)*4)
	tests := []struct{ name, payload, err string }{
		{"too big", `{"format":"jpg","base64":"` + big + `"}`, "more than 20 MB"},
		{"not base64", `{"format":"jpg","base64":"%%%"}`, "decode base64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &fakeGateway{nodes: []Node{mac}, answers: map[string]string{"camera.snap": tc.payload}}
			tool := Tool(g, func(tools.Who) (string, error) { return ws, nil }, nil)
			_, err := tool.Call(context.Background(), tools.Call{Args: json.RawMessage(`{"action":"camera_snap"}`)})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
	if entries, _ := os.ReadDir(filepath.Join(ws, "nodes")); len(entries) > 0 {
		if files, _ := os.ReadDir(filepath.Join(ws, "nodes", entries[0].Name())); len(files) > 0 {
			t.Errorf("files left behind: %v", files)
		}
	}
}

func TestExtension(t *testing.T) {
	tests := []struct {
		format string
		video  bool
		want   string
	}{
		{"jpg", false, "jpg"}, {"PNG", false, "png"}, {"", false, "jpg"}, {"../../etc", false, "jpg"},
		{"mov", true, "mov"}, {"jpg", true, "mp4"}, {".webm", true, "webm"},
	}
	for _, tc := range tests {
		if got := extension(tc.format, tc.video); got != tc.want {
			t.Errorf("extension(%q, %v) = %q, want %q", tc.format, tc.video, got, tc.want)
		}
	}
}
