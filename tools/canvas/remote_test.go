package canvas

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// remotePicker is a fakePicker that can also reach another gateway.
type remotePicker struct {
	fakePicker
	remote  *fakeSurface
	reached []string // url token node
	done    int
}

func (p *remotePicker) RemoteSurface(_ context.Context, url, token, node string) (Surface, func(), error) {
	p.reached = append(p.reached, url+" "+token+" "+node)
	return p.remote, func() { p.done++ }, nil
}

func TestCanvasOnAnotherGateway(t *testing.T) {
	callAs := func(owner bool, p Picker, args string) (tools.Result, error) {
		return Tool(p, func(tools.Who) (string, error) { return t.TempDir(), nil }).Call(context.Background(), tools.Call{Name: "canvas", Args: json.RawMessage(args), Who: tools.Who{Owner: owner}})
	}
	call := func(p Picker, args string) (tools.Result, error) { return callAs(true, p, args) }
	p := &remotePicker{fakePicker: fakePicker{s: &fakeSurface{}}, remote: &fakeSurface{}}
	if _, err := call(p, `{"action":"present","url":"https://example.com","node":"far-mac","gatewayUrl":"ws://10.0.0.5:18789","gatewayToken":"theirs"}`); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.reached, []string{"ws://10.0.0.5:18789 theirs far-mac"}) || p.done != 1 {
		t.Fatalf("reached %v, released %d", p.reached, p.done)
	}
	if len(p.remote.calls) != 1 || len(p.s.calls) != 0 || len(p.nodes) != 0 {
		t.Fatalf("remote %v, local %v %v", p.remote.calls, p.s.calls, p.nodes)
	}
	// Refused before any surface, local or remote, is touched.
	for _, args := range []string{
		`{"action":"present","gatewayUrl":"ws://attacker.example:1"}`,
		`{"action":"present","gatewayUrl":"https://attacker.example/","gatewayToken":"x"}`,
		`{"action":"present","gatewayToken":"x"}`,
	} {
		p := &remotePicker{fakePicker: fakePicker{s: &fakeSurface{}}, remote: &fakeSurface{}}
		if _, err := call(p, args); err == nil {
			t.Errorf("%s accepted", args)
		}
		if len(p.reached) != 0 || len(p.nodes) != 0 {
			t.Errorf("%s: reached %v, local %v", args, p.reached, p.nodes)
		}
	}
	// A chat stranger's model cannot make the gateway dial an address.
	stranger := &remotePicker{fakePicker: fakePicker{s: &fakeSurface{}}, remote: &fakeSurface{}}
	if _, err := callAs(false, stranger, `{"action":"present","gatewayUrl":"ws://127.0.0.1:6379","gatewayToken":"x"}`); err == nil || !strings.Contains(err.Error(), "owner") || len(stranger.reached) != 0 {
		t.Fatalf("a stranger's override: err %v, reached %v", err, stranger.reached)
	}
	// A picker without the capability refuses; it never shows the
	// override's page on this gateway's canvas.
	local := &fakePicker{s: &fakeSurface{}}
	if _, err := call(local, `{"action":"present","gatewayUrl":"ws://h:1","gatewayToken":"t"}`); err == nil || !strings.Contains(err.Error(), "cannot reach") || len(local.nodes) != 0 {
		t.Fatalf("err %v, local %v", err, local.nodes)
	}
}
