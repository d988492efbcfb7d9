package shell

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
)

type approveAll struct{ asked int }

func (a *approveAll) Approve(ctx context.Context, req tools.ApprovalRequest) (bool, string, error) {
	a.asked++
	return true, "id", nil
}

func setup(t *testing.T, pol execpolicy.Policy, ap tools.Approver) (tools.Tool, tools.Tool, string) {
	t.Helper()
	ws := t.TempDir()
	procs := NewProcesses()
	t.Cleanup(procs.Close)
	cfg := Config{Workspace: func(tools.Who) (string, error) { return ws, nil }, Policy: func(string) execpolicy.Policy { return pol }, Approver: ap, MaxOutput: 64}
	ts := Tools(cfg, procs)
	return ts[0], ts[1], ws
}

func run(t *testing.T, tool tools.Tool, args string) Result {
	t.Helper()
	res, err := tool.Call(context.Background(), tools.Call{Name: tool.Spec().Name, Args: json.RawMessage(args), Who: tools.Who{AgentID: "main"}})
	if err != nil {
		return Result{Status: "error", Note: err.Error()}
	}
	var r Result
	if err := json.Unmarshal([]byte(res.Text), &r); err != nil {
		t.Fatalf("result %q: %v", res.Text, err)
	}
	return r
}

func full() execpolicy.Policy {
	p := execpolicy.DefaultPolicy()
	p.Security, p.Ask = execpolicy.SecurityFull, execpolicy.AskOff
	return p
}

func TestExec(t *testing.T) {
	t.Run("runs and captures", func(t *testing.T) {
		ex, _, _ := setup(t, full(), nil)
		r := run(t, ex, `{"command":"echo hi; echo oops >&2; exit 3"}`)
		if r.Status != "completed" || *r.ExitCode != 3 || r.Stdout != "hi\n" || r.Stderr != "oops\n" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("output is capped and says so", func(t *testing.T) {
		ex, _, _ := setup(t, full(), nil)
		r := run(t, ex, `{"command":"yes x | head -c 1000"}`)
		if !strings.Contains(r.Stdout, "[output capped at 64 of 1000 bytes]") {
			t.Fatalf("%q", r.Stdout)
		}
	})
	t.Run("default policy without an approver denies a miss", func(t *testing.T) {
		ex, _, _ := setup(t, execpolicy.DefaultPolicy(), nil)
		if r := run(t, ex, `{"command":"rm -rf ./x"}`); r.Status != "denied" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("ask goes to a person", func(t *testing.T) {
		ap := &approveAll{}
		ex, _, _ := setup(t, execpolicy.DefaultPolicy(), ap)
		if r := run(t, ex, `{"command":"touch made"}`); r.Status != "completed" || ap.asked != 1 {
			t.Fatalf("%+v asked %d", r, ap.asked)
		}
	})
	t.Run("workdir must stay inside the workspace", func(t *testing.T) {
		ex, _, _ := setup(t, full(), nil)
		if r := run(t, ex, `{"command":"pwd","workdir":"/"}`); r.Status != "error" || !strings.Contains(r.Note, "outside the workspace") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("timeout kills", func(t *testing.T) {
		ex, _, _ := setup(t, full(), nil)
		if r := run(t, ex, `{"command":"sleep 30","timeout":1}`); !r.TimedOut {
			t.Fatalf("%+v", r)
		}
	})
}

func TestBackgroundAndProcess(t *testing.T) {
	ex, proc, _ := setup(t, full(), nil)
	r := run(t, ex, `{"command":"read line; echo got $line; echo second","yieldMs":50}`)
	if r.Status != "running" || r.SessionID == "" {
		t.Fatalf("%+v", r)
	}
	act := func(args string) string {
		res, err := proc.Call(context.Background(), tools.Call{Args: json.RawMessage(args), Who: tools.Who{AgentID: "main"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	if l := act(`{"action":"list"}`); !strings.Contains(l, r.SessionID) || !strings.Contains(l, "running") {
		t.Fatalf("list = %q", l)
	}
	act(`{"action":"write","sessionId":"` + r.SessionID + `","data":"hello\n"}`)
	deadline := time.Now().Add(10 * time.Second)
	var out string // poll returns only what is new, so collect it
	for time.Now().Before(deadline) {
		p := act(`{"action":"poll","sessionId":"` + r.SessionID + `"}`)
		out += p
		if strings.Contains(p, "exited with code 0") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(out, "got hello") {
		t.Fatalf("poll = %q", out)
	}
	if l := act(`{"action":"log","sessionId":"` + r.SessionID + `","limit":1}`); l != "second" {
		t.Fatalf("log = %q", l)
	}
	// Another agent cannot see it.
	res, err := proc.Call(context.Background(), tools.Call{Args: json.RawMessage(`{"action":"poll","sessionId":"` + r.SessionID + `"}`), Who: tools.Who{AgentID: "other"}})
	if err == nil {
		t.Fatalf("another agent polled the session: %+v", res)
	}
	if c := act(`{"action":"clear"}`); c != "cleared 1 finished sessions" {
		t.Fatalf("clear = %q", c)
	}
}
