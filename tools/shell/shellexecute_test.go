package shell

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
)

func TestShellExecuteArgs(t *testing.T) {
	n := func(v int) *int { return &v }
	tests := []struct {
		name string
		in   ExecArgs
		want int
	}{
		{"default is 60 s", ExecArgs{}, 60},
		{"asked for less", ExecArgs{TimeoutSeconds: n(10)}, 10},
		{"older name", ExecArgs{Timeout: n(20)}, 20},
		{"no limit is the cap", ExecArgs{TimeoutSeconds: n(0)}, 300},
		{"over the cap", ExecArgs{TimeoutSeconds: n(3600)}, 300},
		{"background is refused", ExecArgs{Background: true}, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shellExecuteArgs(tt.in)
			if got.TimeoutSeconds == nil || *got.TimeoutSeconds != tt.want || got.Timeout != nil {
				t.Fatalf("timeout %v/%v, want %d", got.TimeoutSeconds, got.Timeout, tt.want)
			}
			if got.Background || got.YieldMs == nil || *got.YieldMs <= tt.want*1000 {
				t.Fatalf("background %v yield %v: the call must wait past the timeout", got.Background, got.YieldMs)
			}
		})
	}
}

// callAs runs a tool call through a Runner whose registry has MateClaw's
// alias, as the gateway's tool host sets it up.
func callAs(t *testing.T, pol execpolicy.Policy, name, args string) (tools.Result, *auditRecorder) {
	t.Helper()
	ws := t.TempDir()
	procs := NewProcesses()
	t.Cleanup(procs.Close)
	reg := tools.NewRegistry()
	cfg := Config{Workspace: func(tools.Who) (string, error) { return ws, nil }, Policy: func(string) execpolicy.Policy { return pol }}
	if err := reg.Register(Tools(cfg, procs)...); err != nil {
		t.Fatal(err)
	}
	reg.Alias("ShellExecuteTool", "exec")
	audit := &auditRecorder{}
	runner := &tools.Runner{Registry: reg, Auditor: audit}
	res := runner.Run(context.Background(), tools.Call{Name: name, Args: json.RawMessage(args), Who: tools.Who{AgentID: "main", SessionKey: "agent:main:main", Owner: true}})
	return res, audit
}

func TestShellExecuteTool(t *testing.T) {
	t.Run("MateClaw's result shape, exactly", func(t *testing.T) {
		res, audit := callAs(t, full(), "ShellExecuteTool", `{"command":"echo hi; echo oops >&2; exit 3"}`)
		var got map[string]any
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil {
			t.Fatalf("%q: %v", res.Text, err)
		}
		want := map[string]any{"exitCode": float64(3), "stdout": "hi\n", "stderr": "oops\n", "timedOut": false}
		if len(got) != len(want) {
			t.Fatalf("keys %v, want exactly %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s = %v, want %v (%s)", k, got[k], v, res.Text)
			}
		}
		if !res.IsError {
			t.Fatal("a non-zero exit is an error result")
		}
		if e := audit.entries[0]; e.Tool != "exec" {
			t.Fatalf("audited as %q, want exec", e.Tool)
		}
	})
	t.Run("success", func(t *testing.T) {
		res, _ := callAs(t, full(), "shellexecutetool", `{"command":"printf ok"}`)
		if res.IsError || res.Text != `{"exitCode":0,"stdout":"ok","stderr":"","timedOut":false}` {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("each stream capped at 10,000 bytes", func(t *testing.T) {
		res, _ := callAs(t, full(), "ShellExecuteTool", `{"command":"head -c 30000 /dev/zero | tr \"\\\\000\" x; head -c 2000 /dev/zero | tr \"\\\\000\" y >&2"}`)
		var got shellExecuteResult
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got.Stdout, "[output capped at 10000 of 30000 bytes]") || len(got.Stdout) > 10_100 {
			t.Fatalf("stdout is %d bytes: %q", len(got.Stdout), got.Stdout[len(got.Stdout)-60:])
		}
		if len(got.Stderr) != 2000 {
			t.Fatalf("stderr is %d bytes, want all 2000", len(got.Stderr))
		}
	})
	t.Run("both streams full still fit the runner's cap as JSON", func(t *testing.T) {
		res, _ := callAs(t, full(), "ShellExecuteTool", `{"command":"yes x | head -c 30000; yes y | head -c 30000 >&2"}`)
		var got shellExecuteResult
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil {
			t.Fatalf("not JSON after fitting: %v", err)
		}
		if n := len([]rune(res.Text)); n > tools.DefaultMaxResultChars {
			t.Fatalf("%d characters, over the runner's %d", n, tools.DefaultMaxResultChars)
		}
		if !strings.Contains(got.Stdout+got.Stderr, "output cut to fit the result limit") {
			t.Fatalf("no note of the cut: %q", res.Text[len(res.Text)-120:])
		}
	})
	t.Run("timeout kills and says so", func(t *testing.T) {
		res, _ := callAs(t, full(), "ShellExecuteTool", `{"command":"sleep 30","timeout":1}`)
		var got shellExecuteResult
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil || !got.TimedOut || !res.IsError {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("a background request still waits", func(t *testing.T) {
		res, _ := callAs(t, full(), "ShellExecuteTool", `{"command":"printf done","background":true}`)
		if res.Text != `{"exitCode":0,"stdout":"done","stderr":"","timedOut":false}` {
			t.Fatalf("%+v", res)
		}
	})
	// The other name is no way around exec's policy: a prompt-injected
	// model that tries MateClaw's name meets the same refusal.
	t.Run("the alias meets exec's policy", func(t *testing.T) {
		res, audit := callAs(t, execpolicy.DefaultPolicy(), "ShellExecuteTool", `{"command":"rm -rf ./x"}`)
		if !res.IsError || !strings.Contains(res.Text, "exec policy") {
			t.Fatalf("%+v", res)
		}
		if e := audit.entries[0]; e.Tool != "exec" || e.Decision != "denied" {
			t.Fatalf("audit %+v", e)
		}
	})
	t.Run("exec by its own name keeps exec's shape", func(t *testing.T) {
		res, _ := callAs(t, full(), "exec", `{"command":"printf ok"}`)
		if !strings.Contains(res.Text, `"status":"completed"`) {
			t.Fatalf("%+v", res)
		}
	})
}
