package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Action is what Tool Guard does with a tool call.
type Action string

// Tool Guard actions.
const (
	ActionAllow           Action = "allow"
	ActionDeny            Action = "deny"
	ActionRequireApproval Action = "require_approval"
)

// Rule is one Tool Guard rule.
type Rule struct {
	// Tool is a tool name, a glob ("browser_*", "*") or a core group
	// ("group:fs"), matched like policy entries (case-insensitive, aliases).
	// Plugin ids and group:plugins are not known here; use a glob.
	Tool string `json:"tool"`
	// ArgPattern, if set, is a regular expression (RE2) matched against
	// what the call acts on: for a shell tool (exec and ShellTools) its
	// command line, e.g. `^(ls|cat|grep|find)\s`; for read, write and edit
	// the file path, cleaned ("a/../b" is "b"); for any other tool the
	// arguments as compact JSON. An allow rule matches a shell call only if
	// every command of the line matches on its own and the line holds no
	// substitution, file redirection, variable assignment or word that
	// expands when it runs, and the call sets no environment variable that
	// is not known to be harmless nor asks for elevated rights. A deny or
	// require_approval rule matches if the line, any command in it, a path
	// or the compact JSON matches.
	ArgPattern string `json:"argPattern,omitempty"`
	// Action is allow, deny or require_approval.
	Action Action `json:"action"`
}

// GuardConfig configures a Guard.
type GuardConfig struct {
	// Rules are evaluated in order; the first match decides.
	Rules []Rule `json:"rules,omitempty"`
	// DefaultPolicy applies when no rule matches. Default: require_approval.
	DefaultPolicy Action `json:"defaultPolicy,omitempty"`
	// ShellTools names tools, besides exec, whose "command" argument is a
	// shell command to inspect for dangerous patterns (e.g. an MCP shell).
	ShellTools []string `json:"shellTools,omitempty"`
}

// GuardDecision is the outcome of Guard.Check.
type GuardDecision struct {
	Action Action `json:"action"`
	// Rule is the index of the rule that matched, or -1 for the default.
	Rule int `json:"rule"`
	// Reason says which rule or default decided, and why an allow was raised.
	Reason string `json:"reason"`
	// Danger is the dangerous pattern that raised an allow, if any.
	Danger string `json:"danger,omitempty"`
}

// maxArgPattern bounds a rule's regular expression.
const maxArgPattern = 4096

// Guard evaluates Tool Guard rules. It is immutable and safe for concurrent
// use; the nil Guard requires approval for everything.
type Guard struct {
	rules []guardRule
	def   Action
	shell map[string]bool
}

type guardRule struct {
	Rule
	tool entry
	re   *regexp.Regexp
}

// NewGuard compiles cfg. It reports every invalid rule at once, each error
// naming the rule's index and wrapping ErrInvalidRule.
func NewGuard(cfg GuardConfig) (*Guard, error) {
	g := &Guard{def: ActionRequireApproval, shell: map[string]bool{"exec": true}}
	var errs []error
	if cfg.DefaultPolicy != "" {
		a, err := parseAction(cfg.DefaultPolicy)
		if err != nil {
			errs = append(errs, fmt.Errorf("guard defaultPolicy: %w", err))
		}
		g.def = a
	}
	for _, name := range cfg.ShellTools {
		if n := NormalizeName(name); n != "" {
			g.shell[n] = true
		}
	}
	table := newGroupTable(nil, nil)
	for i, r := range cfg.Rules {
		compiled, err := compileRule(i, r, table)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		g.rules = append(g.rules, compiled)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return g, nil
}

func compileRule(i int, r Rule, table *groupTable) (guardRule, error) {
	fail := func(format string, args ...any) (guardRule, error) {
		return guardRule{}, fmt.Errorf("guard rule %d (tool %q): %s: %w", i, r.Tool, fmt.Sprintf(format, args...), ErrInvalidRule)
	}
	action, err := parseAction(r.Action)
	if err != nil {
		return fail("%v", err)
	}
	tools := compileList([]string{r.Tool}, "", table)
	if len(tools) == 0 {
		return fail("tool is empty")
	}
	out := guardRule{Rule: r, tool: tools[0]}
	out.Action = action
	if r.ArgPattern != "" {
		if len(r.ArgPattern) > maxArgPattern {
			return fail("argPattern is longer than %d bytes", maxArgPattern)
		}
		re, err := regexp.Compile(r.ArgPattern)
		if err != nil {
			return fail("argPattern: %v", err)
		}
		out.re = re
	}
	return out, nil
}

func parseAction(a Action) (Action, error) {
	switch v := Action(strings.ToLower(strings.TrimSpace(string(a)))); v {
	case ActionAllow, ActionDeny, ActionRequireApproval:
		return v, nil
	default:
		return "", fmt.Errorf("unknown action %q (want allow, deny or require_approval)", string(a))
	}
}

// Check decides a call of tool with args (the call's JSON arguments). The
// first rule whose tool and argPattern match decides, else the default
// policy; Rule.ArgPattern says what a pattern is matched against. An allow
// is raised to require_approval when the call looks dangerous
// (DangerousCommand for shell tools, writes under /etc for file tools); a
// deny or require_approval is never lowered.
func (g *Guard) Check(tool string, args json.RawMessage) GuardDecision {
	name := NormalizeName(tool)
	d := GuardDecision{Action: ActionRequireApproval, Rule: -1, Reason: "no guard configured; approval required"}
	shell := map[string]bool{"exec": true}
	if g != nil {
		shell = g.shell
		d = GuardDecision{Action: g.def, Rule: -1, Reason: fmt.Sprintf("no rule matched; default policy %s", g.def)}
		view := newCallView(name, args, shell)
		var notes []string
		for i, r := range g.rules {
			if !r.tool.matches(name) {
				continue
			}
			if r.re != nil {
				ok, note := view.match(r.re, r.Action == ActionAllow)
				if !ok {
					if note != "" {
						notes = append(notes, fmt.Sprintf("rule %d's argPattern %q %s", i, r.ArgPattern, note))
					}
					continue
				}
			}
			how := fmt.Sprintf("tool %q", r.Tool)
			if r.re != nil {
				how += fmt.Sprintf(", argPattern %q", r.ArgPattern)
			}
			d = GuardDecision{Action: r.Action, Rule: i, Reason: fmt.Sprintf("rule %d (%s) matched: %s", i, how, r.Action)}
			break
		}
		if len(notes) > 0 {
			d.Reason += "; " + strings.Join(notes, "; ")
		}
	}
	if d.Action == ActionAllow {
		if danger := dangerousCall(name, args, shell); danger != "" {
			d.Action, d.Danger = ActionRequireApproval, danger
			d.Reason += "; raised to require_approval: " + danger
		}
	}
	return d
}

// compactArgs is the JSON text argPattern sees: compact, or the raw text
// trimmed when it is not valid JSON; "{}" when there are no arguments.
func compactArgs(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, args); err != nil {
		return string(bytes.TrimSpace(args))
	}
	return buf.String()
}

// dangerousCall looks inside a call's arguments for something that must
// not run without approval: a dangerous shell command for exec (and the
// configured shell tools) or nodes run, or a file tool writing under /etc.
// Every value a decoder might pick is looked at (repeated and case-variant
// keys too). Arguments a shell tool cannot be read from count as
// dangerous: nothing could be checked.
func dangerousCall(name string, args json.RawMessage, shell map[string]bool) string {
	members, parsed := argMembers(args)
	switch {
	case shell[name]:
		if !parsed {
			return "arguments are not a JSON object, so the command cannot be checked"
		}
		for _, raw := range values(members, "command", "cmd") {
			cmd, ok := commandText(raw)
			if !ok {
				return "the command is neither a string nor a list of words, so it cannot be checked"
			}
			if danger := DangerousCommand(cmd); danger != "" {
				return danger
			}
		}
		return ""
	case name == "nodes":
		run := false
		for _, raw := range values(members, "action") {
			var action string
			_ = json.Unmarshal(raw, &action)
			run = run || action == "run"
		}
		if !run {
			return ""
		}
		for _, raw := range values(members, "command") {
			if cmd, ok := commandText(raw); ok {
				if danger := DangerousCommand(cmd); danger != "" {
					return danger
				}
			}
		}
	case name == "write" || name == "edit":
		for _, raw := range values(members, "path", "file_path", "filePath", "file") {
			var p string
			if json.Unmarshal(raw, &p) == nil && underEtc(strings.TrimSpace(p)) {
				return name + " writes to " + p
			}
		}
	case name == patchTool:
		for _, raw := range values(members, "input", "patch") {
			var text string
			if json.Unmarshal(raw, &text) == nil {
				if p := patchTouchesEtc(text); p != "" {
					return "apply_patch changes " + p
				}
			}
		}
	}
	return ""
}

// commandText reads a command given as a string or as an argv array.
func commandText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		return strings.Join(argv, " "), true
	}
	return "", false
}

// patchTouchesEtc returns the first path under /etc an apply_patch input
// adds, updates, deletes or moves to.
func patchTouchesEtc(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		for _, prefix := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if p, ok := strings.CutPrefix(line, prefix); ok && underEtc(strings.TrimSpace(p)) {
				return strings.TrimSpace(p)
			}
		}
	}
	return ""
}
