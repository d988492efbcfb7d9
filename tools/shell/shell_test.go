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

// TestExecArguments covers the arguments that shape a run: where it may
// run, what environment it gets, a terminal, and per-call policy that can
// only tighten.
func TestExecArguments(t *testing.T) {
	allowlistOnly := execpolicy.DefaultPolicy()
	allowlistOnly.Security, allowlistOnly.Ask = execpolicy.SecurityAllowlist, execpolicy.AskOff
	tests := []struct {
		name       string
		pol        execpolicy.Policy
		args       string
		wantStatus string
		want       string // in stdout for completed runs, in the note otherwise
	}{
		{"pty gives a terminal", full(), `{"command":"test -t 0 && test -t 1 && echo tty:$TERM","pty":true}`, "completed", "tty:xterm-256color"},
		{"no terminal without pty", full(), `{"command":"test -t 1 || echo pipe"}`, "completed", "pipe"},
		{"pty merges stderr", full(), `{"command":"echo to-err >&2","pty":true}`, "completed", "to-err"},
		{"OPENCLAW_SHELL is set", full(), `{"command":"echo $OPENCLAW_SHELL"}`, "completed", "exec"},
		{"env is passed", full(), `{"command":"echo $GREETING","env":{"GREETING":"hola"}}`, "completed", "hola"},
		{"PATH refused", full(), `{"command":"ls","env":{"PATH":"/tmp"}}`, "error", "PATH may not be set"},
		{"LD_PRELOAD refused", full(), `{"command":"ls","env":{"LD_PRELOAD":"/tmp/x.so"}}`, "error", "LD_PRELOAD may not be set"},
		{"host gateway runs", full(), `{"command":"echo here","host":"gateway"}`, "completed", "here"},
		{"host node is not yet", full(), `{"command":"echo here","host":"node"}`, "error", `host "node"`},
		{"host sandbox refused without one", full(), `{"command":"echo here","host":"sandbox"}`, "error", "this session is not sandboxed"},
		{"unknown host", full(), `{"command":"echo here","host":"moon"}`, "error", "want auto, sandbox, gateway or node"},
		{"elevated refused", full(), `{"command":"echo here","elevated":true}`, "error", "elevated is not available right now"},
		{"security can tighten", full(), `{"command":"echo here","security":"deny"}`, "denied", ""},
		{"security cannot loosen", allowlistOnly, `{"command":"touch made","security":"full"}`, "denied", ""},
		{"ask cannot loosen", execpolicy.DefaultPolicy(), `{"command":"touch made","ask":"off"}`, "denied", ""},
		{"bad security", full(), `{"command":"echo","security":"root"}`, "error", "want deny, allowlist or full"},
		{"timeoutSeconds kills", full(), `{"command":"sleep 30","timeoutSeconds":1}`, "completed", ""},
		{"timeoutSeconds 0 is no limit", full(), `{"command":"echo fine","timeoutSeconds":0}`, "completed", "fine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, _, _ := setup(t, tt.pol, nil)
			r := run(t, ex, tt.args)
			if r.Status != tt.wantStatus {
				t.Fatalf("status %q, want %q: %+v", r.Status, tt.wantStatus, r)
			}
			got := r.Note
			if r.Status == "completed" {
				got = r.Stdout
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("%q lacks %q: %+v", got, tt.want, r)
			}
			if strings.Contains(tt.name, "kills") && !r.TimedOut {
				t.Fatalf("not timed out: %+v", r)
			}
		})
	}
}

// TestPTYInteractive: a program reading from its terminal gets what the
// process tool writes, and its output is kept.
func TestPTYInteractive(t *testing.T) {
	ex, proc, _ := setup(t, full(), nil)
	r := run(t, ex, `{"command":"read -r name; echo hello-$name","pty":true,"yieldMs":0}`)
	if r.Status != "running" {
		t.Fatalf("%+v", r)
	}
	call := func(args string) string {
		res, err := proc.Call(context.Background(), tools.Call{Args: json.RawMessage(args), Who: tools.Who{AgentID: "main"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	call(`{"action":"write","sessionId":"` + r.SessionID + `","data":"ana\n"}`)
	var out string
	for i := 0; i < 2000 && !strings.Contains(out, "exited with code"); i++ {
		out += call(`{"action":"poll","sessionId":"` + r.SessionID + `"}`)
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(out, "hello-ana") {
		t.Fatalf("poll = %q", out)
	}
}

// TestProcessOfAnotherSession: the owner's session moved a shell to the
// background; a chat stranger of the same agent, from their own session
// or (under session.dmScope "main") from the owner's very session, lists,
// reads, writes to, kills, removes and clears it. Writing to its stdin
// would be exec without exec's approval, reading it a leak of the owner's
// output. Every attempt must see nothing, and the shell must be
// untouched; the owner, from any session, still sees it.
func TestProcessOfAnotherSession(t *testing.T) {
	ex, proc, _ := setup(t, full(), nil)
	ownerWho := tools.Who{AgentID: "main", SessionKey: "agent:main:main", Owner: true}
	res, err := ex.Call(context.Background(), tools.Call{Name: "exec", Args: json.RawMessage(`{"command":"echo secret-output; read line; echo got:$line","yieldMs":50}`), Who: ownerWho})
	if err != nil {
		t.Fatal(err)
	}
	var started Result
	if err := json.Unmarshal([]byte(res.Text), &started); err != nil || started.Status != "running" {
		t.Fatalf("background start: %s %v", res.Text, err)
	}
	id := started.SessionID
	act := func(who tools.Who, args string) (string, error) {
		res, err := proc.Call(context.Background(), tools.Call{Name: "process", Args: json.RawMessage(args), Who: who})
		return res.Text, err
	}
	stranger := tools.Who{AgentID: "main", SessionKey: "agent:main:telegram:direct:6666", SenderID: "6666", Channel: "telegram"}
	sharedMain := tools.Who{AgentID: "main", SessionKey: "agent:main:main", SenderID: "6666", Channel: "telegram"}
	for _, who := range []tools.Who{stranger, sharedMain} {
		strangerCannotTouch(t, act, who, id)
	}
	// The owner, even from another session, sees it running and untouched.
	elsewhere := tools.Who{AgentID: "main", SessionKey: "agent:main:telegram:direct:4242", Owner: true}
	if out, err := act(elsewhere, `{"action":"list"}`); err != nil || !strings.Contains(out, id+"  running") {
		t.Fatalf("the owner's list: %q %v", out, err)
	}
	if _, err := act(ownerWho, `{"action":"write","sessionId":"`+id+`","data":"mine\n"}`); err != nil {
		t.Fatal(err)
	}
	var out string
	for i := 0; i < 2000 && !strings.Contains(out, "exited with code"); i++ {
		o, err := act(ownerWho, `{"action":"poll","sessionId":"`+id+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		out += o
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(out, "got:mine") || strings.Contains(out, "pwned") {
		t.Fatalf("the owner's shell read %q", out)
	}
	// A stranger's own background process stays theirs.
	res, err = ex.Call(context.Background(), tools.Call{Name: "exec", Args: json.RawMessage(`{"command":"sleep 5","yieldMs":10}`), Who: stranger})
	if err != nil {
		t.Fatal(err)
	}
	var own Result
	json.Unmarshal([]byte(res.Text), &own)
	if out, err := act(stranger, `{"action":"list"}`); err != nil || !strings.Contains(out, own.SessionID) || strings.Contains(out, id) {
		t.Fatalf("the stranger's list of their own: %q %v", out, err)
	}
	if out, err := act(stranger, `{"action":"kill","sessionId":"`+own.SessionID+`"}`); err != nil || out != "killed" {
		t.Fatalf("the stranger killing their own: %q %v", out, err)
	}
}

// strangerCannotTouch tries every process action on the owner's process
// id as who, and fails on any that worked or showed its output.
func strangerCannotTouch(t *testing.T, act func(tools.Who, string) (string, error), who tools.Who, id string) {
	t.Helper()
	for _, args := range []string{
		`{"action":"poll","sessionId":"` + id + `"}`,
		`{"action":"log","sessionId":"` + id + `"}`,
		`{"action":"write","sessionId":"` + id + `","data":"pwned\n"}`,
		`{"action":"kill","sessionId":"` + id + `"}`,
		`{"action":"remove","sessionId":"` + id + `"}`,
	} {
		if out, err := act(who, args); err == nil || strings.Contains(out, "secret-output") {
			t.Fatalf("%s's %s answered %q, %v", who.SessionKey, args, out, err)
		}
	}
	if out, err := act(who, `{"action":"list"}`); err != nil || strings.Contains(out, id) {
		t.Fatalf("%s's list shows the owner's process: %q %v", who.SessionKey, out, err)
	}
	if out, _ := act(who, `{"action":"clear"}`); out != "cleared 0 finished sessions" {
		t.Fatalf("%s's clear: %q", who.SessionKey, out)
	}
}
