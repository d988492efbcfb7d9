package shell

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
)

// setupWith is setup with a whole Config to adjust.
func setupWith(t *testing.T, edit func(*Config)) (tools.Tool, tools.Tool, *Processes) {
	t.Helper()
	ws := t.TempDir()
	procs := NewProcesses()
	t.Cleanup(procs.Close)
	cfg := Config{Workspace: func(tools.Who) (string, error) { return ws, nil }, Policy: func(string) execpolicy.Policy { return full() }, MaxOutput: 4096}
	edit(&cfg)
	ts := Tools(cfg, procs)
	return ts[0], ts[1], procs
}

func runCtx(t *testing.T, ctx context.Context, tool tools.Tool, who tools.Who, args string) Result {
	t.Helper()
	res, err := tool.Call(ctx, tools.Call{Name: tool.Spec().Name, Args: json.RawMessage(args), Who: who})
	if err != nil {
		return Result{Status: "error", Note: err.Error()}
	}
	var r Result
	if err := json.Unmarshal([]byte(res.Text), &r); err != nil {
		t.Fatalf("result %q: %v", res.Text, err)
	}
	return r
}

// TestExecSettings: each tools.exec run setting reaches the run.
func TestExecSettings(t *testing.T) {
	t.Run("timeoutSeconds is the default limit", func(t *testing.T) {
		ex, _, _ := setupWith(t, func(c *Config) {
			c.Defaults = func() Settings { s := DefaultSettings(); s.Timeout = time.Second; return s }
		})
		r := run(t, ex, `{"command":"sleep 30","yieldMs":60000}`)
		if r.Status != "completed" || !r.TimedOut {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("a call's timeoutSeconds still overrides it", func(t *testing.T) {
		ex, _, _ := setupWith(t, func(c *Config) {
			c.Defaults = func() Settings { s := DefaultSettings(); s.Timeout = time.Second; return s }
		})
		r := run(t, ex, `{"command":"sleep 2; echo done","timeoutSeconds":0,"yieldMs":60000}`)
		if r.Status != "completed" || r.TimedOut || r.Stdout != "done\n" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("backgroundMs is the default yield", func(t *testing.T) {
		ex, _, _ := setupWith(t, func(c *Config) {
			c.Defaults = func() Settings { s := DefaultSettings(); s.Yield = 10 * time.Millisecond; return s }
		})
		if r := run(t, ex, `{"command":"sleep 30"}`); r.Status != "running" || r.SessionID == "" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("pathPrepend comes first, for the run and for the policy", func(t *testing.T) {
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "hello-tool"), []byte("#!/bin/sh\necho from prepended\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		var judged []string
		ex, _, _ := setupWith(t, func(c *Config) {
			c.Defaults = func() Settings { s := DefaultSettings(); s.PathPrepend = []string{bin}; return s }
			// allowlist mode with only the prepended tool allowed: it runs
			// only if the policy resolved the name through the new PATH.
			c.Policy = func(string) execpolicy.Policy {
				p := execpolicy.DefaultPolicy()
				p.Ask = execpolicy.AskOff
				p.Allowlist = []execpolicy.Entry{{Pattern: filepath.Join(bin, "*")}}
				return p
			}
			c.EvalSymlinks = func(p string) (string, error) { judged = append(judged, p); return filepath.EvalSymlinks(p) }
		})
		r := run(t, ex, `{"command":"hello-tool"}`)
		if r.Status != "completed" || r.Stdout != "from prepended\n" {
			t.Fatalf("%+v (resolved %q)", r, judged)
		}
		if r := run(t, ex, `{"command":"echo $PATH"}`); !strings.HasPrefix(r.Stdout, bin+string(os.PathListSeparator)) && r.Status != "denied" {
			t.Fatalf("PATH = %q", r.Stdout)
		}
	})
	t.Run("cleanupMs forgets a finished background run", func(t *testing.T) {
		ex, proc, procs := setupWith(t, func(c *Config) {
			c.Defaults = func() Settings { s := DefaultSettings(); s.Keep = 50 * time.Millisecond; return s }
		})
		r := run(t, ex, `{"command":"echo x","background":true}`)
		if !pollUntil(func() bool {
			procs.mu.Lock()
			defer procs.mu.Unlock()
			return procs.procs[r.SessionID] == nil
		}) {
			res, _ := proc.Call(context.Background(), tools.Call{Args: json.RawMessage(`{"action":"list"}`), Who: tools.Who{AgentID: "main"}})
			t.Fatalf("still kept: %s", res.Text)
		}
	})
}

// pollUntil polls cond for up to 10 seconds.
func pollUntil(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

type notices struct {
	mu   sync.Mutex
	text []string
}

func (n *notices) add(_ tools.Who, text string) {
	n.mu.Lock()
	n.text = append(n.text, text)
	n.mu.Unlock()
}
func (n *notices) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.text...)
}

// TestNotifyOnExit: a background run's exit is told to its session when
// notifyOnExit is on, except a quiet success, a run the process tool
// killed, and a sub-agent's run (OpenClaw's rules).
func TestNotifyOnExit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		on      bool
		session string
		command string
		kill    bool
		want    string // "" = no notice
	}{
		{"output is told", true, "agent:main:main", "echo built", false, "Exec finished"},
		{"a failure is told", true, "agent:main:main", "exit 4", false, "exit code 4"},
		{"off tells nothing", false, "agent:main:main", "echo built", false, ""},
		{"a quiet success tells nothing", true, "agent:main:main", "true", false, ""},
		{"a killed run tells nothing", true, "agent:main:main", "sleep 30", true, ""},
		{"a sub-agent is not woken", true, "agent:main:subagent:1234", "echo built", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n notices
			ex, proc, procs := setupWith(t, func(c *Config) {
				c.Defaults = func() Settings { s := DefaultSettings(); s.NotifyOnExit = tc.on; return s }
				c.Notify = n.add
			})
			who := tools.Who{AgentID: "main", SessionKey: tc.session, Owner: true}
			r := runCtx(t, context.Background(), ex, who, `{"command":"`+tc.command+`","background":true}`)
			if tc.kill {
				if _, err := proc.Call(context.Background(), tools.Call{Args: json.RawMessage(`{"action":"kill","sessionId":"` + r.SessionID + `"}`), Who: who}); err != nil {
					t.Fatal(err)
				}
			}
			procs.mu.Lock()
			p := procs.procs[r.SessionID]
			procs.mu.Unlock()
			<-p.noticed
			if tc.want == "" {
				if got := n.all(); len(got) != 0 {
					t.Fatalf("notices %q", got)
				}
				return
			}
			if got := n.all(); len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("notices %q, want one with %q", n.all(), tc.want)
			}
		})
	}
}

// TestElevatedGate: the elevated flag runs only when tools.elevated lets
// the caller use it, and then under the same approvals.
func TestElevatedGate(t *testing.T) {
	for _, allowed := range []bool{false, true} {
		ap := &approveAll{}
		ex, _, _ := setupWith(t, func(c *Config) {
			c.Elevated = func(tools.Who) bool { return allowed }
			c.Policy = func(string) execpolicy.Policy { return execpolicy.DefaultPolicy() }
			c.Approver = ap
		})
		r := run(t, ex, `{"command":"touch x","elevated":true}`)
		switch {
		case !allowed && (r.Status != "error" || !strings.Contains(r.Note, "tools.elevated.enabled")):
			t.Errorf("not allowed: %+v", r)
		case allowed && (r.Status != "completed" || ap.asked != 1):
			t.Errorf("allowed: %+v, asked %d (elevated must not skip the approval)", r, ap.asked)
		}
	}
}

// An exec result is JSON a person reads in the Control UI and a model
// reads in its context: markup in the output stays as written, not
// \u003c escapes (six characters each, and unreadable).
func TestResultKeepsMarkupReadable(t *testing.T) {
	code := 0
	r := Result{Status: "completed", ExitCode: &code, Stdout: "<b>a & b</b>\n"}
	got := r.fit(0)
	if !strings.Contains(got, `"<b>a & b</b>\n"`) || strings.Contains(got, `\u003c`) {
		t.Fatalf("fit = %s", got)
	}
	var back Result
	if err := json.Unmarshal([]byte(got), &back); err != nil || back.Stdout != r.Stdout {
		t.Fatalf("round trip: %v %q", err, back.Stdout)
	}
}
