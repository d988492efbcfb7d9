package extproc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// ToolTimeout bounds one call of a plugin tool.
const ToolTimeout = 60 * time.Second

// maxToolName is the longest tool name the model providers accept.
const maxToolName = 64

// toolName makes "<plugin>__<tool>" in the characters and length every
// provider accepts; a name that had to be cut keeps a hash of the
// original so two long names stay apart.
func toolName(plugin, tool string) string {
	full := plugin + "__" + tool
	var b strings.Builder
	for _, r := range full {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(full))
	return name[:maxToolName-9] + "_" + hex.EncodeToString(sum[:4])
}

// pluginTool is one tool of a plugin, callable through whatever process
// currently runs it.
type pluginTool struct {
	proc   *proc
	remote string
	spec   tools.Spec
}

var _ tools.Tool = (*pluginTool)(nil)

// makeTools turns a plugin's listing into registry tools, dropping
// nameless ones and later duplicates.
func (p *proc) makeTools(defs []ToolDef) []tools.Tool {
	id := p.plug.Manifest.ID
	var out []tools.Tool
	seen := map[string]bool{}
	for _, d := range defs {
		if d.Name == "" {
			p.log.Warn("plugin tool without a name ignored")
			continue
		}
		name := toolName(id, d.Name)
		if seen[strings.ToLower(name)] {
			p.log.Warn("plugin tool name taken; skipped", "tool", d.Name, "as", name)
			continue
		}
		seen[strings.ToLower(name)] = true
		out = append(out, &pluginTool{proc: p, remote: d.Name, spec: tools.Spec{
			Name:        name,
			Description: "[plugin:" + id + "] " + d.Description,
			Parameters:  objectSchema(d.Parameters),
			Tier:        tools.TierExtension,
			Dangerous:   !d.ReadOnly,
			Timeout:     ToolTimeout,
			Source:      tools.SourcePlugin,
			Groups:      []string{"group:plugins", "plugin:" + id},
		}})
	}
	return out
}

// objectSchema keeps a plugin's schema when it is a JSON object and
// otherwise says "any object", since providers reject anything else.
func objectSchema(s json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(s)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return json.RawMessage(t)
	}
	return json.RawMessage(`{"type":"object"}`)
}

func (t *pluginTool) Spec() tools.Spec { return t.spec }

// Call runs tools/call on the live process. A plugin that is down answers
// at once with an error result instead of waiting for the restart, so a
// turn never hangs on it.
func (t *pluginTool) Call(ctx context.Context, call tools.Call) (tools.Result, error) {
	client, _ := t.proc.current()
	if client == nil {
		return t.down(), nil
	}
	args := call.Args
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	var res CallResult
	err := client.call(ctx, MethodToolsCall, CallParams{
		Name: t.remote, Args: args,
		Who: CallWho{AgentID: call.Who.AgentID, SessionKey: call.Who.SessionKey, SenderIsOwner: call.Who.Owner},
	}, &res)
	switch {
	case errors.Is(err, ErrPluginExited):
		return tools.Result{Text: fmt.Sprintf("plugin %q exited during the call; it is restarting, try again later", t.proc.plug.Manifest.ID), IsError: true}, nil
	case err != nil:
		return tools.Result{}, fmt.Errorf("plugin %q tool %s: %w", t.proc.plug.Manifest.ID, t.remote, err)
	}
	return tools.Result{Text: res.Text, IsError: res.IsError}, nil
}

func (t *pluginTool) down() tools.Result {
	st := t.proc.status()
	msg := fmt.Sprintf("plugin %q is not running (%s); it is restarting, try again later", st.ID, st.State)
	if st.State == StateStopped {
		msg = fmt.Sprintf("plugin %q was stopped", st.ID)
	}
	if st.Error != "" {
		msg += ": last error: " + st.Error
	}
	return tools.Result{Text: msg, IsError: true}
}
