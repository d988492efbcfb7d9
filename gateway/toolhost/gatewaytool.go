package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
)

// gatewayToolArgs are the gateway tool's arguments.
type gatewayToolArgs struct {
	Action  string `json:"action" jsonschema:"enum=restart,enum=config.get,enum=config.schema,enum=config.apply,enum=config.patch"`
	Raw     string `json:"raw,omitempty" jsonschema:"description=JSON5 config (config.apply) or merge patch (config.patch)"`
	DelayMs int    `json:"delayMs,omitempty" jsonschema:"description=Milliseconds before a restart (default 2000)"`
}

// JSONSchemaExtend keeps the schema's $id the one the tool was first
// published with: it is derived from the Go package, and clients that
// cache schemas by id must not see a new one because the code moved.
func (gatewayToolArgs) JSONSchemaExtend(s *jsonschema.Schema) {
	s.ID = "https://github.com/openclaw-go/openclaw/gateway/gateway-tool-args"
}

// gatewayTool lets the owner's agent read and change the gateway's config
// and restart it (only with commands.restart). It is owner-only: a chat
// stranger's or a write-scoped client's turn neither sees nor runs it,
// since config writes can make the gateway run any command. Writes go
// through the same validation as the config RPCs, and even the owner's
// model waits for a person's approval before a change outside
// toolConfigFreeKeys lands; secrets are never shown.
func (h *Host) gatewayTool() tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "gateway", Description: "Read or change this gateway's config (config.get, config.schema, config.apply, config.patch) or restart it.",
		Source: tools.SourceCore, Groups: []string{"group:openclaw"}, Dangerous: true, OwnerOnly: true, Timeout: 15 * time.Minute,
	}, func(ctx context.Context, c tools.Call, a gatewayToolArgs) (tools.Result, error) {
		if !c.Who.Owner {
			// The runner refuses this already; a second check keeps a
			// caller that skips the runner from writing config.
			return tools.Result{}, errors.New("the gateway tool is for the owner only")
		}
		out, err := h.gatewayAction(ctx, c, a)
		if err != nil {
			return tools.Result{}, err
		}
		if text, ok := out.(string); ok {
			return tools.Result{Text: text}, nil
		}
		b, _ := json.Marshal(out)
		return tools.Result{Text: string(b)}, nil
	})
}

func (h *Host) gatewayAction(ctx context.Context, c tools.Call, a gatewayToolArgs) (any, error) {
	snap := h.live().Snap
	switch a.Action {
	case "config.get":
		return map[string]any{"path": snap.Path, "hash": snap.Hash, "config": config.Redact(snap.Tree)}, nil
	case "config.schema":
		return json.RawMessage(config.Schema()), nil
	case "config.apply":
		if a.Raw == "" {
			return nil, errors.New("config.apply needs raw")
		}
		return h.toolWriteConfig(ctx, c, "config.apply", []byte(a.Raw), nil)
	case "config.patch":
		obj, err := config.ParseObject([]byte(a.Raw))
		if err != nil {
			return nil, fmt.Errorf("raw: %w", err)
		}
		next, err := config.MergePatch(snap.Raw, obj)
		if err != nil {
			return nil, err
		}
		return h.toolWriteConfig(ctx, c, "config.patch", next, config.Redact(obj))
	case "restart":
		if !snap.Config.Commands.Restart {
			return nil, errors.New("restarting is off: set commands.restart to true to allow it")
		}
		delay := time.Duration(a.DelayMs) * time.Millisecond
		if a.DelayMs <= 0 {
			delay = 2 * time.Second
		}
		time.AfterFunc(delay, h.opts.Restart)
		return fmt.Sprintf("restarting in %s", delay), nil
	}
	return nil, fmt.Errorf("unknown action %q", a.Action)
}

// toolConfigFreeKeys are the config keys the owner's model may change
// without a person's approval: which model answers, how the agent
// introduces itself, its heartbeat, and message formatting. Everything
// else can add a command (mcp, plugins, hooks, skills), weaken auth or
// the tool policy (gateway, tools, commands, channels' sender policies),
// move the workspace, or send the conversation elsewhere (models), so it
// waits for approval. Patterns are dotted paths; * is one segment, and a
// pattern covers the keys below it.
var toolConfigFreeKeys = []string{
	"agents.defaults.model", "agents.defaults.imageModel", "agents.defaults.heartbeat",
	"agents.entries.*.model", "agents.entries.*.identity", "agents.entries.*.name", "agents.entries.*.heartbeat",
	"messages", "logging.level", "ui",
}

// configChangesNeedingApproval lists the keys a change from cur to next
// touches outside toolConfigFreeKeys. It compares the whole resolved tree
// as well as the typed config: a key this gateway does not implement yet
// has no effect today but would the day it is implemented, so a model
// must not be able to plant it unasked (a typed-only diff never saw it).
func configChangesNeedingApproval(cur, next *config.Snapshot) []string {
	changed := append(config.Changes(cur.Config, next.Config), config.TreeChanges(cur.Tree, next.Tree)...)
	slices.Sort(changed)
	var out []string
	for _, p := range slices.Compact(changed) {
		if !slices.ContainsFunc(toolConfigFreeKeys, func(pat string) bool { return dottedPrefixMatch(pat, p) }) {
			out = append(out, p)
		}
	}
	return out
}

// dottedPrefixMatch reports whether the dotted path p is pat or lies
// below it, * matching one segment.
func dottedPrefixMatch(pat, p string) bool {
	ps, segs := strings.Split(pat, "."), strings.Split(p, ".")
	if len(segs) < len(ps) {
		return false
	}
	for i, seg := range ps {
		if seg != "*" && !strings.EqualFold(seg, segs[i]) {
			return false
		}
	}
	return true
}

// toolWriteConfig writes a config the model proposed: changes outside
// toolConfigFreeKeys first wait for a person's approval, then the write
// goes through only if the file is still the one the approval was asked
// about. The request names the keys and shows the patch redacted, never
// the whole text: approvers (operator.approvals, or a chat) need not hold
// the config's secrets.
func (h *Host) toolWriteConfig(ctx context.Context, c tools.Call, method string, raw []byte, patch map[string]any) (any, error) {
	cur := h.live().Snap
	raw = h.opts.Config.RestoreRedacted(raw, cur)
	next, err := config.Parse(cur.Path, raw, h.opts.LoadOptions())
	if err != nil {
		return h.opts.Config.WriteConfig(method, raw, cur.Hash, true) // answers with the positioned issues
	}
	if keys := configChangesNeedingApproval(cur, next); len(keys) > 0 {
		approver := h.runner.Approver
		if approver == nil {
			return nil, fmt.Errorf("changing %s needs a person's approval and nobody can approve here", strings.Join(keys, ", "))
		}
		shown := map[string]any{"action": method, "changes": keys}
		if patch != nil {
			shown["patch"] = patch
		}
		args, _ := json.Marshal(shown)
		ok, id, err := approver.Approve(ctx, tools.ApprovalRequest{Tool: "gateway", Args: args, Who: c.Who,
			Reason: "the agent wants to change " + strings.Join(keys, ", ")})
		if err != nil {
			return nil, fmt.Errorf("approval %s: %w", id, err)
		}
		if !ok {
			return nil, fmt.Errorf("changing %s was not approved (approval %s)", strings.Join(keys, ", "), id)
		}
	}
	return h.opts.Config.WriteConfig(method, raw, cur.Hash, true)
}
