package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// modelAllowlistPath is the key whose entries limit model choices. OpenClaw
// reads agents.defaults.models this way for configs without a modelPolicy.
const modelAllowlistPath = "agents.defaults.models"

// ResolveModel turns an alias from agents.defaults.models into its
// "provider/model"; any other ref is returned trimmed. Aliases match without
// regard to case, as OpenClaw's /model does.
func (c *Config) ResolveModel(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	for _, key := range slices.Sorted(maps.Keys(c.Agents.Defaults.Models)) {
		if a := strings.TrimSpace(c.Agents.Defaults.Models[key].Alias); a != "" && strings.EqualFold(a, ref) {
			return key
		}
	}
	return ref
}

// ModelAllowlist is the allowlist the defaults set: agents.defaults.
// modelPolicy.allow when it is written (aliases resolved), else the sorted
// keys of agents.defaults.models; nil or empty when any model may be
// chosen.
func (c *Config) ModelAllowlist() []string {
	allow, _ := c.modelAllowlist("")
	return allow
}

// modelAllowlist is the allowlist for agentID and the key it comes from:
// the agent's modelPolicy.allow, else the defaults' modelPolicy.allow,
// else agents.defaults.models, as OpenClaw reads them.
func (c *Config) modelAllowlist(agentID string) ([]string, string) {
	if agentID != "" {
		if a, ok := c.Agent(agentID); ok && a.ModelPolicy.Allow != nil {
			return c.resolveAllow(a.ModelPolicy.Allow), JoinPath(JoinPath(JoinPath("agents.entries", agentID), "modelPolicy"), "allow")
		}
	}
	if allow := c.Agents.Defaults.ModelPolicy.Allow; allow != nil {
		return c.resolveAllow(allow), "agents.defaults.modelPolicy.allow"
	}
	var out []string
	for key := range c.Agents.Defaults.Models {
		if strings.TrimSpace(key) != "" {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out, modelAllowlistPath
}

// resolveAllow turns the aliases of a policy list into their refs.
func (c *Config) resolveAllow(allow []string) []string {
	out := make([]string, 0, len(allow))
	for _, a := range allow {
		if r := c.ResolveModel(a); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// ModelAllowed reports whether ref ("provider/model", aliases already
// resolved) may be chosen for agentID's sessions: any model when the
// allowlist is empty, else an exact entry or a "provider/*" prefix entry.
func (c *Config) ModelAllowed(agentID, ref string) error {
	allow, path := c.modelAllowlist(agentID)
	if len(allow) == 0 || modelInAllowlist(allow, ref) {
		return nil
	}
	provider, _, _ := strings.Cut(ref, "/")
	return fmt.Errorf("model override %q is not allowed for agent %q by %s (allowed: %s); add %q or %q to %s, or remove/empty it to allow any model",
		ref, agentID, path, strings.Join(allow, ", "), ref, provider+"/*", path)
}

// modelInAllowlist matches ref against exact entries and trailing "/*"
// prefix entries at a "/" boundary ("openrouter/*", "openrouter/meta/*").
func modelInAllowlist(allow []string, ref string) bool {
	if slices.Contains(allow, ref) {
		return true
	}
	for i := strings.Index(ref, "/"); i > 0; {
		if slices.Contains(allow, ref[:i+1]+"*") {
			return true
		}
		next := strings.Index(ref[i+1:], "/")
		if next < 0 {
			break
		}
		i += next + 1
	}
	return false
}

// resolveModelAliases rewrites aliases in every configured model chain to
// their "provider/model", so each reader sees the canonical ref, and
// refuses a bare name that is no alias.
func (d *decoder) resolveModelAliases(c *Config) {
	fix := func(path string, m *ModelRef) {
		refs := m.Chain()
		for i, ref := range refs {
			p := path + ".primary"
			if i > 0 {
				p = indexPath(path+".fallbacks", i-1)
			}
			r := c.ResolveModel(ref)
			if !strings.Contains(r, "/") {
				n, at := d.where(p, path)
				d.errorAtPath(n, at, "%q is not a model reference nor an alias in agents.defaults.models; write \"provider/model\", e.g. \"openai/gpt-4o\"", ref)
			}
			if i == 0 {
				m.Primary = r
			} else {
				m.Fallbacks[i-1] = r
			}
		}
	}
	fix("agents.defaults.model", &c.Agents.Defaults.Model)
	fix("agents.defaults.imageModel", &c.Agents.Defaults.ImageModel.ModelRef)
	fix("agents.defaults.subagents.model", &c.Agents.Defaults.Subagents.Model)
	for id, e := range c.Agents.Entries {
		fix(JoinPath(JoinPath("agents.entries", id), "model"), &e.Model)
		c.Agents.Entries[id] = e
	}
}

// ModelRefusesImages reports whether ref's entry in models.providers
// declares an input list without "image", so images must not be sent to it.
// An undeclared model is not refused: its capabilities are unknown here.
func (c *Config) ModelRefusesImages(ref string) bool {
	m, ok := c.ModelDefinition(ref)
	return ok && len(m.Input) > 0 && !slices.Contains(m.Input, "image")
}

// ModelDefinition returns ref's entry in models.providers, if it has one.
func (c *Config) ModelDefinition(ref string) (ModelDefinition, bool) {
	provider, id, ok := strings.Cut(ref, "/")
	if !ok {
		return ModelDefinition{}, false
	}
	for _, m := range c.Models.Providers[provider].Models {
		if m.ID == id {
			return m, true
		}
	}
	return ModelDefinition{}, false
}
