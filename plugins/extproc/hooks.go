package extproc

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// HookTimeout bounds one plugin hook call by default.
const HookTimeout = 2 * time.Second

// Hooks runs the plugins' before_tool and after_tool hooks; it has the
// method set of tools.Hooks so the gateway can chain it with its config
// hooks. Plugins are asked in id order, each once per call when any of
// its hook globs matches the tool. A plugin that is down, errs or times
// out is skipped and logged: a broken plugin never blocks a tool call.
type Hooks struct{ m *Manager }

var _ tools.Hooks = Hooks{}

// wants reports whether any of hs is at point on for tool.
func wants(hs []HookDef, on, tool string) bool {
	for _, h := range hs {
		if h.On == on && policy.Match(h.Tool, tool) {
			return true
		}
	}
	return false
}

// BeforeTool lets each matching plugin allow, block or rewrite the call.
// A rewrite is seen by later plugins; the first block wins.
func (h Hooks) BeforeTool(ctx context.Context, call tools.Call) (json.RawMessage, error) {
	if h.m == nil {
		return nil, nil
	}
	var out json.RawMessage
	args := call.Args
	for _, p := range h.m.procs() {
		client, hs := p.current()
		if client == nil || !wants(hs, tools.HookBeforeTool, call.Name) {
			continue
		}
		hctx, cancel := context.WithTimeout(ctx, h.m.hookTimeout())
		var res BeforeToolResult
		err := client.call(hctx, MethodBeforeTool, BeforeToolParams{Tool: call.Name, Args: args}, &res)
		cancel()
		if err != nil {
			p.log.Warn("plugin before_tool hook failed; skipped", "tool", call.Name, "err", err)
			continue
		}
		switch res.Action {
		case ActionAllow, "":
		case ActionBlock:
			msg := res.Message
			if msg == "" {
				msg = "blocked by plugin " + p.plug.Manifest.ID
			}
			return nil, errors.New(msg)
		case ActionRewrite:
			if !json.Valid(res.Args) {
				p.log.Warn("plugin before_tool rewrite without valid JSON args; skipped", "tool", call.Name)
				continue
			}
			args, out = res.Args, res.Args
		default:
			p.log.Warn("plugin before_tool answered an unknown action; skipped", "tool", call.Name, "action", res.Action)
		}
	}
	return out, nil
}

// AfterTool lets each matching plugin replace the result's text; later
// plugins see the replacement.
func (h Hooks) AfterTool(ctx context.Context, call tools.Call, res tools.Result) tools.Result {
	if h.m == nil {
		return res
	}
	for _, p := range h.m.procs() {
		client, hs := p.current()
		if client == nil || !wants(hs, tools.HookAfterTool, call.Name) {
			continue
		}
		hctx, cancel := context.WithTimeout(ctx, h.m.hookTimeout())
		var out AfterToolResult
		err := client.call(hctx, MethodAfterTool, AfterToolParams{Tool: call.Name, Args: call.Args, Text: res.Text, IsError: res.IsError}, &out)
		cancel()
		if err != nil {
			p.log.Warn("plugin after_tool hook failed; skipped", "tool", call.Name, "err", err)
			continue
		}
		if out.Text != nil {
			res.Text = *out.Text
		}
	}
	return res
}
