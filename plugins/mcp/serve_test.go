package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/tools"
)

// fakeSource is a ToolSource with a fixed tool set.
type fakeSource struct{}

var _ ToolSource = fakeSource{}

func (fakeSource) Specs(tools.Who) []tools.Spec {
	return []tools.Spec{
		{Name: "echo", Description: "echoes", Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		{Name: "fail", Description: "fails"},
		{Name: "snap", Description: "a picture", Parameters: json.RawMessage(`{"properties":{}}`)},
	}
}

func (fakeSource) Call(_ context.Context, name string, args json.RawMessage) tools.Result {
	switch name {
	case "echo":
		var in struct{ Text string }
		if err := json.Unmarshal(args, &in); err != nil {
			return tools.Result{Text: err.Error(), IsError: true}
		}
		return tools.Result{Text: in.Text}
	case "fail":
		return tools.Result{Text: "denied by policy", IsError: true}
	case "snap":
		return tools.Result{Images: []tools.Image{{MediaType: "image/png", Data: []byte{1, 2, 3}}}}
	}
	return tools.Result{Text: "unknown tool " + name, IsError: true}
}

func connectClient(t *testing.T, serve func(ctx context.Context) error, ct sdk.Transport) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- serve(ctx) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

func checkServed(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx := t.Context()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if m, _ := tl.InputSchema.(map[string]any); m["type"] != "object" {
			t.Errorf("%s schema = %v", tl.Name, tl.InputSchema)
		}
	}
	slices.Sort(names)
	if want := []string{"echo", "fail", "snap"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := toResult(res); got.Text != "hello" || got.IsError {
		t.Errorf("echo = %+v", got)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "fail"})
	if err != nil {
		t.Fatal(err)
	}
	if got := toResult(res); !got.IsError || got.Text != "denied by policy" {
		t.Errorf("fail = %+v", got)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "snap"})
	if err != nil {
		t.Fatal(err)
	}
	img, ok := res.Content[0].(*sdk.ImageContent)
	if len(res.Content) != 1 || !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, []byte{1, 2, 3}) {
		t.Errorf("snap content = %#v", res.Content)
	}
}

func TestServeInMemory(t *testing.T) {
	st, ct := sdk.NewInMemoryTransports()
	cs := connectClient(t, func(ctx context.Context) error { return Serve(ctx, fakeSource{}, st) }, ct)
	checkServed(t, cs)
}

func TestServeStdio(t *testing.T) {
	// Two pipes stand in for the host's end of stdin and stdout.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cs := connectClient(t, func(ctx context.Context) error {
		defer outW.Close()
		return ServeStdio(ctx, fakeSource{}, inR, outW)
	}, &sdk.IOTransport{Reader: outR, Writer: inW})
	checkServed(t, cs)
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct {
		name, server, tool, want string
	}{
		{"plain", "fs", "read_file", "fs__read_file"},
		{"sanitized", "my.server", "get/thing v2", "my_server__get_thing_v2"},
		{"unicode", "srv", "héllo", "srv__h_llo"},
		{"truncated", "srv", long, "srv__" + long[:64-9-5] + "_" + shortHash("srv__"+long)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toolName(tt.server, tt.tool)
			if got != tt.want {
				t.Errorf("toolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
			}
			if len(got) > maxToolName {
				t.Errorf("%q is %d chars", got, len(got))
			}
		})
	}
	if toolName("s", long+"a") == toolName("s", long+"b") {
		t.Error("truncated names collide")
	}
}

func TestObjectSchema(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, `{"type":"object","properties":{}}`},
		{"object", map[string]any{"type": "object"}, `{"type":"object"}`},
		{"untyped", map[string]any{"properties": map[string]any{}}, `{"properties":{},"type":"object"}`},
		{"string", map[string]any{"type": "string"}, `{"type":"object","properties":{}}`},
		{"not an object", []any{1}, `{"type":"object","properties":{}}`},
		{"raw", json.RawMessage(`{"type":"object","required":["a"]}`), `{"type":"object","required":["a"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(objectSchema(tt.in)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestKeepTool(t *testing.T) {
	tests := []struct {
		name             string
		include, exclude []string
		tool             string
		want             bool
	}{
		{"no filter", nil, nil, "x", true},
		{"included", []string{"read_*"}, nil, "read_file", true},
		{"not included", []string{"read_*"}, nil, "write_file", false},
		{"excluded", nil, []string{"*_file"}, "write_file", false},
		{"exclude wins", []string{"*"}, []string{"rm"}, "rm", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keepTool(tt.tool, tt.include, tt.exclude); got != tt.want {
				t.Errorf("keepTool(%q) = %v, want %v", tt.tool, got, tt.want)
			}
		})
	}
}
