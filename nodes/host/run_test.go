package host

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// newTestHost makes a host in a temporary state dir with the given exec
// security ("" leaves the approvals file absent: OpenClaw's defaults).
func newTestHost(t *testing.T, security, ask string) *Host {
	t.Helper()
	h, err := New(Config{URL: "ws://127.0.0.1:1", StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if security != "" {
		setPolicy(t, h, security, ask)
	}
	return h
}

func setPolicy(t *testing.T, h *Host, security, ask string) {
	t.Helper()
	snap, err := h.approvals.Get()
	if err != nil {
		t.Fatal(err)
	}
	f := execapprovals.File{Version: 1, Defaults: execapprovals.Settings{Security: security, Ask: ask}}
	if _, err := h.approvals.Set(f, snap.Hash); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func ptr[T any](v T) *T { return &v }

func TestCheckRun(t *testing.T) {
	tests := []struct {
		name    string
		p       runParams
		invoke  time.Duration
		wantErr string
		timeout time.Duration
	}{
		{name: "missing command", p: runParams{}, wantErr: "command required"},
		{name: "empty argv0", p: runParams{Command: []string{" ", "x"}}, wantErr: "command[0] is empty"},
		{name: "NUL in argument", p: runParams{Command: []string{"echo", "a\x00b"}}, wantErr: "NUL"},
		{name: "relative cwd", p: runParams{Command: []string{"ls"}, Cwd: "tmp"}, wantErr: "cwd must be an absolute path"},
		{name: "PATH refused", p: runParams{Command: []string{"ls"}, Env: map[string]string{"PATH": "/tmp"}}, wantErr: "PATH may not be set"},
		{name: "lowercase path refused", p: runParams{Command: []string{"ls"}, Env: map[string]string{"Path": "/tmp"}}, wantErr: "may not be set"},
		{name: "LD_PRELOAD refused", p: runParams{Command: []string{"ls"}, Env: map[string]string{"LD_PRELOAD": "/x.so"}}, wantErr: "LD_PRELOAD may not be set"},
		{name: "LD_LIBRARY_PATH refused", p: runParams{Command: []string{"ls"}, Env: map[string]string{"LD_LIBRARY_PATH": "/x"}}, wantErr: "may not be set"},
		{name: "DYLD refused", p: runParams{Command: []string{"ls"}, Env: map[string]string{"DYLD_INSERT_LIBRARIES": "/x"}}, wantErr: "may not be set"},
		{name: "BASH_ENV refused", p: runParams{Command: []string{"bash", "-c", "true"}, Env: map[string]string{"BASH_ENV": "/x"}}, wantErr: "may not be set"},
		{name: "bad env name", p: runParams{Command: []string{"ls"}, Env: map[string]string{"A=B": "x"}}, wantErr: "not a valid variable name"},
		{name: "NUL in env value", p: runParams{Command: []string{"ls"}, Env: map[string]string{"A": "x\x00"}}, wantErr: "NUL"},
		{name: "negative timeout", p: runParams{Command: []string{"ls"}, TimeoutMs: ptr(int64(-1))}, wantErr: "timeoutMs"},
		{name: "default timeout", p: runParams{Command: []string{"ls"}}, timeout: DefaultRunTimeout},
		{name: "own timeout", p: runParams{Command: []string{"ls"}, TimeoutMs: ptr(int64(1500))}, timeout: 1500 * time.Millisecond},
		{name: "invoke timeout is a ceiling", p: runParams{Command: []string{"ls"}, TimeoutMs: ptr(int64(60_000))}, invoke: 2 * time.Second, timeout: 2 * time.Second},
		{name: "safe env accepted", p: runParams{Command: []string{"ls"}, Env: map[string]string{"LANG": "C"}}, timeout: DefaultRunTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, perr := checkRun(tt.p, tt.invoke)
			if tt.wantErr != "" {
				if perr == nil || !strings.Contains(perr.Message, tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", perr, tt.wantErr)
				}
				if perr.Code != protocol.CodeInvalidRequest {
					t.Fatalf("code = %s, want INVALID_REQUEST", perr.Code)
				}
				return
			}
			if perr != nil {
				t.Fatalf("unexpected error %v", perr)
			}
			if r.timeout != tt.timeout {
				t.Fatalf("timeout = %v, want %v", r.timeout, tt.timeout)
			}
			if r.session != "node" {
				t.Fatalf("session = %q, want the default node", r.session)
			}
		})
	}
}

// TestPlanCommandText checks the plan's commandText against the form
// the real OpenClaw gateway demands of a system.run's rawCommand (it
// refuses "/usr/bin/sh" -lc 'echo x' for argv [/bin/sh -lc "echo x"] with
// "rawCommand does not match command").
func TestPlanCommandText(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"/bin/sh", "-lc", "echo from-our-node"}, `/bin/sh -lc "echo from-our-node"`},
		{[]string{"echo", "approved"}, `echo approved`},
		{[]string{"echo", ""}, `echo ""`},
		{[]string{"printf", `say "hi"`, "it's", "$HOME"}, `printf "say \"hi\"" it's $HOME`},
		{[]string{"a\tb", "c\nd", "e\u00a0f", "g\ufeffh", "i\u0085j"}, "\"a\tb\" \"c\nd\" \"e\u00a0f\" \"g\ufeffh\" i\u0085j"},
	}
	for _, tt := range tests {
		if got := planCommandText(tt.argv); got != tt.want {
			t.Errorf("planCommandText(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
	h := newTestHost(t, "full", "off")
	out, perr := h.prepare(context.Background(), mustJSON(t, map[string]any{
		"command": []string{"/bin/sh", "-lc", "echo from-our-node"}, "rawCommand": "echo from-our-node",
		"env": map[string]string{"LANG": "C"}, "sessionKey": "agent:main:main"}), 0)
	if perr != nil {
		t.Fatal(perr)
	}
	var prep struct{ Plan struct{ CommandText string } }
	if err := json.Unmarshal(mustJSON(t, out), &prep); err != nil {
		t.Fatal(err)
	}
	if prep.Plan.CommandText != `/bin/sh -lc "echo from-our-node"` {
		t.Fatalf("plan commandText %q", prep.Plan.CommandText)
	}
}

// TestCommandTextRoundTrip checks that the analysed text yields exactly
// the argv that will run, however odd its words.
func TestCommandTextRoundTrip(t *testing.T) {
	tests := [][]string{
		{"ls", "-la"},
		{"echo", "it's", "$HOME", "`id`", "$(id)", "a b", "", "*", "~", "x;y", "&&"},
		{"FOO=bar", "x"},
		{"if", "then"},
		{"printf", "%s\n", "new\nline"},
	}
	for _, argv := range tests {
		text := commandText(argv)
		a, err := execpolicy.Analyzer{}.Analyze(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if len(a.Commands) != 1 || !slices.Equal(a.Commands[0].Argv, argv) {
			t.Errorf("%q analysed as %+v, want argv %q", text, a.Commands, argv)
		}
		if len(a.Assignments) != 0 || len(a.Substitutions) != 0 || len(a.Unknowable) != 0 {
			t.Errorf("%q: assignments %v, substitutions %v, unknowable %v", text, a.Assignments, a.Substitutions, a.Unknowable)
		}
	}
}

func decodeRun(t *testing.T, v any) runResult {
	t.Helper()
	var r runResult
	if err := json.Unmarshal(mustJSON(t, v), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSystemRunPolicy(t *testing.T) {
	ctx := context.Background()
	echo := map[string]any{"command": []string{"echo", "hi"}}
	t.Run("deny", func(t *testing.T) {
		h := newTestHost(t, "deny", "off")
		_, perr := h.run(ctx, mustJSON(t, echo), 0)
		if perr == nil || perr.Code != protocol.CodeSystemRunDenied || !strings.Contains(perr.Message, "deny") {
			t.Fatalf("err = %v, want SYSTEM_RUN_DENIED", perr)
		}
		if _, perr := h.prepare(ctx, mustJSON(t, echo), 0); perr == nil || perr.Code != protocol.CodeSystemRunDenied {
			t.Fatalf("prepare err = %v, want SYSTEM_RUN_DENIED", perr)
		}
	})
	t.Run("allowlist miss without ask", func(t *testing.T) {
		h := newTestHost(t, "allowlist", "off")
		_, perr := h.run(ctx, mustJSON(t, echo), 0)
		if perr == nil || perr.Code != protocol.CodeSystemRunDenied || !strings.Contains(perr.Message, "allowlist miss") {
			t.Fatalf("err = %v, want an allowlist miss", perr)
		}
	})
	t.Run("full runs", func(t *testing.T) {
		h := newTestHost(t, "full", "off")
		v, perr := h.run(ctx, mustJSON(t, echo), 0)
		if perr != nil {
			t.Fatal(perr)
		}
		r := decodeRun(t, v)
		if !r.Success || r.Stdout != "hi\n" || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("default asks", func(t *testing.T) {
		h := newTestHost(t, "", "")
		_, perr := h.run(ctx, mustJSON(t, echo), 0)
		if perr == nil || perr.Code != protocol.CodeSystemRunDenied || !strings.Contains(perr.Message, "approval required") {
			t.Fatalf("err = %v, want approval required", perr)
		}
	})
	t.Run("shell strings are analysed", func(t *testing.T) {
		h := newTestHost(t, "allowlist", "off")
		_, perr := h.run(ctx, mustJSON(t, map[string]any{"command": []string{"sh", "-c", "wc -l </dev/null"}}), 0)
		if perr == nil || !strings.Contains(perr.Message, "redirection") {
			t.Fatalf("err = %v, want the redirection inside sh -c found", perr)
		}
		_, perr = h.run(ctx, mustJSON(t, map[string]any{"command": []string{"sh", "-c", "wc -l; nosuchprog-x"}}), 0)
		if perr == nil || !strings.Contains(perr.Message, "nosuchprog-x") {
			t.Fatalf("err = %v, want the second command of sh -c found", perr)
		}
	})
	t.Run("safe bin allowed in allowlist mode", func(t *testing.T) {
		h := newTestHost(t, "allowlist", "on-miss")
		if _, err := exec.LookPath("wc"); err != nil {
			t.Skip("no wc")
		}
		v, perr := h.run(ctx, mustJSON(t, map[string]any{"command": []string{"wc", "-l"}}), 0)
		if perr != nil {
			t.Fatal(perr)
		}
		if r := decodeRun(t, v); !r.Success {
			t.Fatalf("result %+v", r)
		}
	})
}

// TestApprovedPlanMatching prepares a plan under ask=always and checks
// that only the exact approved command runs, once.
func TestApprovedPlanMatching(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	other := t.TempDir()
	base := func() map[string]any {
		return map[string]any{"command": []string{"echo", "approved"}, "cwd": dir,
			"env": map[string]string{"GREETING": "hi"}, "agentId": "main", "sessionKey": "agent:main:main"}
	}
	with := func(k string, v any) map[string]any {
		m := base()
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		run     map[string]any
		plan    func(p map[string]any) // edits the forwarded plan
		noPlan  bool                   // send no systemRunPlan
		approve string                 // approvalDecision; "" sends approved:true
		want    string                 // "" = runs
	}{
		{name: "exact match runs", run: base()},
		{name: "match found without forwarded plan", run: base(), noPlan: true},
		{name: "allow-once", run: base(), approve: "allow-once"},
		{name: "argv changed", run: with("command", []string{"echo", "tampered"}), want: "differs from the approved plan"},
		{name: "argv appended", run: with("command", []string{"echo", "approved", "x"}), want: "differs"},
		{name: "cwd changed", run: with("cwd", other), want: "differs"},
		{name: "cwd dropped", run: with("cwd", nil), want: "differs"},
		{name: "env changed", run: with("env", map[string]string{"GREETING": "bye"}), want: "differs"},
		{name: "env added", run: with("env", map[string]string{"GREETING": "hi", "LANG": "C"}), want: "differs"},
		{name: "env dropped", run: with("env", nil), want: "differs"},
		{name: "agent changed", run: with("agentId", "other"), want: "differs"},
		{name: "session changed", run: with("sessionKey", "agent:main:x"), want: "differs"},
		{name: "no plan and changed argv", run: with("command", []string{"echo", "x"}), noPlan: true, want: "no approved plan"},
		{name: "forwarded plan argv tampered", run: base(), plan: func(p map[string]any) { p["argv"] = []string{"echo", "x"} }, want: "forwarded plan differs"},
		{name: "forwarded plan cwd tampered", run: base(), plan: func(p map[string]any) { p["cwd"] = other }, want: "forwarded plan differs"},
		{name: "forwarded plan text tampered", run: base(), plan: func(p map[string]any) { p["commandText"] = "echo x" }, want: "forwarded plan differs"},
		{name: "unknown plan id", run: base(), plan: func(p map[string]any) { p["planId"] = "nope" }, want: "no approved plan"},
		{name: "not approved", run: base(), approve: "deny", want: "approval required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHost(t, "full", "always")
			out, perr := h.prepare(ctx, mustJSON(t, base()), 0)
			if perr != nil {
				t.Fatal(perr)
			}
			var prep struct {
				Plan       map[string]any `json:"plan"`
				ExecPolicy struct{ Security, Ask string }
			}
			if err := json.Unmarshal(mustJSON(t, out), &prep); err != nil {
				t.Fatal(err)
			}
			if prep.ExecPolicy.Security != "full" || prep.ExecPolicy.Ask != "always" {
				t.Fatalf("execPolicy %+v", prep.ExecPolicy)
			}
			if prep.Plan["commandText"] != "echo approved" || prep.Plan["cwd"] != dir {
				t.Fatalf("plan %v", prep.Plan)
			}
			run := tt.run
			if !tt.noPlan {
				if tt.plan != nil {
					tt.plan(prep.Plan)
				}
				run["systemRunPlan"] = prep.Plan
			}
			if tt.approve == "" {
				run["approved"] = true
			} else {
				run["approvalDecision"] = tt.approve
			}
			v, perr := h.run(ctx, mustJSON(t, run), 0)
			if tt.want != "" {
				if perr == nil || perr.Code != protocol.CodeSystemRunDenied || !strings.Contains(perr.Message, tt.want) {
					t.Fatalf("err = %v, want SYSTEM_RUN_DENIED %q", perr, tt.want)
				}
				return
			}
			if perr != nil {
				t.Fatal(perr)
			}
			if r := decodeRun(t, v); !r.Success || r.Stdout != "approved\n" {
				t.Fatalf("result %+v", r)
			}
			// A plan is used once.
			if _, perr := h.run(ctx, mustJSON(t, run), 0); perr == nil || !strings.Contains(perr.Message, "no approved plan") {
				t.Fatalf("second run err = %v, want no approved plan", perr)
			}
		})
	}
}

func TestPlanExpires(t *testing.T) {
	ctx := context.Background()
	h := newTestHost(t, "full", "always")
	now := time.Now()
	h.now = func() time.Time { return now }
	params := map[string]any{"command": []string{"echo", "x"}}
	if _, perr := h.prepare(ctx, mustJSON(t, params), 0); perr != nil {
		t.Fatal(perr)
	}
	now = now.Add(PlanTTL + time.Second)
	params["approved"] = true
	if _, perr := h.run(ctx, mustJSON(t, params), 0); perr == nil || !strings.Contains(perr.Message, "no approved plan") {
		t.Fatalf("err = %v, want the expired plan refused", perr)
	}
}

func TestAllowAlwaysPersists(t *testing.T) {
	ctx := context.Background()
	h := newTestHost(t, "allowlist", "on-miss")
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Skip("no echo binary")
	}
	params := map[string]any{"command": []string{echo, "x"}, "agentId": "main"}
	if _, perr := h.prepare(ctx, mustJSON(t, params), 0); perr != nil {
		t.Fatal(perr)
	}
	params["approvalDecision"] = "allow-always"
	if _, perr := h.run(ctx, mustJSON(t, params), 0); perr != nil {
		t.Fatal(perr)
	}
	// Now allowlisted: it runs without a plan.
	delete(params, "approvalDecision")
	v, perr := h.run(ctx, mustJSON(t, params), 0)
	if perr != nil {
		t.Fatalf("allowlisted run: %v", perr)
	}
	if r := decodeRun(t, v); !r.Success {
		t.Fatalf("result %+v", r)
	}
}

func TestExecuteCapsAndTimeouts(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	sh, _ := exec.LookPath("sh")
	ctx := context.Background()
	t.Run("output capped over both streams", func(t *testing.T) {
		r := execute(ctx, runSpec{path: sh, argv: []string{"sh", "-c", "head -c 150000 /dev/zero; head -c 150000 /dev/zero >&2"},
			timeout: 10 * time.Second})
		if !r.Truncated || len(r.Stdout)+len(r.Stderr) != MaxOutputBytes {
			t.Fatalf("truncated=%v stdout=%d stderr=%d", r.Truncated, len(r.Stdout), len(r.Stderr))
		}
		if !r.Success {
			t.Fatalf("a truncated run still succeeds: %+v", r.Error)
		}
	})
	t.Run("under the cap", func(t *testing.T) {
		r := execute(ctx, runSpec{path: sh, argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, timeout: 10 * time.Second})
		if r.Truncated || r.Stdout != "out\n" || r.Stderr != "err\n" || r.ExitCode == nil || *r.ExitCode != 3 || r.Success {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("timeout kills the group", func(t *testing.T) {
		start := time.Now()
		r := execute(ctx, runSpec{path: sh, argv: []string{"sh", "-c", "sleep 30 & sleep 30; echo never"}, timeout: 200 * time.Millisecond})
		if !r.TimedOut || r.Success || r.Error == nil {
			t.Fatalf("%+v", r)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v: the background sleep kept the run alive", d)
		}
	})
	t.Run("cancel kills", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		r := execute(ctx, runSpec{path: sh, argv: []string{"sh", "-c", "sleep 30"}})
		if r.Success || r.Error == nil || !strings.Contains(*r.Error, "cancelled") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("spawn failure", func(t *testing.T) {
		r := execute(ctx, runSpec{path: filepath.Join(t.TempDir(), "missing"), argv: []string{"missing"}})
		if r.Success || r.Error == nil || !strings.Contains(*r.Error, "spawn failed") || r.ExitCode != nil {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("env and cwd", func(t *testing.T) {
		dir := t.TempDir()
		r := execute(ctx, runSpec{path: sh, argv: []string{"sh", "-c", `printf '%s %s' "$GREETING" "$(pwd)"`}, dir: dir,
			env: environ(map[string]string{"GREETING": "hello"}), timeout: 10 * time.Second})
		real, _ := filepath.EvalSymlinks(dir)
		if r.Stdout != "hello "+dir && r.Stdout != "hello "+real {
			t.Fatalf("stdout %q", r.Stdout)
		}
	})
}

func TestSystemRunTimeoutParam(t *testing.T) {
	h := newTestHost(t, "full", "off")
	v, perr := h.run(context.Background(), mustJSON(t, map[string]any{"command": []string{"sleep", "30"}, "timeoutMs": 200}), 0)
	if perr != nil {
		t.Fatal(perr)
	}
	if r := decodeRun(t, v); !r.TimedOut || r.Success {
		t.Fatalf("%+v", r)
	}
}

func TestSystemRunCwdMissing(t *testing.T) {
	h := newTestHost(t, "full", "off")
	_, perr := h.run(context.Background(), mustJSON(t, map[string]any{"command": []string{"ls"},
		"cwd": filepath.Join(t.TempDir(), "gone")}), 0)
	if perr == nil || perr.Code != protocol.CodeSystemRunDenied || !strings.Contains(perr.Message, "cwd") {
		t.Fatalf("err = %v", perr)
	}
}
