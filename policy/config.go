package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Config is the part of openclaw.json that decides which tools a model sees.
// Field names and JSON keys mirror OpenClaw's, so a config section decodes
// straight into it. A nil list means "not set"; an empty list is set and
// empty (for allow lists that restricts nothing; for sandbox lists it
// replaces the default).
type Config struct {
	Tools  ToolsConfig  `json:"tools"`
	Agents AgentsConfig `json:"agents"`
}

// ToolsConfig is tools (global) and agents.entries.<id>.tools (per agent).
type ToolsConfig struct {
	// Profile is the base allow list: minimal, coding, messaging or full.
	// Default: none (same as full). An agent's profile replaces the global one.
	Profile string `json:"profile,omitempty"`
	// Allow, if non-empty, is an allow list: only matching tools stay.
	Allow []string `json:"allow,omitempty"`
	// AlsoAllow adds entries to the profile's allow list without restricting
	// anything else. It may not be set together with Allow.
	AlsoAllow []string `json:"alsoAllow,omitempty"`
	// Deny removes matching tools; deny always wins.
	Deny []string `json:"deny,omitempty"`
	// ByProvider narrows tools for one provider ("openai") or one model
	// ("openai/gpt-5.2"); the model key wins over the provider key.
	ByProvider map[string]ProviderTools `json:"byProvider,omitempty"`
	// ToolsBySender narrows tools for a sender; keys are channel:<ch>:<id>,
	// id:<id>, e164:<phone>, username:<handle>, name:<display name> or "*".
	// An agent's match replaces the global one.
	ToolsBySender map[string]Rules `json:"toolsBySender,omitempty"`
	// Sandbox holds sandbox.tools, applied when the session is sandboxed.
	// Per field, the agent's list replaces the global one; unset lists use
	// the sandbox defaults.
	Sandbox *SandboxConfig `json:"sandbox,omitempty"`
	// Subagents holds subagents.tools, applied to spawned children
	// (global only; ignored under agents.entries).
	Subagents *SubagentsConfig `json:"subagents,omitempty"`
}

// Rules is an allow/alsoAllow/deny triple: a byProvider entry, a sender
// entry, a channel group's tools, sandbox.tools or subagents.tools.
type Rules struct {
	Allow     []string `json:"allow,omitempty"`
	AlsoAllow []string `json:"alsoAllow,omitempty"`
	Deny      []string `json:"deny,omitempty"`
}

// ProviderTools is one tools.byProvider entry.
type ProviderTools struct {
	// Profile is applied after the main profile and can only narrow it.
	Profile string `json:"profile,omitempty"`
	Rules
}

// SandboxConfig is tools.sandbox.
type SandboxConfig struct {
	Tools *Rules `json:"tools,omitempty"`
}

// SubagentsConfig is tools.subagents.
type SubagentsConfig struct {
	Tools *Rules `json:"tools,omitempty"`
}

// AgentsConfig is agents: the defaults and the keyed roster.
type AgentsConfig struct {
	Defaults AgentDefaults         `json:"defaults"`
	Entries  map[string]AgentEntry `json:"entries,omitempty"`
}

// AgentDefaults is agents.defaults (only what tool policy reads).
type AgentDefaults struct {
	Subagents struct {
		// MaxSpawnDepth is how deep sub-agents may spawn; a child at this
		// depth is a leaf. Default: 1.
		MaxSpawnDepth int `json:"maxSpawnDepth,omitempty"`
	} `json:"subagents"`
}

// AgentEntry is agents.entries.<id> (only what tool policy reads).
type AgentEntry struct {
	Tools ToolsConfig `json:"tools"`
}

// agent returns the entry for id (agent ids are case-insensitive) and the
// key it is stored under.
func (c *Config) agent(id string) (ToolsConfig, string, bool) {
	id = strings.TrimSpace(id)
	if id == "" {
		return ToolsConfig{}, "", false
	}
	if e, ok := c.Agents.Entries[id]; ok {
		return e.Tools, id, true
	}
	keys := sortedKeys(c.Agents.Entries)
	for _, k := range keys {
		if strings.EqualFold(k, id) {
			return c.Agents.Entries[k].Tools, k, true
		}
	}
	return ToolsConfig{}, "", false
}

// Validate reports every problem in the tool policy sections at once, each
// naming its key path: unknown profiles, and allow with alsoAllow in the
// same scope.
func (c *Config) Validate() error {
	errs := validateTools(c.Tools, "tools")
	for _, id := range sortedKeys(c.Agents.Entries) {
		errs = append(errs, validateTools(c.Agents.Entries[id].Tools, "agents.entries."+id+".tools")...)
	}
	return errors.Join(errs...)
}

func validateTools(t ToolsConfig, path string) []error {
	var errs []error
	if err := validateProfile(t.Profile, path+".profile"); err != nil {
		errs = append(errs, err)
	}
	if len(t.Allow) > 0 && len(t.AlsoAllow) > 0 {
		errs = append(errs, fmt.Errorf("%s: allow and alsoAllow cannot both be set (use alsoAllow to add to the profile, allow to restrict)", path))
	}
	for _, key := range sortedKeys(t.ByProvider) {
		p := t.ByProvider[key]
		at := fmt.Sprintf("%s.byProvider[%s]", path, key)
		if err := validateProfile(p.Profile, at+".profile"); err != nil {
			errs = append(errs, err)
		}
		if len(p.Allow) > 0 && len(p.AlsoAllow) > 0 {
			errs = append(errs, fmt.Errorf("%s: allow and alsoAllow cannot both be set", at))
		}
	}
	return errs
}

func validateProfile(name, path string) error {
	if strings.TrimSpace(name) == "" {
		return nil
	}
	if _, ok := profiles[strings.ToLower(strings.TrimSpace(name))]; !ok {
		return fmt.Errorf("%s: unknown profile %q (want one of %s): %w",
			path, name, strings.Join(Profiles(), ", "), ErrUnknownProfile)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
