package policy

import (
	"errors"
	"fmt"
	"strings"
)

// Source says where a tool comes from.
type Source string

// Tool sources. Only core tools count as core for group:openclaw and for
// the allow-list analysis; the others are plugin-owned and belong to
// group:plugins.
const (
	SourceCore    Source = "core"
	SourcePlugin  Source = "plugin"
	SourceChannel Source = "channel"
	SourceMCP     Source = "mcp"
)

// Tool is one tool the runtime could offer the model.
type Tool struct {
	// Name is the tool's name as the model would see it.
	Name string `json:"name"`
	// Source is core (default), plugin, channel or mcp.
	Source Source `json:"source,omitempty"`
	// Owner is the plugin id (plugin tools) or channel id (channel tools);
	// a list entry naming it selects all the owner's tools. MCP tools are
	// owned by the "bundle-mcp" plugin; for them Owner is informational.
	Owner string `json:"owner,omitempty"`
	// Groups are extra group memberships, e.g. "group:mcp-github". A list
	// entry naming the group selects the tool.
	Groups []string `json:"groups,omitempty"`
}

// Sender identifies who sent the message that started the turn, for
// toolsBySender. Channel is the channel the message came in on.
type Sender struct {
	Channel  string `json:"channel,omitempty"`
	ID       string `json:"id,omitempty"`
	E164     string `json:"e164,omitempty"`
	Username string `json:"username,omitempty"`
	Name     string `json:"name,omitempty"`
}

// GroupContext is the channel group (or room, or topic) the turn runs in and
// that channel's group configuration.
type GroupContext struct {
	// Channel is the channel id, e.g. "telegram".
	Channel string `json:"channel"`
	// IDs are the group's ids, most specific first (a topic, then its
	// chat); the "*" entry is tried after them.
	IDs []string `json:"ids"`
	// Path is the config path of Groups, for explanations. Default:
	// channels.<Channel>.groups.
	Path string `json:"path,omitempty"`
	// Groups is channels.<channel>.groups (or an account's groups).
	Groups map[string]GroupTools `json:"groups"`
}

// GroupTools is the tool part of one channels.<ch>.groups.<id> entry.
type GroupTools struct {
	Tools         *Rules           `json:"tools,omitempty"`
	ToolsBySender map[string]Rules `json:"toolsBySender,omitempty"`
}

// Input is everything Resolve needs: the tools on offer, who is asking
// through which model, and the policy layers from the config.
type Input struct {
	// Tools are the available tools, in the order the caller wants them back.
	Tools []Tool `json:"tools"`
	// Groups adds named groups (e.g. one per MCP server) to the built-in
	// ones; a name that exists already gains the members.
	Groups map[string][]string `json:"groups,omitempty"`
	// Provider and Model select tools.byProvider entries: "openai" and
	// "gpt-5.2" match the keys "openai/gpt-5.2" and "openai". Model is the
	// model id without the provider prefix.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Agent is the agent id; its agents.entries.<id>.tools apply.
	Agent string `json:"agent,omitempty"`
	// Sender and Group select toolsBySender and channel group policies. A
	// nil Sender (a run no one sent: cron, heartbeat) matches only "*"
	// toolsBySender entries.
	Sender *Sender       `json:"sender,omitempty"`
	Group  *GroupContext `json:"group,omitempty"`
	// Sandboxed applies the sandbox tool policy.
	Sandboxed bool `json:"sandboxed,omitempty"`
	// SubagentDepth is 0 for a top-level agent, 1 for its children, and so
	// on; above 0 the sub-agent policy applies.
	SubagentDepth int `json:"subagentDepth,omitempty"`
	// LegacyPluginOnlyAllowlist restores the behaviour of OpenClaw builds
	// before mid-2026: an allow list that selects no available core tool is
	// ignored (with a warning) so core tools stay. Default: false, as in
	// 2026.9: the list is applied and may leave nothing (Decision.Empty).
	LegacyPluginOnlyAllowlist bool `json:"legacyPluginOnlyAllowlist,omitempty"`
	// Config holds the policy layers.
	Config Config `json:"config"`
}

// ToolDecision explains the outcome for one tool.
type ToolDecision struct {
	Allowed bool `json:"allowed"`
	// Layer is the key path that decided: for a removed tool the list that
	// removed it ("tools.deny", "tools.profile (coding)",
	// "agents.entries.main.tools.byProvider[openai/gpt-5.2].allow"); for an
	// allowed tool the last allow list that named it, or "" when no allow
	// list applied.
	Layer  string `json:"layer,omitempty"`
	Reason string `json:"reason"`
}

// Decision is the outcome of Resolve.
type Decision struct {
	// Allowed are the names of the tools the model may see, in input order.
	Allowed []string `json:"allowed"`
	// Tools explains every input tool, keyed by its name as given.
	Tools map[string]ToolDecision `json:"tools"`
	// Layers are the layers that applied, in order.
	Layers []string `json:"layers,omitempty"`
	// Warnings are for the operator log (unknown allow-list entries, legacy
	// sender keys, an empty result); each appears once.
	Warnings []string `json:"warnings,omitempty"`
	// Empty means explicit allow lists left no tool: the run must not call
	// the model. Err returns the error to report.
	Empty bool `json:"empty,omitempty"`

	emptyDetail string
}

// Err returns an error wrapping ErrNoCallableTools when d.Empty, else nil.
func (d Decision) Err() error {
	if !d.Empty {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrNoCallableTools, d.emptyDetail)
}

// availTool is an input tool, normalized.
type availTool struct {
	name   string
	norm   string
	source Source
	owners []string // plugin ids a list entry may name to select it
	groups []string
}

// Resolve decides which of in.Tools the model may see. It is pure and safe
// for concurrent use. It fails only on invalid input or config (unknown
// profile, allow with alsoAllow); Decision.Empty is not an error here.
func Resolve(in Input) (Decision, error) {
	tools, err := normalizeTools(in.Tools)
	if err != nil {
		return Decision{}, err
	}
	if err := in.validate(); err != nil {
		return Decision{}, err
	}
	r := &resolver{in: &in, tools: tools, table: newGroupTable(tools, in.Groups)}
	layers := r.build()

	d := Decision{Allowed: []string{}, Tools: make(map[string]ToolDecision, len(tools))}
	for _, l := range layers {
		d.Layers = append(d.Layers, l.name)
	}
	for _, t := range tools {
		td := r.judge(t, layers)
		d.Tools[t.name] = td
		if td.Allowed {
			d.Allowed = append(d.Allowed, t.name)
		}
	}
	if len(d.Allowed) == 0 {
		if sources := explicitSources(layers); len(sources) > 0 {
			d.Empty = true
			d.emptyDetail = strings.Join(sources, "; ")
			r.warnf("%v (%s)", ErrNoCallableTools, d.emptyDetail)
		}
	}
	d.Warnings = r.warnings
	return d, nil
}

// judge runs one tool through the layers; the first layer that removes it
// decides, otherwise the last allow list that named it explains it.
func (r *resolver) judge(t availTool, layers []*layer) ToolDecision {
	var grant *entry
	viaWrite := false
	for _, l := range layers {
		v := l.check(t.norm)
		if v.removed {
			return ToolDecision{Allowed: false, Layer: v.layer, Reason: v.reason}
		}
		if v.grant != nil {
			grant, viaWrite = v.grant, v.viaWrite
		}
	}
	switch {
	case grant != nil && viaWrite:
		why := "allowed because write is allowed (allowing write allows apply_patch)"
		if grant.norm != writeTool {
			why = fmt.Sprintf("allowed because %s allows write (allowing write allows apply_patch)", grant.quoted())
		}
		return ToolDecision{Allowed: true, Layer: grant.from, Reason: why}
	case grant != nil:
		return ToolDecision{Allowed: true, Layer: grant.from, Reason: "allowed by " + grant.quoted()}
	case r.fullProfile != "":
		return ToolDecision{Allowed: true, Layer: r.fullProfile, Reason: `profile "full" restricts nothing and no deny entry matches`}
	default:
		return ToolDecision{Allowed: true, Reason: "no allow list applies and no deny entry matches"}
	}
}

// explicitSources lists the allow lists that restricted tools, for the
// empty-result error.
func explicitSources(layers []*layer) []string {
	var out []string
	for _, l := range layers {
		if !l.hasAllow || len(l.allow) == 0 {
			continue
		}
		var names []string
		for _, e := range l.allow[l.quiet:] {
			names = append(names, e.norm)
		}
		if l.quiet > 0 && len(names) == 0 {
			out = append(out, l.name)
			continue
		}
		out = append(out, l.missAt+": "+strings.Join(names, ", "))
	}
	return out
}

func normalizeTools(in []Tool) ([]availTool, error) {
	out := make([]availTool, 0, len(in))
	seen := map[string]bool{}
	var errs []error
	for i, t := range in {
		norm := NormalizeName(t.Name)
		if norm == "" {
			errs = append(errs, fmt.Errorf("tools[%d]: empty name: %w", i, ErrInvalidInput))
			continue
		}
		if seen[t.Name] {
			errs = append(errs, fmt.Errorf("tools[%d]: %q listed twice: %w", i, t.Name, ErrInvalidInput))
			continue
		}
		seen[t.Name] = true
		a := availTool{name: t.Name, norm: norm, source: t.Source}
		switch t.Source {
		case "", SourceCore:
			a.source = SourceCore
		case SourcePlugin, SourceChannel:
			if o := NormalizeName(t.Owner); o != "" {
				a.owners = []string{o}
			}
		case SourceMCP:
			a.owners = []string{MCPPluginID}
		default:
			errs = append(errs, fmt.Errorf("tools[%d] (%s): unknown source %q (want core, plugin, channel or mcp): %w",
				i, t.Name, t.Source, ErrInvalidInput))
			continue
		}
		for _, g := range t.Groups {
			if g = NormalizeName(g); g != "" {
				a.groups = append(a.groups, g)
			}
		}
		out = append(out, a)
	}
	return out, errors.Join(errs...)
}

// validate checks the config sections this resolution reads.
func (in *Input) validate() error {
	errs := validateTools(in.Config.Tools, "tools")
	if agent, key, ok := in.Config.agent(in.Agent); ok {
		errs = append(errs, validateTools(agent, "agents.entries."+key+".tools")...)
	}
	return errors.Join(errs...)
}
