package nodes

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// runnerGateway is a Gateway with the CommandRunner capability that
// records what run asked for.
type runnerGateway struct {
	Gateway
	got []Command
}

func (r *runnerGateway) RunOnNode(_ context.Context, _ tools.Call, cmd Command) (tools.Result, error) {
	r.got = append(r.got, cmd)
	return tools.Result{Text: `{"status":"completed","exitCode":0,"stdout":"Hello\n","host":"node","node":"dev-mac"}`}, nil
}

func TestRunGoesToTheRunner(t *testing.T) {
	tests := []struct {
		name string
		args string
		want Command
		err  string
	}{
		{name: "the seed's example",
			args: `{"action":"run","node":"office-mac","command":["echo","Hello"],"env":["FOO=bar"],"commandTimeoutMs":12000,"invokeTimeoutMs":45000,"needsScreenRecording":false}`,
			want: Command{Node: "office-mac", Argv: []string{"echo", "Hello"}, Env: map[string]string{"FOO": "bar"}, CommandTimeout: 12 * time.Second, InvokeTimeout: 45 * time.Second}},
		{name: "cwd and screen recording", args: `{"action":"run","command":["ls"],"cwd":"/Users/me","needsScreenRecording":true}`,
			want: Command{Argv: []string{"ls"}, Cwd: "/Users/me", NeedsScreenRecording: true}},
		{name: "value with an equals sign", args: `{"action":"run","command":["env"],"env":["A=b=c"]}`,
			want: Command{Argv: []string{"env"}, Env: map[string]string{"A": "b=c"}}},
		{name: "env entry without =", args: `{"action":"run","command":["env"],"env":["FOO"]}`, err: `env entry "FOO" is not KEY=VAL`},
		{name: "env entry without a key", args: `{"action":"run","command":["env"],"env":["=x"]}`, err: "is not KEY=VAL"},
		{name: "env key with a space", args: `{"action":"run","command":["env"],"env":["A B=x"]}`, err: "is not KEY=VAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &runnerGateway{}
			res, err := Tool(g, nil, nil).Call(context.Background(), tools.Call{Name: "nodes", Args: json.RawMessage(tt.args)})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || len(g.got) != 0 {
					t.Fatalf("err %v, runs %d; want %q and no run", err, len(g.got), tt.err)
				}
				return
			}
			if err != nil || len(g.got) != 1 || !strings.Contains(res.Text, `"stdout":"Hello\n"`) {
				t.Fatalf("%+v %v %d", res, err, len(g.got))
			}
			got := g.got[0]
			if got.Node != tt.want.Node || !slices.Equal(got.Argv, tt.want.Argv) || got.Cwd != tt.want.Cwd ||
				got.CommandTimeout != tt.want.CommandTimeout || got.InvokeTimeout != tt.want.InvokeTimeout ||
				got.NeedsScreenRecording != tt.want.NeedsScreenRecording || len(got.Env) != len(tt.want.Env) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for k, v := range tt.want.Env {
				if got.Env[k] != v {
					t.Fatalf("env %s = %q, want %q", k, got.Env[k], v)
				}
			}
		})
	}
}
