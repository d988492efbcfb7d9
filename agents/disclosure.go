package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/tools"
)

// EnableToolName is the tool that activates an extension-tier tool.
const EnableToolName = "enable_tool"

// disclosure tracks, per conversation (session id), the extension tools
// the model activated with enable_tool. Nothing is persisted: a new
// conversation starts with the default tiering again.
type disclosure struct {
	mu     sync.Mutex
	active map[string]map[string]bool
}

func (d *disclosure) isActive(sessionID, tool string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active[sessionID][strings.ToLower(tool)]
}

func (d *disclosure) activate(sessionID, tool string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.active == nil {
		d.active = map[string]map[string]bool{}
	}
	if d.active[sessionID] == nil {
		d.active[sessionID] = map[string]bool{}
	}
	d.active[sessionID][strings.ToLower(tool)] = true
}

// visible splits the tools the policy allows into what the model gets
// with a full schema and the extension tools it can only activate.
func (r *RegistryTools) visible(ctx context.Context, t *Turn) (full []tools.Spec, dormant []tools.Spec) {
	who := whoOf(t)
	for _, s := range r.Runner.Registry.Specs() {
		if ok, _ := r.Runner.Permitted(ctx, who, s); !ok {
			continue
		}
		if r.legacy() || r.Runner.Settings.Tier(s) != tools.TierExtension || r.disc.isActive(t.SessionID, s.Name) {
			full = append(full, s)
		} else {
			dormant = append(dormant, s)
		}
	}
	return full, dormant
}

// Offer is what the model gets on a turn of this caller: the tools sent
// with their schemas, and the extension tools it sees only as lines of
// enable_tool's directory (enable_tool itself is sent when there are any).
func (r *RegistryTools) Offer(ctx context.Context, t *Turn) (full, dormant []tools.Spec) {
	return r.visible(ctx, t)
}

// enableToolSpec describes enable_tool with the directory of dormant tools.
func enableToolSpec(dormant []tools.Spec) providers.Tool {
	var b strings.Builder
	b.WriteString("Activate one of these extension tools for the rest of this conversation; it becomes callable from your next step:\n")
	for _, s := range dormant {
		fmt.Fprintf(&b, "- %s (%s): %s\n", s.Name, s.Source, firstLine(s.Description))
	}
	return providers.Tool{Name: EnableToolName, Description: b.String(),
		Parameters: json.RawMessage(`{"type":"object","required":["toolName"],"properties":{"toolName":{"type":"string"}}}`)}
}

// enable runs enable_tool: only a dormant tool of this caller's effective
// set can be activated.
func (r *RegistryTools) enable(ctx context.Context, t *Turn, args json.RawMessage) ToolResult {
	var a struct {
		ToolName string `json:"toolName"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.ToolName == "" {
		return ToolResult{Text: "enable_tool needs {\"toolName\": \"...\"}", IsError: true}
	}
	_, dormant := r.visible(ctx, t)
	i := slices.IndexFunc(dormant, func(s tools.Spec) bool { return strings.EqualFold(s.Name, a.ToolName) })
	if i < 0 {
		return ToolResult{Text: fmt.Sprintf("%s is not an extension tool you may activate here", a.ToolName), IsError: true}
	}
	r.disc.activate(t.SessionID, dormant[i].Name)
	return ToolResult{Text: fmt.Sprintf("%s is enabled; you can call it from your next step.", dormant[i].Name)}
}

func (r *RegistryTools) legacy() bool { return r.Legacy != nil && r.Legacy() }
