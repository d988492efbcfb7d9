package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/openclaw-go/openclaw/policy"
)

// Hook points of the declarative hooks.
const (
	HookBeforeTool = "before_tool"
	HookAfterTool  = "after_tool"
	HookOnError    = "on_error"
	HookBeforeLLM  = "before_llm"
	HookAfterLLM   = "after_llm"
)

// HookRule is one declarative hook: at a point, for matching tools, when
// the pattern matches, do the action.
type HookRule struct {
	On      string // before_tool, after_tool, on_error, before_llm
	Tool    string // a name or glob ("*", "sessions_*"); "" = every tool
	Pattern string // regular expression over the arguments (before) or the result (after, on_error)
	// Action: redact (replace matches), block (stop the call, or replace
	// the result), or inject (before_llm: add Text to the system prompt).
	Action      string
	Replacement string // for redact; default "[REDACTED]"
	Message     string // for block: what the model reads
	Text        string // for inject
}

// ConfigHooks runs declarative hook rules; it implements Hooks.
type ConfigHooks struct {
	rules []compiledHook
}

var _ Hooks = (*ConfigHooks)(nil)

type compiledHook struct {
	HookRule
	re *regexp.Regexp
}

// NewConfigHooks compiles rules, reporting every bad one by index.
func NewConfigHooks(rules []HookRule) (*ConfigHooks, error) {
	h := &ConfigHooks{}
	var errs []error
	for i, r := range rules {
		c := compiledHook{HookRule: r}
		switch r.On {
		case HookBeforeTool, HookAfterTool, HookOnError, HookAfterLLM:
			if r.Action != "redact" && r.Action != "block" {
				errs = append(errs, fmt.Errorf("hooks[%d]: action %q is not redact or block for %s", i, r.Action, r.On))
			}
		case HookBeforeLLM:
			if r.Action != "inject" || strings.TrimSpace(r.Text) == "" {
				errs = append(errs, fmt.Errorf("hooks[%d]: before_llm takes action inject with text", i))
			}
		default:
			errs = append(errs, fmt.Errorf("hooks[%d]: on %q is not before_tool, after_tool, on_error, before_llm or after_llm", i, r.On))
		}
		if r.Pattern != "" {
			re, err := regexp.Compile(r.Pattern)
			if err != nil {
				errs = append(errs, fmt.Errorf("hooks[%d]: pattern: %v", i, err))
			}
			c.re = re
		} else if r.Action == "redact" {
			errs = append(errs, fmt.Errorf("hooks[%d]: redact needs a pattern", i))
		}
		if c.Replacement == "" {
			c.Replacement = "[REDACTED]"
		}
		h.rules = append(h.rules, c)
	}
	return h, errors.Join(errs...)
}

func (c *compiledHook) applies(on, tool, text string) bool {
	if c.On != on || (c.Tool != "" && !policy.Match(c.Tool, tool)) {
		return false
	}
	return c.re == nil || c.re.MatchString(text)
}

// BeforeTool redacts arguments (keeping them valid JSON) or blocks.
func (h *ConfigHooks) BeforeTool(ctx context.Context, call Call) (json.RawMessage, error) {
	args := string(call.Args)
	changed := false
	for i := range h.rules {
		r := &h.rules[i]
		if !r.applies(HookBeforeTool, call.Name, args) {
			continue
		}
		if r.Action == "block" {
			msg := r.Message
			if msg == "" {
				msg = "blocked by a before_tool hook"
			}
			return nil, errors.New(msg)
		}
		args = redactJSON(r.re, args, r.Replacement)
		changed = true
	}
	if !changed {
		return nil, nil
	}
	return json.RawMessage(args), nil
}

// AfterTool redacts or replaces the result; on_error rules see errors only.
func (h *ConfigHooks) AfterTool(ctx context.Context, call Call, res Result) Result {
	for i := range h.rules {
		r := &h.rules[i]
		on := HookAfterTool
		if res.IsError && r.On == HookOnError {
			on = HookOnError
		}
		if !r.applies(on, call.Name, res.Text) {
			continue
		}
		if r.Action == "block" {
			msg := r.Message
			if msg == "" {
				msg = "the result was withheld by an " + on + " hook"
			}
			return Result{Text: msg, IsError: true}
		}
		res.Text = r.re.ReplaceAllString(res.Text, r.Replacement)
	}
	return res
}

// Injections are the before_llm texts to add to a system prompt.
func (h *ConfigHooks) Injections() []string {
	var out []string
	for _, r := range h.rules {
		if r.On == HookBeforeLLM {
			out = append(out, r.Text)
		}
	}
	return out
}

// redactJSON replaces matches inside the string values of a JSON document
// so the result stays valid JSON; text that is not JSON is redacted as is.
func redactJSON(re *regexp.Regexp, doc, repl string) string {
	var v any
	if json.Unmarshal([]byte(doc), &v) != nil {
		return re.ReplaceAllString(doc, repl)
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			return re.ReplaceAllString(t, repl)
		case map[string]any:
			for k, e := range t {
				t[k] = walk(e)
			}
		case []any:
			for i, e := range t {
				t[i] = walk(e)
			}
		}
		return x
	}
	b, _ := json.Marshal(walk(v))
	return string(b)
}

// HasAfterLLM reports whether any after_llm rule exists; the agent loop
// then holds a model's answer back until the rules have seen it.
func (h *ConfigHooks) HasAfterLLM() bool {
	for _, r := range h.rules {
		if r.On == HookAfterLLM {
			return true
		}
	}
	return false
}

// AfterLLM applies after_llm rules to a model's answer: redact matches,
// or replace a matching answer with the rule's message.
func (h *ConfigHooks) AfterLLM(text string) string {
	for i := range h.rules {
		r := &h.rules[i]
		if r.On != HookAfterLLM || (r.re != nil && !r.re.MatchString(text)) {
			continue
		}
		if r.Action == "block" {
			if r.Message != "" {
				return r.Message
			}
			return "[the answer was withheld by an after_llm hook]"
		}
		text = r.re.ReplaceAllString(text, r.Replacement)
	}
	return text
}
