package config

import (
	"cmp"
	"fmt"
	"strings"
)

// BasePath is hooks.path as the gateway serves it: a leading slash added,
// trailing ones dropped, "/hooks" when unset. It is "" for a path that
// would take the whole port ("/"), which CheckHooks refuses.
func (h Hooks) BasePath() string {
	p := strings.TrimSpace(h.Path)
	if p == "" {
		return "/hooks"
	}
	p = "/" + strings.Trim(p, "/")
	if p == "/" {
		return ""
	}
	return p
}

// AgentAllowed reports whether hooks may run agentID: allowedAgentIds
// unset or holding "*" allows every agent, an empty list none.
func (h Hooks) AgentAllowed(agentID string) bool {
	if h.AllowedAgentIDs == nil {
		return true
	}
	for _, id := range h.AllowedAgentIDs {
		id = strings.TrimSpace(id)
		if id == "*" || strings.EqualFold(id, agentID) {
			return true
		}
	}
	return false
}

// SessionKeyAllowed reports whether key starts with one of
// allowedSessionKeyPrefixes (compared without case); a list with no
// nonblank entry restricts nothing.
func (h Hooks) SessionKeyAllowed(key string) bool {
	restricted := false
	for _, p := range h.AllowedSessionKeyPrefixes {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		restricted = true
		if len(key) >= len(p) && strings.EqualFold(key[:len(p)], p) {
			return true
		}
	}
	return !restricted
}

// PrefixesRestrict reports whether allowedSessionKeyPrefixes holds a
// nonblank entry.
func (h Hooks) PrefixesRestrict() bool { return !h.SessionKeyAllowed("\x00") }

// IsTemplate reports whether s uses a {{...}} placeholder.
func IsTemplate(s string) bool { return strings.Contains(s, "{{") }

// DeliverOn reports hooks.mappings[].deliver (default true).
func (m HookMapping) DeliverOn() bool { return boolOr(m.Deliver, true) }

// HasTransform reports whether the mapping names a transform module.
func (m HookMapping) HasTransform() bool {
	return strings.TrimSpace(m.Transform.Module) != "" || strings.TrimSpace(m.Transform.Export) != ""
}

// HookPresets are the built-in mappings hooks.presets may name.
var HookPresets = map[string][]HookMapping{
	"gmail": {{
		ID: "gmail", Match: HookMatch{Path: "gmail"}, Action: "agent", WakeMode: "now", Name: "Gmail",
		SessionKey: "hook:gmail:{{messages[0].id}}", ForEach: "messages",
		MessageTemplate: "New email from {{messages[0].from}}\nSubject: {{messages[0].subject}}\n{{messages[0].snippet}}\n{{messages[0].body}}",
	}},
}

// HookMappings are the mappings in the order they are tried: hooks.mappings,
// then the presets'.
func (h Hooks) HookMappings() []HookMapping {
	out := append([]HookMapping(nil), h.Mappings...)
	for _, p := range h.Presets {
		out = append(out, HookPresets[strings.ToLower(strings.TrimSpace(p))]...)
	}
	return out
}

// CheckHooks refuses a hooks section the gateway cannot serve safely, as
// OpenClaw refuses it at start: enabled without a token, a path of "/",
// session-key rules no request could pass, or a persistent mapping with
// no fixed session. A section that is off is not checked.
func CheckHooks(h Hooks) error {
	if !h.Enabled {
		return nil
	}
	if strings.TrimSpace(h.Token) == "" {
		return fmt.Errorf("hooks.enabled requires hooks.token")
	}
	if h.BasePath() == "" {
		return fmt.Errorf(`hooks.path may not be "/": use a sub-path of its own such as "/hooks"`)
	}
	if h.DefaultSessionKey != "" && !h.SessionKeyAllowed(h.DefaultSessionKey) {
		return fmt.Errorf("hooks.defaultSessionKey %q does not start with any of hooks.allowedSessionKeyPrefixes", h.DefaultSessionKey)
	}
	if h.DefaultSessionKey == "" && !h.SessionKeyAllowed("hook:") {
		return fmt.Errorf(`hooks.allowedSessionKeyPrefixes must admit "hook:" (the generated session keys) unless hooks.defaultSessionKey is set`)
	}
	for i, m := range h.HookMappings() {
		where := fmt.Sprintf("hooks.mappings[%d]", i)
		if i >= len(h.Mappings) {
			where = "hooks.presets " + m.ID
			if shadowed(h.Mappings, m) {
				continue // an earlier mapping takes all of its requests
			}
		}
		if m.SessionMode == "persistent" && m.SessionKey == "" && h.DefaultSessionKey == "" {
			return fmt.Errorf(`%s: sessionMode "persistent" needs a sessionKey or hooks.defaultSessionKey`, where)
		}
		if IsTemplate(m.SessionKey) && !h.PrefixesRestrict() {
			return fmt.Errorf("%s: a templated sessionKey (%q) needs hooks.allowedSessionKeyPrefixes", where, m.SessionKey)
		}
	}
	return nil
}

// shadowed reports whether a mapping without a source match on the same
// path comes before preset p, so that p is never reached.
func shadowed(earlier []HookMapping, p HookMapping) bool {
	for _, m := range earlier {
		if m.Match.Source == "" && (m.Match.Path == "" || strings.Trim(m.Match.Path, "/") == strings.Trim(p.Match.Path, "/")) {
			return true
		}
	}
	return false
}

// validateHooks warns about hooks keys that load but do nothing here.
func (d *decoder) validateHooks(h *Hooks) {
	for i, m := range h.Mappings {
		if m.HasTransform() {
			path := indexPath("hooks.mappings", i) + ".transform"
			n, p := d.where(path)
			d.warnAtPath(n, p, "is not in effect here: there is no JavaScript runtime to run the module, so requests this mapping takes are refused with 500")
		}
	}
	for i, p := range h.Presets {
		if _, ok := HookPresets[strings.ToLower(strings.TrimSpace(p))]; !ok {
			path := indexPath("hooks.presets", i)
			n, _ := d.where(path, "hooks.presets")
			d.warnAtPath(n, path, "unknown preset %q adds no mapping; the presets are: gmail", p)
		}
	}
}

// InternalHookOn reports whether the internal hook name runs.
func (h Hooks) InternalHookOn(name string) bool {
	if h.Internal.Enabled != nil && !*h.Internal.Enabled {
		return false
	}
	return h.Internal.Entries[name].Enabled
}

// validateInternalHooks warns of the internal hooks that do not run here.
func (d *decoder) validateInternalHooks(c *Config) {
	why := map[string]string{
		"bootstrap-extra-files": "the workspace's own bootstrap files are the only ones read",
	}
	for name, e := range c.Hooks.Internal.Entries {
		base := "hooks.internal.entries." + name
		switch name {
		case "session-memory", "command-logger", "compaction-notifier", "boot-md":
		default:
			if e.Enabled {
				n, p := d.where(base)
				d.warnAtPath(n, p, "is not in effect here: %s", cmp.Or(why[name], "there is no such bundled hook here"))
			}
		}
		if len(e.Env) > 0 {
			n, p := d.where(base + ".env")
			d.warnAtPath(n, p, "is not in effect here: no internal hook here runs a program")
		}
	}
}
