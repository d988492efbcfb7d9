package shell

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

func TestRunArgvOnNode(t *testing.T) {
	zero := 0
	mac := NodeInfo{ID: "n1", Name: "office-mac", Platform: "darwin"}
	allow := NodePlan{Security: "full", Ask: "off", Outcome: "allow"}
	ask := NodePlan{Security: "allowlist", Ask: "on-miss", Outcome: "ask", Reason: "allowlist miss: rm"}
	ran := NodeRunResult{ExitCode: &zero, Stdout: "Hello\n"}

	tests := []struct {
		name     string
		cmd      NodeArgv
		plan     NodePlan
		approver *decider
		wantErr  string
		wantRun  bool
		check    func(t *testing.T, req NodeRunRequest)
	}{
		{name: "the seed's example", plan: allow, wantRun: true,
			cmd: NodeArgv{Node: "office-mac", Argv: []string{"echo", "Hello"}, Env: map[string]string{"FOO": "bar"},
				CommandTimeout: 12 * time.Second, InvokeTimeout: 45 * time.Second},
			check: func(t *testing.T, req NodeRunRequest) {
				if !slices.Equal(req.Argv, []string{"echo", "Hello"}) || req.Env["FOO"] != "bar" ||
					req.Timeout != 12*time.Second || req.InvokeTimeout != 45*time.Second || req.NeedsScreenRecording {
					t.Fatalf("%+v", req)
				}
			}},
		// An argv word is one argument: no shell reads it on the node.
		{name: "no shell in between", plan: allow, wantRun: true,
			cmd: NodeArgv{Argv: []string{"echo", "$(id); rm -rf ~"}, NeedsScreenRecording: true},
			check: func(t *testing.T, req NodeRunRequest) {
				if len(req.Argv) != 2 || req.Argv[0] != "echo" || req.Argv[1] != "$(id); rm -rf ~" || !req.NeedsScreenRecording {
					t.Fatalf("%+v", req)
				}
			}},
		{name: "empty argv", cmd: NodeArgv{}, wantErr: "non-empty argv"},
		{name: "blank program", cmd: NodeArgv{Argv: []string{" "}}, wantErr: "non-empty argv"},
		{name: "negative timeout", cmd: NodeArgv{Argv: []string{"ls"}, CommandTimeout: -1}, wantErr: "must not be negative"},
		{name: "relative cwd", cmd: NodeArgv{Argv: []string{"ls"}, Cwd: "sub"}, wantErr: "absolute path on the node"},
		// A prompt-injected model cannot slip a loader in through env.
		{name: "PATH refused", cmd: NodeArgv{Argv: []string{"ls"}, Env: map[string]string{"PATH": "/tmp/evil"}}, wantErr: "PATH"},
		{name: "LD_PRELOAD refused", cmd: NodeArgv{Argv: []string{"ls"}, Env: map[string]string{"LD_PRELOAD": "/tmp/x.so"}}, wantErr: "LD_PRELOAD"},
		// The node's verdict stands: ask means a person, and no person
		// means no run.
		{name: "node asks, person denies", plan: ask, approver: &decider{decision: ""},
			cmd: NodeArgv{Argv: []string{"rm", "-rf", "/tmp/x"}}},
		{name: "node asks, person allows", plan: ask, approver: &decider{decision: "allow-always"}, wantRun: true,
			cmd: NodeArgv{Argv: []string{"rm", "-rf", "/tmp/it's"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := &fakeNodes{list: []NodeInfo{mac}, plan: tt.plan, out: ran}
			cfg := Config{Nodes: nodes}
			if tt.approver != nil {
				cfg.Approver = tt.approver
			}
			res, err := cfg.RunArgvOnNode(context.Background(), tools.Call{Name: "nodes", Who: tools.Who{AgentID: "main", SessionKey: "agent:main:main"}}, tt.cmd)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q (%+v)", err, tt.wantErr, res)
				}
				if len(nodes.runs) != 0 {
					t.Fatal("ran after refusing")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(nodes.runs) == 1; got != tt.wantRun {
				t.Fatalf("ran %v, want %v: %s", got, tt.wantRun, res.Text)
			}
			var r Result
			if err := json.Unmarshal([]byte(res.Text), &r); err != nil {
				t.Fatal(err)
			}
			if !tt.wantRun {
				if r.Status != "denied" || !res.IsError {
					t.Fatalf("%+v", r)
				}
				return
			}
			if r.Status != "completed" || r.Node != "n1" || r.Stdout != "Hello\n" {
				t.Fatalf("%+v", r)
			}
			if tt.check != nil {
				tt.check(t, nodes.runs[0].req)
			}
			if tt.approver != nil {
				if len(tt.approver.asked) != 1 || !strings.Contains(string(tt.approver.asked[0].Args), `"argv":["rm","-rf","/tmp/it's"]`) {
					t.Fatalf("approval shows %s", tt.approver.asked[0].Args)
				}
				if nodes.runs[0].decision != "allow-always" {
					t.Fatalf("decision %q", nodes.runs[0].decision)
				}
			}
		})
	}
}

func TestArgvText(t *testing.T) {
	for in, want := range map[string]string{
		"echo\x00Hello":         "echo Hello",
		"ls\x00-la\x00/tmp":     "ls -la /tmp",
		"echo\x00a b":           "echo 'a b'",
		"echo\x00$(id)":         "echo '$(id)'",
		"echo\x00it's":          `echo 'it'\''s'`,
		"echo\x00":              "echo ''",
		"env\x00FOO=bar\x00x:y": "env FOO=bar x:y",
	} {
		if got := argvText(strings.Split(in, "\x00")); got != want {
			t.Errorf("argvText(%q) = %q, want %q", in, got, want)
		}
	}
}
