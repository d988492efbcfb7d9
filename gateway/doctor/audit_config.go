package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// envMarker stands for every environment variable while the config is
// read again for auditPlaintextSecrets: a secret whose value holds it came
// from ${VAR}, one without it was written in the file.
const envMarker = "\x00openclaw-env\x00"

// writtenSecrets lists the config paths whose secret is written in the
// file (or an included one) as plain text, not ${VAR} or a SecretRef.
func (a *audit) writtenSecrets() []string {
	plain, _, _ := a.secretFields()
	return plain
}

// secretFields sorts the config's secret fields as written in the file:
// plain text, or references (${VAR} or a SecretRef object), of which how
// many are exec SecretRefs.
func (a *audit) secretFields() (plain []string, refs, execRefs int) {
	s := a.in.Snap
	if s == nil || !s.Exists {
		return nil, 0, 0
	}
	snap, _ := config.Parse(s.Path, s.Raw, config.LoadOptions{
		Getenv:       func(string) string { return envMarker },
		IncludeRoots: a.in.Paths.IncludeRoots,
	})
	if snap == nil || snap.Tree == nil {
		return nil, 0, 0
	}
	walkTree(snap.Tree, "", func(path, key string, v any) {
		parent := path[:max(0, len(path)-len(key)-1)]
		if !config.IsSecretAt(parent, key) {
			return
		}
		switch t := v.(type) {
		case string:
			switch {
			case strings.Contains(t, envMarker):
				refs++
			case strings.TrimSpace(t) != "":
				plain = append(plain, path)
			}
		case map[string]any:
			if src, ok := t["source"].(string); ok {
				refs++
				if src == "exec" {
					execRefs++
				}
			}
		}
	})
	return plain, refs, execRefs
}

// auditPlaintextSecrets: secrets written in the config where a ${VAR} or
// a SecretRef would keep them out of the file (and out of reach of any
// tool or agent that can read it).
func auditPlaintextSecrets(a *audit) []AuditFinding {
	var out []AuditFinding
	paths := a.writtenSecrets()
	var rest []string
	for _, p := range paths {
		switch p {
		case "gateway.auth.password":
			out = append(out, AuditFinding{CheckID: "config.secrets.gateway_password_in_config", Severity: SeverityWarn,
				Title: "Gateway password is stored in the config", Detail: "gateway.auth.password is written in the config file.",
				Remediation: "Use \"${OPENCLAW_GATEWAY_PASSWORD}\" or a SecretRef {source, provider, id} instead."})
		case "hooks.token":
			out = append(out, AuditFinding{CheckID: "config.secrets.hooks_token_in_config", Severity: SeverityWarn,
				Title: "Hook bearer token is stored in the config", Detail: "hooks.token is written in the config file.",
				Remediation: "Use \"${OPENCLAW_HOOKS_TOKEN}\" or a SecretRef instead."})
		default:
			rest = append(rest, p)
		}
	}
	if len(rest) > 0 {
		// The first-run config writes gateway.auth.token there, in a file
		// only its owner reads: worth knowing, not a warning on its own.
		sev := SeverityWarn
		if len(rest) == 1 && rest[0] == "gateway.auth.token" {
			sev = SeverityInfo
		}
		out = append(out, AuditFinding{CheckID: "config.secrets.plaintext_in_config", Severity: sev,
			Title:       "Secrets are written in the config as plain text",
			Detail:      "Paths: " + strings.Join(rest, ", ") + "\nAgents or tools that can read the config file can read these values.",
			Remediation: "Move them to environment variables (\"${VAR}\") or SecretRefs {source: \"env\"|\"file\"|\"exec\", provider, id}."})
	}
	return out
}

// auditHooks: the webhook ingress's token and routing limits.
func auditHooks(a *audit) []AuditFinding {
	if a.cfg == nil || !a.cfg.Hooks.Enabled {
		return nil
	}
	h := a.cfg.Hooks
	var out []AuditFinding
	switch {
	case strings.TrimSpace(h.Token) == "":
		out = append(out, AuditFinding{CheckID: "hooks.token_missing", Severity: SeverityCritical,
			Title: "Hooks are enabled without a token", Detail: "hooks.enabled=true but hooks.token is empty; the gateway refuses such a config.",
			Remediation: "Set hooks.token to its own long random value."})
	case h.Token == a.token || h.Token == a.password:
		which := "gateway.auth.token"
		if h.Token != a.token {
			which = "gateway.auth.password"
		}
		out = append(out, AuditFinding{CheckID: "hooks.token_reuse_gateway_token", Severity: SeverityCritical,
			Title:       "Hook token is also the gateway's secret",
			Detail:      "hooks.token is the same secret as " + which + ": whoever sends webhooks (often a third-party service) could also drive the gateway as an operator.",
			Remediation: "Give hooks.token its own random value (`openssl rand -hex 32`) and update the webhook senders."})
	case len(strings.TrimSpace(h.Token)) < 24:
		out = append(out, AuditFinding{CheckID: "hooks.token_too_short", Severity: SeverityWarn,
			Title: "Hook token looks short", Detail: fmt.Sprintf("hooks.token is %d chars; prefer a long random token.", len(strings.TrimSpace(h.Token))),
			Remediation: "Set hooks.token to a long random value."})
	}
	if h.DefaultSessionKey == "" {
		out = append(out, AuditFinding{CheckID: "hooks.default_session_key_unset", Severity: SeverityWarn,
			Title: "hooks.defaultSessionKey is not configured", Detail: "Hook agent runs each get a new generated session.",
			Remediation: "Set hooks.defaultSessionKey (for example \"hook:ingress\")."})
	}
	if h.AllowedAgentIDs == nil || slices.Contains(h.AllowedAgentIDs, "*") {
		out = append(out, AuditFinding{CheckID: "hooks.allowed_agent_ids_unrestricted", Severity: a.exposedSeverity(),
			Title: "Hook agent routing is unrestricted", Detail: "hooks.allowedAgentIds is unset or \"*\": a hook caller may run any configured agent.",
			Remediation: "Set hooks.allowedAgentIds to the agents hooks are meant for."})
	}
	if h.AllowRequestSessionKey {
		out = append(out, AuditFinding{CheckID: "hooks.request_session_key_enabled", Severity: a.exposedSeverity(),
			Title: "External hook callers may choose the session key", Detail: "hooks.allowRequestSessionKey=true lets a request name the session its turn runs in.",
			Remediation: "Turn it off, or bound it with hooks.allowedSessionKeyPrefixes."})
		if len(h.AllowedSessionKeyPrefixes) == 0 {
			out = append(out, AuditFinding{CheckID: "hooks.request_session_key_prefixes_missing", Severity: a.exposedSeverity(),
				Title: "Request session keys are unbounded", Detail: "hooks.allowRequestSessionKey=true without hooks.allowedSessionKeyPrefixes.",
				Remediation: "Set hooks.allowedSessionKeyPrefixes (for example [\"hook:\"])."})
		}
	}
	return out
}

// policyScope is one channel or channel account's policies.
type policyScope struct {
	channel, path   string
	dm, group       string
	allowFrom       []string
	enabledExplicit *bool
}

// channelScopes reads every channel and account's DM and group policy
// from the tree, accounts inheriting their channel's, the channel
// inheriting channels.defaults.groupPolicy; disabled ones are left out.
func channelScopes(tree map[string]any) []policyScope {
	chans, _ := config.Lookup(tree, "channels")
	m, _ := chans.(map[string]any)
	defGroup, _ := lookupString(tree, "channels", "defaults", "groupPolicy")
	var out []policyScope
	for _, ch := range slices.Sorted(mapsKeys(m)) {
		if ch == "defaults" || ch == "modelByChannel" {
			continue
		}
		sec, ok := m[ch].(map[string]any)
		if !ok {
			continue
		}
		base := readScope(sec, policyScope{channel: ch, path: "channels." + ch, dm: "pairing", group: orDefault(defGroup, "allowlist")})
		if base.enabledExplicit == nil || *base.enabledExplicit {
			out = append(out, base)
		}
		accts, _ := sec["accounts"].(map[string]any)
		for _, id := range slices.Sorted(mapsKeys(accts)) {
			am, ok := accts[id].(map[string]any)
			if !ok {
				continue
			}
			inherit := base
			inherit.path = config.JoinPath("channels."+ch+".accounts", id)
			s := readScope(am, inherit)
			if s.enabledExplicit == nil || *s.enabledExplicit {
				out = append(out, s)
			}
		}
	}
	return out
}

func readScope(m map[string]any, s policyScope) policyScope {
	if v, ok := m["dmPolicy"].(string); ok {
		s.dm = v
	}
	if v, ok := m["groupPolicy"].(string); ok {
		s.group = v
	}
	if l, ok := m["allowFrom"].([]any); ok {
		s.allowFrom = nil
		for _, e := range l {
			s.allowFrom = append(s.allowFrom, fmt.Sprint(e))
		}
	}
	s.enabledExplicit = nil
	if b, ok := m["enabled"].(bool); ok {
		s.enabledExplicit = &b
	}
	return s
}

// openPolicyPaths are the config paths of open DM and group policies.
func openPolicyPaths(tree map[string]any) []string {
	var out []string
	for _, s := range channelScopes(tree) {
		if s.dm == "open" {
			out = append(out, s.path+".dmPolicy")
		}
		if s.group == "open" {
			out = append(out, s.path+".groupPolicy")
		}
	}
	return out
}

// auditChannels: who can reach the bot.
func auditChannels(a *audit) []AuditFinding {
	var out []AuditFinding
	for _, s := range channelScopes(a.tree) {
		if s.dm == "open" {
			out = append(out, AuditFinding{CheckID: "channels." + s.channel + ".dm.open", Severity: SeverityCritical,
				Title:       s.channel + " DMs are open",
				Detail:      s.path + ".dmPolicy=\"open\" allows anyone to DM the bot.",
				Remediation: "Use \"pairing\" or \"allowlist\"; if you really need open DMs, make sure " + s.path + ".allowFrom includes \"*\"."})
			if !slices.Contains(s.allowFrom, "*") {
				out = append(out, AuditFinding{CheckID: "channels." + s.channel + ".dm.open_invalid", Severity: SeverityWarn,
					Title:  s.channel + " DM config looks inconsistent",
					Detail: "\"open\" requires " + s.path + ".allowFrom to include \"*\"."})
			}
		}
		if s.group == "open" {
			out = append(out, AuditFinding{CheckID: "channels." + s.channel + ".group.open", Severity: SeverityWarn,
				Title:       s.channel + " groups are open",
				Detail:      s.path + ".groupPolicy=\"open\": the bot answers in any group it is added to, to anyone in it.",
				Remediation: "Set groupPolicy \"allowlist\" and list the groups (`openclaw security audit --fix` does the first part)."})
		}
	}
	return out
}

// execScope is one agent's (or the defaults') effective exec security.
type execScope struct{ id, security, ask string }

func (a *audit) execScopes() []execScope {
	if a.cfg == nil {
		return nil
	}
	sec, ask := a.cfg.Tools.Exec.Policy()
	if sec == "" {
		sec = "allowlist" // this gateway's default
	}
	if ask == "" {
		ask = "on-miss"
	}
	out := []execScope{{id: "tools.exec", security: sec, ask: ask}}
	entries, _ := config.Lookup(a.tree, "agents", "entries")
	m, _ := entries.(map[string]any)
	for _, id := range slices.Sorted(mapsKeys(m)) {
		mode, _ := lookupString(m, id, "tools", "exec", "mode")
		s, _ := lookupString(m, id, "tools", "exec", "security")
		k, _ := lookupString(m, id, "tools", "exec", "ask")
		if p, ok := config.ExecModePolicy[mode]; ok {
			s, k = p[0], p[1]
		}
		if s == "" && k == "" {
			continue
		}
		out = append(out, execScope{id: config.JoinPath("agents.entries", id) + ".tools.exec", security: orDefault(s, sec), ask: orDefault(k, ask)})
	}
	return out
}

// auditExec: exec run without approval, who may run it elevated, and
// what the exec approvals file allows.
func auditExec(a *audit) []AuditFinding {
	var out []AuditFinding
	scopes := a.execScopes()
	var full, enabled []string
	for _, s := range scopes {
		if s.security == "full" {
			full = append(full, fmt.Sprintf("%s (security=full, ask=%s)", s.id, s.ask))
		}
		if s.security != "deny" {
			enabled = append(enabled, fmt.Sprintf("%s: security=%s, ask=%s", s.id, s.security, s.ask))
		}
	}
	open := a.openPaths
	if len(full) > 0 {
		sev := SeverityWarn
		detail := "Full exec trust (every command runs, unasked unless ask says otherwise) is enabled for: " + strings.Join(full, ", ") + "."
		if len(open) > 0 {
			sev = SeverityCritical
			detail += "\nOpen channel access was also detected at:\n- " + strings.Join(open, "\n- ")
		}
		out = append(out, AuditFinding{CheckID: "tools.exec.security_full_configured", Severity: sev,
			Title: "Exec security=full is configured", Detail: detail,
			Remediation: "Prefer tools.exec.mode \"ask\" or \"allowlist\", and keep \"full\" for tightly scoped break-glass agents."})
	}
	if len(open) > 0 && len(enabled) > 0 {
		sev := SeverityWarn
		if len(full) > 0 {
			sev = SeverityCritical
		}
		out = append(out, AuditFinding{CheckID: "security.exposure.open_channels_with_exec", Severity: sev,
			Title:       "Open channels can reach exec-enabled agents",
			Detail:      "Open DM/group access detected at:\n- " + strings.Join(open, "\n- ") + "\nExec-enabled scopes:\n- " + strings.Join(enabled, "\n- "),
			Remediation: "Tighten dmPolicy/groupPolicy to pairing or allowlist, or deny exec (tools.exec.mode \"deny\") for agents those chats reach."})
	}
	if a.cfg != nil && a.cfg.Tools.Elevated.Enabled {
		for _, ch := range slices.Sorted(mapsKeys(a.cfg.Tools.Elevated.AllowFrom)) {
			if slices.Contains(a.cfg.Tools.Elevated.AllowFrom[ch], "*") {
				out = append(out, AuditFinding{CheckID: "tools.elevated.allowFrom." + ch + ".wildcard", Severity: SeverityCritical,
					Title:       "Elevated exec is allowed to every " + ch + " sender",
					Detail:      "tools.elevated.allowFrom." + ch + " includes \"*\": anyone on " + ch + " the bot answers may run commands outside the sandbox.",
					Remediation: "List the sender ids allowed to use elevated exec."})
			}
		}
	}
	if snap, err := execapprovals.New(a.in.ExecApprovalsPath()).Get(); err == nil && snap.Exists {
		var auto, wild []string
		check := func(where string, st execapprovals.Settings) {
			if st.AutoAllowSkills != nil && *st.AutoAllowSkills {
				auto = append(auto, where+".autoAllowSkills")
			}
		}
		check("defaults", snap.File.Defaults)
		for _, id := range slices.Sorted(mapsKeys(snap.File.Agents)) {
			ag := snap.File.Agents[id]
			check("agents."+id, ag.Settings)
			for i, e := range ag.Allowlist {
				if allowAllPatterns[strings.TrimSpace(e.Pattern)] {
					wild = append(wild, fmt.Sprintf("agents.%s.allowlist[%d]", id, i))
				}
			}
		}
		if len(auto) > 0 {
			out = append(out, AuditFinding{CheckID: "tools.exec.auto_allow_skills_enabled", Severity: SeverityWarn,
				Title: "autoAllowSkills is enabled for exec approvals", Detail: "Implicit skill-bin allowlisting is enabled at:\n- " + strings.Join(auto, "\n- "),
				Remediation: "Turn autoAllowSkills off and keep the allowlists explicit."})
		}
		if len(wild) > 0 {
			out = append(out, AuditFinding{CheckID: "tools.exec.allowlist_wildcard", Severity: SeverityWarn,
				Title: "Exec allowlist allows every command", Detail: "These exec approvals entries match every executable:\n- " + strings.Join(wild, "\n- "),
				Remediation: "Replace them with the commands the agent needs."})
		}
	}
	return out
}

// auditFilesystem: the modes of the state directory and its private
// files, with OpenClaw's fs.* check ids.
func auditFilesystem(a *audit) []AuditFinding {
	if !permsApply {
		return nil
	}
	var out []AuditFinding
	for _, t := range a.in.permTargets() {
		st, err := inspectPerm(t.Path)
		if err != nil {
			continue
		}
		kind := "file"
		want := "600"
		if t.Dir {
			kind, want = "dir", "700"
		}
		fix := "chmod " + want + " " + t.Path
		add := func(suffix string, sev Severity, title, detail string) {
			out = append(out, AuditFinding{CheckID: "fs." + t.Kind + "." + suffix, Severity: sev, Title: title, Detail: detail, Remediation: fix})
		}
		label := labels[t.Kind]
		if st.Symlink {
			out = append(out, AuditFinding{CheckID: "fs." + t.Kind + ".symlink", Severity: SeverityWarn,
				Title:  label + " is a symlink",
				Detail: t.Path + " is a symlink: its target is another place whose permissions and owner matter.", Remediation: "Replace it with a real " + kind + "."})
			continue
		}
		m := describeMode(t.Path, st.Mode)
		switch t.Kind {
		case "state_dir":
			switch {
			case st.worldWritable():
				add("perms_world_writable", SeverityCritical, "State dir is world-writable", m+"; other users can change the whole state.")
			case st.groupWritable():
				add("perms_group_writable", SeverityWarn, "State dir is group-writable", m+"; group users can change the whole state.")
			case st.groupReadable() || st.worldReadable():
				add("perms_readable", SeverityWarn, "State dir is readable by others", m+"; consider restricting to 700.")
			}
		case "config", "config_include":
			switch {
			case st.worldWritable() || st.groupWritable():
				add("perms_writable", SeverityCritical, label+" is writable by others", m+"; others can change auth, tool policy and secrets.")
			case st.worldReadable():
				add("perms_world_readable", SeverityCritical, label+" is world-readable", m+"; config can contain tokens and private settings.")
			case st.groupReadable():
				add("perms_group_readable", SeverityWarn, label+" is group-readable", m+"; group users can read tokens and settings.")
			}
		default:
			switch {
			case st.worldWritable() || st.groupWritable():
				add("perms_writable", SeverityCritical, label+" is writable by others", m+"; others can change "+t.What+".")
			case st.groupReadable() || st.worldReadable():
				add("perms_readable", SeverityWarn, label+" is readable by others", m+"; others can read "+t.What+".")
			}
		}
	}
	return out
}

var labels = map[string]string{
	"state_dir":       "State dir",
	"config":          "Config file",
	"config_include":  "Config include file",
	"sessions_store":  "State database",
	"exec_approvals":  "Exec approvals file",
	"identity_dir":    "Device identity dir",
	"credentials_dir": "Credentials dir",
	"log_file":        "Log file",
}

// attackSurface is the info roll-up OpenClaw puts first.
func attackSurface(a *audit) AuditFinding {
	openGroups, allowGroups := 0, 0
	for _, s := range channelScopes(a.tree) {
		switch s.group {
		case "open":
			openGroups++
		case "allowlist":
			allowGroups++
		}
	}
	onOff := func(b bool) string {
		if b {
			return "enabled"
		}
		return "disabled"
	}
	lines := []string{fmt.Sprintf("groups: open=%d, allowlist=%d", openGroups, allowGroups)}
	if a.cfg != nil {
		c := a.cfg
		lines = append(lines,
			"tools.elevated: "+onOff(c.Tools.Elevated.Enabled),
			"hooks.webhooks: "+onOff(c.Hooks.Enabled),
			"browser control: "+onOff(c.Browser.Enabled == nil || *c.Browser.Enabled),
		)
		for _, s := range a.execScopes() {
			lines = append(lines, fmt.Sprintf("exec (%s): security=%s, ask=%s", s.id, s.security, s.ask))
		}
		lines = append(lines, fmt.Sprintf("gateway: bind=%s, auth=%s", orDefault(a.bind, "loopback"), orDefault(a.authMode(), "token")))
	}
	lines = append(lines, "trust model: personal assistant (one trusted operator), not hostile multi-tenant on one shared gateway.")
	return AuditFinding{CheckID: "summary.attack_surface", Severity: SeverityInfo, Title: "Attack surface summary", Detail: strings.Join(lines, "\n")}
}
