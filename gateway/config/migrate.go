package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// LegacyRewrite is one rewrite MigrateLegacy made.
type LegacyRewrite struct {
	// Path is the legacy key, dotted as in Issue.Path.
	Path string
	// Rewrite says what became of it, e.g. "removed (WebChat is retired)"
	// or "read as agents.defaults.heartbeat (...)".
	Rewrite string
}

// String returns "path: rewrite".
func (r LegacyRewrite) String() string { return r.Path + ": " + r.Rewrite }

// MigrateLegacy rewrites the keys that older OpenClaw versions wrote into
// the places the current schema reads them from, the way OpenClaw's
// `doctor --fix` does, so a config written by an older install loads as it
// was meant. It works on the text with Set and Unset: comments, order and
// formatting outside the rewritten members survive, and a config with no
// legacy key comes back byte for byte. applied lists the rewrites in the
// order done.
//
// Load applies it to the file's text before decoding and reports each
// rewrite as a warning; `openclaw migrate` calls it to write the migrated
// file. Where an old key and its current key are both set, the current one
// wins and the old one is dropped. Calling it on its own output changes
// nothing.
func MigrateLegacy(src []byte) (out []byte, applied []LegacyRewrite, err error) {
	out = src
	// The text is parsed once, and again only after a rewrite: a current
	// config (the usual case, at every load and reload) costs one parse,
	// not one per rule.
	tree, perr := migrationTree(out)
	if perr != nil {
		// Not parseable: leave it for Parse, which reports the syntax
		// error with its position.
		return src, nil, nil
	}
	for _, r := range legacyRules {
		for range maxRuleMatches {
			m, ok := r.first(tree)
			if !ok {
				break
			}
			next, note, aerr := r.apply(out, tree, m)
			if aerr != nil {
				return src, nil, fmt.Errorf("migrate legacy config: %s: %w", formatPath(m.path), aerr)
			}
			out = next
			if tree, perr = migrationTree(out); perr != nil {
				return src, nil, fmt.Errorf("migrate legacy config: %s: the rewrite left text that does not parse: %w", formatPath(m.path), perr)
			}
			p := formatPath(m.path)
			applied = append(applied, LegacyRewrite{Path: p, Rewrite: strings.TrimPrefix(note, p+": ")})
		}
	}
	return out, applied, nil
}

// maxRuleMatches bounds how often one rule applies, so a rule whose
// rewrite still matches cannot loop.
const maxRuleMatches = 1000

func migrationTree(src []byte) (map[string]any, error) {
	p, issue := parseJSON5(&srcFile{name: "config", src: src})
	if issue != nil {
		return nil, fmt.Errorf("%s", issue.Message)
	}
	tree, ok := p.nodes(&issueList{}).toAny().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	return tree, nil
}

// legacyRule is one rewrite: every value at from (segments, "*" matching
// each key of an object or element of an array) that when accepts is
// removed (to nil, value nil), moved to to ("*" filled from the match), or
// rewritten in place (value set, to nil).
type legacyRule struct {
	from []string
	to   []string
	when func(v any) bool
	// at, when set, must accept the match too (for rules that look at
	// the matched key, not just the value).
	at    func(m ruleMatch) bool
	value func(v any) any
	// custom replaces the generic apply (agents.list).
	custom func(src []byte, tree map[string]any, m ruleMatch) ([]byte, string, error)
	// why is said after the rewrite, e.g. "WebChat is retired".
	why string
}

type ruleMatch struct {
	path  []segment
	stars []segment
	value any
}

func (r legacyRule) first(tree map[string]any) (ruleMatch, bool) {
	var found ruleMatch
	var ok bool
	walkPattern(tree, r.from, nil, nil, func(m ruleMatch) bool {
		if (r.when != nil && !r.when(m.value)) || (r.at != nil && !r.at(m)) {
			return true
		}
		found, ok = m, true
		return false
	})
	return found, ok
}

// walkPattern calls visit for each value at pattern under v, in key order;
// visit returns false to stop.
func walkPattern(v any, pattern []string, at, stars []segment, visit func(ruleMatch) bool) bool {
	if len(pattern) == 0 {
		return visit(ruleMatch{path: slices.Clone(at), stars: slices.Clone(stars), value: v})
	}
	head, rest := pattern[0], pattern[1:]
	switch t := v.(type) {
	case map[string]any:
		if head != "*" {
			child, ok := t[head]
			if !ok {
				return true
			}
			return walkPattern(child, rest, append(at, segment{key: head}), stars, visit)
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			s := segment{key: k}
			if !walkPattern(t[k], rest, append(at, s), append(stars, s), visit) {
				return false
			}
		}
	case []any:
		if head != "*" {
			return true
		}
		for i, e := range t {
			s := segment{index: i, isIndex: true}
			if !walkPattern(e, rest, append(at, s), append(stars, s), visit) {
				return false
			}
		}
	}
	return true
}

func (r legacyRule) target(m ruleMatch) []segment {
	var out []segment
	n := 0
	for _, k := range r.to {
		if k == "*" && n < len(m.stars) {
			out = append(out, m.stars[n])
			n++
			continue
		}
		out = append(out, segment{key: k})
	}
	return out
}

func (r legacyRule) apply(src []byte, tree map[string]any, m ruleMatch) ([]byte, string, error) {
	old := formatPath(m.path)
	switch {
	case r.custom != nil:
		return r.custom(src, tree, m)
	case r.value != nil:
		nv := r.value(m.value)
		out, err := setSegs(src, m.path, nv)
		return out, fmt.Sprintf("%s: %s is read as %s (%s)", old, jsonText(m.value), jsonText(nv), r.why), err
	case r.to == nil:
		out, err := unsetSegs(src, m.path)
		return out, fmt.Sprintf("%s: removed (%s)", old, r.why), err
	}
	to := r.target(m)
	if _, exists := lookupSegs(tree, to); exists {
		out, err := unsetSegs(src, m.path)
		return out, fmt.Sprintf("%s: removed, %s is already set and wins (%s)", old, formatPath(to), r.why), err
	}
	out, err := setSegs(src, to, m.value)
	if err != nil {
		return nil, "", err
	}
	out, err = unsetSegs(out, m.path)
	return out, fmt.Sprintf("%s: read as %s (%s)", old, formatPath(to), r.why), err
}

func lookupSegs(v any, segs []segment) (any, bool) {
	for _, s := range segs {
		switch t := v.(type) {
		case map[string]any:
			c, ok := t[s.key]
			if !ok || s.isIndex {
				return nil, false
			}
			v = c
		case []any:
			if !s.isIndex || s.index >= len(t) {
				return nil, false
			}
			v = t[s.index]
		default:
			return nil, false
		}
	}
	return v, true
}

func jsonText(v any) string {
	b, err := renderJSON(v, "", "")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// migrateAgentsList turns the legacy agents.list roster into keyed
// agents.entries: each element's id becomes its key. An agents.entries
// already present wins and the list is dropped.
func migrateAgentsList(src []byte, tree map[string]any, m ruleMatch) ([]byte, string, error) {
	list, _ := m.value.([]any)
	entriesPath := []segment{{key: "agents"}, {key: "entries"}}
	if _, exists := lookupSegs(tree, entriesPath); exists {
		out, err := unsetSegs(src, m.path)
		return out, "agents.list: removed, agents.entries is already set and wins (agents are keyed by id now)", err
	}
	entries := map[string]any{}
	for i, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("element %d is not an object", i)
		}
		id, _ := obj["id"].(string)
		if id == "" {
			return nil, "", fmt.Errorf("element %d has no id", i)
		}
		if _, dup := entries[id]; dup {
			return nil, "", fmt.Errorf("id %q appears twice", id)
		}
		rest := maps.Clone(obj)
		delete(rest, "id")
		entries[id] = rest
	}
	out, err := setSegs(src, entriesPath, entries)
	if err != nil {
		return nil, "", err
	}
	out, err = unsetSegs(out, m.path)
	return out, "agents.list: read as agents.entries keyed by each agent's id (agents are keyed by id now)", err
}

func isString(s string) func(any) bool { return func(v any) bool { return v == s } }

// legacyRules are applied in order: agents.list first, so the per-agent
// rules after it see agents.entries.
var legacyRules = slices.Concat([]legacyRule{
	{from: []string{"agents", "list"}, when: func(v any) bool { _, ok := v.([]any); return ok }, custom: migrateAgentsList},

	// Retired keys whose state moved into OpenClaw's shared SQLite state.
	{from: []string{"meta", "lastTouchedAt"}, why: "OpenClaw keeps it in its state database now"},
	{from: []string{"hooks", "internal", "installs"}, why: "hook installs live in the state database now"},
	{from: []string{"cron", "store"}, why: "cron jobs live in the state database now"},
	{from: []string{"plugins", "bundledDiscovery"}, why: "retired"},
	{from: []string{"tts", "prefsPath"}, why: "TTS preferences live in the state database now"},

	// Retired features and knobs.
	{from: []string{"channels", "webchat"}, why: "WebChat is retired"},
	{from: []string{"gateway", "webchat"}, why: "WebChat is retired"},
	{from: []string{"gateway", "tailscale", "resetOnExit"}, why: "retired"},
	{from: []string{"gateway", "controlUi", "chatMessageMaxWidth"}, why: "chat width is a browser-local preference now"},
	{from: []string{"session", "maintenance", "rotateBytes"}, why: "deprecated"},
	{from: []string{"session", "parentForkMaxTokens"}, why: "deprecated"},
	{from: []string{"browser", "relayBindHost"}, why: "legacy Chrome extension relay setting"},
	{from: []string{"tools", "media", "asyncCompletion"}, why: "retired"},
	{from: []string{"tui"}, why: "the TUI footer uses its compact default"},
	{from: []string{"commands", "modelsWrite"}, why: "/models add is deprecated"},
	{from: []string{"agents", "defaults", "llm"}, why: "use models.providers.<id>.timeoutSeconds for slow providers"},
	{from: []string{"agents", "defaults", "silentReplyRewrite"}, why: "NO_REPLY is no longer rewritten"},
	{from: []string{"agents", "entries", "*", "silentReplyRewrite"}, why: "NO_REPLY is no longer rewritten"},
	{from: []string{"agents", "defaults", "systemPromptOverride"}, why: "OpenClaw owns the generated system prompt"},
	{from: []string{"agents", "entries", "*", "systemPromptOverride"}, why: "OpenClaw owns the generated system prompt"},
	{from: []string{"diagnostics", "memoryPressureSnapshot"}, why: "automatic critical-memory snapshots were retired"},
	{from: []string{"diagnostics", "memoryPressureBundle"}, why: "automatic critical-memory snapshots were retired"},

	// Renamed keys.
	{from: []string{"heartbeat"}, to: []string{"agents", "defaults", "heartbeat"}, why: "heartbeat settings are per agent"},
	{from: []string{"defaultModel"}, to: []string{"agents", "defaults", "model"}, why: "the default model is an agent default"},
	{from: []string{"memorySearch"}, to: []string{"memory", "search"}, why: "memory search belongs to memory"},
	{from: []string{"agents", "defaults", "memorySearch"}, to: []string{"memory", "search"}, why: "memory search belongs to memory"},
	{from: []string{"agents", "entries", "*", "memorySearch"}, to: []string{"agents", "entries", "*", "memory", "search"}, why: "memory search belongs to memory"},
	{from: []string{"memory", "search", "provider"}, when: isString("auto"), value: func(any) any { return "openai" }, why: `provider "auto" is gone`},
	{from: []string{"session", "typingMode"}, to: []string{"agents", "defaults", "typingMode"}, why: "typing mode is an agent default"},
	{from: []string{"session", "idleMinutes"}, to: []string{"session", "reset", "idleMinutes"}, why: "idle reset belongs to session.reset"},
	{from: []string{"session", "resetByType", "dm"}, to: []string{"session", "resetByType", "direct"}, why: `"dm" is called "direct" now`},
	{from: []string{"session", "threadBindings", "ttlHours"}, to: []string{"session", "threadBindings", "idleHours"}, why: "thread bindings expire when idle"},
	{from: []string{"channels", "*", "threadBindings", "ttlHours"}, to: []string{"channels", "*", "threadBindings", "idleHours"}, why: "thread bindings expire when idle"},
	{from: []string{"channels", "*", "accounts", "*", "threadBindings", "ttlHours"}, to: []string{"channels", "*", "accounts", "*", "threadBindings", "idleHours"}, why: "thread bindings expire when idle"},
	{from: []string{"channels", "feishu", "accounts", "*", "botName"}, to: []string{"channels", "feishu", "accounts", "*", "name"}, why: "the account's display name"},
	{from: []string{"channels", "slack", "identity"}, to: []string{"channels", "slack", "postAs"}, why: "renamed"},
	{from: []string{"channels", "telegram", "requireMention"}, to: []string{"channels", "telegram", "groups", "*", "requireMention"}, why: "mention gating is per group"},
	{from: []string{"routing", "allowFrom"}, to: []string{"channels", "whatsapp", "allowFrom"}, why: "the routing block is retired"},
	{from: []string{"routing", "groupChat", "historyLimit"}, to: []string{"messages", "groupChat", "historyLimit"}, why: "the routing block is retired"},
	{from: []string{"routing", "groupChat", "mentionPatterns"}, to: []string{"messages", "groupChat", "mentionPatterns"}, why: "the routing block is retired"},
	{from: []string{"web", "enabled"}, to: []string{"channels", "whatsapp", "enabled"}, why: "WhatsApp Web is the whatsapp channel"},
	{from: []string{"messages", "tts"}, to: []string{"tts"}, why: "TTS is configured at the top level"},
	{from: []string{"media"}, to: []string{"attachments"}, why: "renamed"},
	{from: []string{"audit"}, to: []string{"logging", "audit"}, why: "audit logging belongs to logging"},
	{from: []string{"agents", "defaults", "pdfMaxBytesMb"}, to: []string{"agents", "defaults", "pdfMaxMb"}, why: "renamed"},
	{from: []string{"agents", "defaults", "embeddedPi"}, to: []string{"agents", "defaults", "embeddedAgent"}, why: "renamed"},
	{from: []string{"agents", "entries", "*", "embeddedPi"}, to: []string{"agents", "entries", "*", "embeddedAgent"}, why: "renamed"},
	{from: []string{"tools", "exec", "timeoutSec"}, to: []string{"tools", "exec", "timeoutSeconds"}, why: "renamed"},
	{from: []string{"browser", "ssrfPolicy", "allowPrivateNetwork"}, to: []string{"browser", "ssrfPolicy", "dangerouslyAllowPrivateNetwork"}, why: "renamed to say what it risks"},
	{from: []string{"gateway", "nodes", "skills", "enabled"}, to: []string{"gateway", "nodes", "allowSkills"}, why: "renamed"},
	{from: []string{"gateway", "nodes", "allowCommands"}, to: []string{"gateway", "nodes", "commands", "allow"}, why: "node command lists moved under gateway.nodes.commands"},
	{from: []string{"gateway", "nodes", "denyCommands"}, to: []string{"gateway", "nodes", "commands", "deny"}, why: "node command lists moved under gateway.nodes.commands"},

	// Renamed values.
	{from: []string{"bindings", "*", "match", "peer", "kind"}, when: isString("dm"), value: func(any) any { return "direct" }, why: `"dm" is called "direct" now`},
	{from: []string{"models", "providers", "*", "api"}, when: isString("openai"), value: func(any) any { return "openai-completions" }, why: `"openai" is called "openai-completions" now`},
	// docs/gateway/configuration/hot-reload.md: the earlier hot and
	// restart modes are retired and doctor --fix maps both to hybrid.
	{from: []string{"gateway", "reload", "mode"}, when: func(v any) bool { return v == "hot" || v == "restart" }, value: func(any) any { return "hybrid" }, why: "the hot and restart modes are retired"},
	{from: []string{"mcp", "servers", "*", "disabled"}, when: func(v any) bool { _, ok := v.(bool); return ok }, custom: migrateMCPDisabled},

	// The dist's final-layout renames: the media-generation model
	// defaults moved under agents.defaults.mediaModels.
	{from: []string{"agents", "defaults", "imageGenerationModel"}, to: []string{"agents", "defaults", "mediaModels", "image"}, why: "media models moved under agents.defaults.mediaModels"},
	{from: []string{"agents", "defaults", "videoGenerationModel"}, to: []string{"agents", "defaults", "mediaModels", "video"}, why: "media models moved under agents.defaults.mediaModels"},
	{from: []string{"agents", "defaults", "musicGenerationModel"}, to: []string{"agents", "defaults", "mediaModels", "music"}, why: "media models moved under agents.defaults.mediaModels"},
	// The dist's retired-key removals with their own migration.
	{from: []string{"models", "pricing"}, why: "pricing ships with the hosted model catalog"},
	{from: []string{"ui", "assistant"}, why: "retired; set the agent's identity instead"},
	{from: []string{"commands", "ownerDisplay"}, why: "owner ids render raw now"},
	{from: []string{"commands", "ownerDisplaySecret"}, why: "owner ids render raw now"},
	// The ElevenLabs talk config compat (the dist's talk legacy fields):
	// flat talk fields move under talk.providers.<provider>.
	{from: []string{"talk"}, when: func(v any) bool { return talkMigrationProvider(v) != "" }, custom: migrateTalkFields},
	// The dist's QMD memory retirement: builtin memory is the only engine.
	{from: []string{"memory", "backend"}, why: "builtin memory is the only memory engine now"},
	// The dist's doctor config flow: install records moved to the plugin index.
	{from: []string{"plugins", "installs"}, why: "plugin install records live in the plugin index now"},
	// The dist's cron doctor: run history is kept in the state database
	// with a fixed bound (2000 runs per job), so the run-log knobs went.
	{from: []string{"cron", "runLog"}, why: "cron history keeps the last 2000 runs per job now"},
	// The dist's env doctor: variables written straight under env move
	// under env.vars (env's own keys, vars and shellEnv, are objects).
	{from: []string{"env", "*"}, when: func(v any) bool { _, ok := v.(string); return ok }, to: []string{"env", "vars", "*"}, why: "inline variables live under env.vars"},
	// The real doctor strips these as unknown keys: per-agent plugin
	// lists (plugins are enabled under plugins.entries) and agents keyed
	// by id straight under agents, a shape from before agents.list; the
	// agent's settings are dropped with it, as doctor --fix does.
	{from: []string{"agents", "entries", "*", "plugins"}, why: "enable plugins under plugins.entries instead"},
	{from: []string{"agents", "*"}, at: func(m ruleMatch) bool { return !agentsChildren[m.stars[0].key] }, why: "agents keyed by id are retired; declare the agent under agents.entries"},
	// The Telegram doctor contract (the dist's runtime doctor migrations):
	// a scalar streaming and the flat streamMode alias become
	// streaming.mode; a nested mode wins over the scalar, the scalar over
	// streamMode.
	{from: []string{"channels", "telegram", "streaming"}, when: isStreamingScalar, value: streamingObject, why: "streaming is an object with a mode now"},
	{from: []string{"channels", "telegram", "accounts", "*", "streaming"}, when: isStreamingScalar, value: streamingObject, why: "streaming is an object with a mode now"},
	{from: []string{"channels", "telegram", "streamMode"}, to: []string{"channels", "telegram", "streaming", "mode"}, why: "the stream mode is streaming.mode now"},
	{from: []string{"channels", "telegram", "accounts", "*", "streamMode"}, to: []string{"channels", "telegram", "accounts", "*", "streaming", "mode"}, why: "the stream mode is streaming.mode now"},
},
	// After the memorySearch renames above, so what they moved is
	// stripped too.
	retiredPaths("retired", nil, retiredRootPaths...),
	retiredPaths("retired", []string{"agents", "defaults"}, retiredAgentPaths...),
	retiredPaths("retired", []string{"agents", "entries", "*"}, retiredAgentPaths...),
	retiredPaths("a tuning knob OpenClaw retired", nil, retiredTuningPaths...),
)

// retiredRootPaths and retiredAgentPaths are the paths the real doctor
// strips from the config root and from each agent scope (agents.defaults,
// agents.entries.<id>) because the current schema retired them (the
// dist's legacy module, its tier-eval retired path lists); meta.lastTouchedAt,
// hooks.internal.installs, cron.store, plugins.bundledDiscovery and
// tts.prefsPath from that list have their own rules above.
var retiredRootPaths = append([]string{
	"cloudWorkers.profiles.*.lifetime",
	"logging.redactSensitive",
	"commands.useAccessGroups",
	"gateway.controlUi.allowInsecureAuth",
}, retiredMemorySearchPaths...)

// retiredMemorySearchPaths are retired both at the root and per agent.
var retiredMemorySearchPaths = []string{
	"memory.search.remote.nonBatchConcurrency",
	"memory.search.remote.batch.wait",
	"memory.search.remote.batch.concurrency",
	"memory.search.remote.batch.pollIntervalMs",
	"memory.search.remote.batch.timeoutMinutes",
	"memory.search.local.contextSize",
	"memory.search.local.modelCacheDir",
	"memory.search.store.driver",
	"memory.search.sync",
	"memory.search.query.hybrid",
}

var retiredAgentPaths = append([]string{
	"groupChat.visibleReplies",
	"heartbeat.ackMaxChars",
	"heartbeat.includeReasoning",
	"heartbeat.includeSystemPromptSection",
	"heartbeat.skipWhenBusy",
	"heartbeat.suppressToolErrorWarnings",
}, retiredMemorySearchPaths...)

// retiredTuningPaths are the tuning knobs the real doctor removes (the
// dist's legacy module, its retired tuning path list); the ones already
// covered above (diagnostics.memoryPressure*) and the ones under paths
// removed whole by retiredRootPaths are left out.
var retiredTuningPaths = []string{
	"systemAgent", "marketplaces", "cli.banner.taglineMode", "commitments", "auth.cooldowns", "secrets.resolution",
	"browser.remoteCdpTimeoutMs", "browser.remoteCdpHandshakeTimeoutMs", "browser.localLaunchTimeoutMs",
	"browser.localCdpReadyTimeoutMs", "browser.actionTimeoutMs", "browser.cdpPortRangeStart",
	"browser.tabCleanup.idleMinutes", "browser.tabCleanup.maxTabsPerSession", "browser.tabCleanup.sweepMinutes",
	"tools.loopDetection.genericRepeat", "tools.loopDetection.knownPollNoProgress", "tools.loopDetection.pingPong",
	"tools.loopDetection.windowSize", "tools.loopDetection.historySize", "tools.loopDetection.warningThreshold",
	"tools.loopDetection.unknownToolThreshold", "tools.loopDetection.criticalThreshold",
	"tools.loopDetection.globalCircuitBreakerThreshold", "tools.loopDetection.detectors", "tools.loopDetection.postCompactionGuard",
	"gateway.handshakeTimeoutMs", "gateway.channelHealthCheckMinutes", "gateway.channelStaleEventThresholdMinutes",
	"gateway.channelMaxRestartsPerHour", "gateway.reload.debounceMs", "gateway.reload.deferralTimeoutMs",
	"gateway.http.endpoints.chatCompletions.maxBodyBytes", "gateway.http.endpoints.chatCompletions.maxImageParts",
	"gateway.http.endpoints.chatCompletions.maxTotalImageBytes", "gateway.http.endpoints.responses.maxBodyBytes",
	"session.typingIntervalSeconds", "session.writeLock", "session.agentToAgent.maxPingPongTurns",
	"cron.maxConcurrentRuns", "cron.triggers.minIntervalMs", "cron.retry",
	"diagnostics.stuckSessionWarnMs", "diagnostics.stuckSessionAbortMs",
	"web.heartbeatSeconds", "web.reconnect", "web.whatsapp",
	"messages.queue.debounceMs", "messages.statusReactions.timing",
	"acp.stream.coalesceIdleMs", "acp.stream.maxChunkChars", "acp.stream.maxOutputChars",
	"acp.stream.maxSessionUpdateChars", "acp.stream.hiddenBoundarySeparator", "acp.maxConcurrentSessions",
	"acp.runtime.ttlMinutes", "worktrees", "transcripts.maxUtterances", "hooks.maxBodyBytes",
	"update.auto.stableDelayHours", "update.auto.stableJitterHours", "update.auto.betaCheckIntervalHours",
	"memory.search.chunking", "memory.search.cache.maxEntries",
	"channels.*.streaming.progress.render", "channels.*.accounts.*.streaming.progress.render",
}

// legacyTalkFields are the flat talk keys older versions wrote for the
// one speech provider they had.
var legacyTalkFields = []string{"voiceId", "voiceAliases", "modelId", "outputFormat", "apiKey"}

// talkMigrationProvider names the provider talk's flat fields move to:
// talk.provider, else the only entry of talk.providers, else
// "elevenlabs" when there is none. It is "" when talk has no flat field,
// or has several providers and names none (the real doctor leaves those
// for the user too).
func talkMigrationProvider(v any) string {
	talk, _ := v.(map[string]any)
	if !slices.ContainsFunc(legacyTalkFields, func(k string) bool { _, ok := talk[k]; return ok }) {
		return ""
	}
	if p, _ := talk["provider"].(string); strings.TrimSpace(p) != "" {
		return strings.TrimSpace(p)
	}
	providers, _ := talk["providers"].(map[string]any)
	switch len(providers) {
	case 0:
		return "elevenlabs"
	case 1:
		for id := range providers {
			return id
		}
	}
	return ""
}

// migrateTalkFields moves talk's flat fields into
// talk.providers.<provider>, filling only what the provider entry does
// not set.
func migrateTalkFields(src []byte, tree map[string]any, m ruleMatch) ([]byte, string, error) {
	talk := m.value.(map[string]any)
	provider := talkMigrationProvider(talk)
	entry, _ := lookupSegs(tree, []segment{{key: "talk"}, {key: "providers"}, {key: provider}})
	existing, _ := entry.(map[string]any)
	out := src
	var moved []string
	for _, k := range legacyTalkFields {
		v, ok := talk[k]
		if !ok {
			continue
		}
		var err error
		if _, set := existing[k]; !set {
			if out, err = setSegs(out, []segment{{key: "talk"}, {key: "providers"}, {key: provider}, {key: k}}, v); err != nil {
				return nil, "", err
			}
		}
		if out, err = unsetSegs(out, []segment{{key: "talk"}, {key: k}}); err != nil {
			return nil, "", err
		}
		moved = append(moved, k)
	}
	return out, fmt.Sprintf("talk: %s read under talk.providers.%s (speech settings are per provider; the provider's own settings win)", strings.Join(moved, ", "), provider), nil
}

// isStreamingScalar reports whether v is the old scalar form of a
// channel's streaming: a mode name, or a boolean.
func isStreamingScalar(v any) bool {
	switch v := v.(type) {
	case bool:
		return true
	case string:
		return streamingMode(v) != ""
	}
	return false
}

func streamingMode(s string) string {
	switch m := strings.ToLower(strings.TrimSpace(s)); m {
	case "off", "partial", "block", "progress":
		return m
	}
	return ""
}

// streamingObject is the object form of a scalar streaming: true means
// "partial", false "off".
func streamingObject(v any) any {
	mode := "off"
	switch v := v.(type) {
	case bool:
		if v {
			mode = "partial"
		}
	case string:
		mode = streamingMode(v)
	}
	return map[string]any{"mode": mode}
}

// retiredPaths makes one removal rule per dotted path, under prefix.
func retiredPaths(why string, prefix []string, paths ...string) []legacyRule {
	rules := make([]legacyRule, 0, len(paths))
	for _, p := range paths {
		rules = append(rules, legacyRule{from: append(slices.Clone(prefix), strings.Split(p, ".")...), why: why})
	}
	return rules
}

// migrateMCPDisabled turns mcp.servers.<name>.disabled into its inverse,
// enabled; an enabled already set wins.
func migrateMCPDisabled(src []byte, tree map[string]any, m ruleMatch) ([]byte, string, error) {
	old := formatPath(m.path)
	to := append(slices.Clone(m.path[:len(m.path)-1]), segment{key: "enabled"})
	if _, exists := lookupSegs(tree, to); exists {
		out, err := unsetSegs(src, m.path)
		return out, fmt.Sprintf("%s: removed, %s is already set and wins", old, formatPath(to)), err
	}
	out, err := setSegs(src, to, !m.value.(bool))
	if err != nil {
		return nil, "", err
	}
	out, err = unsetSegs(out, m.path)
	return out, fmt.Sprintf("%s: read as %s: %v (the inverse)", old, formatPath(to), !m.value.(bool)), err
}

// agentsChildren are the keys the agents section has; any other object
// straight under agents is an agent keyed by id, a shape older versions
// wrote and the real doctor strips.
var agentsChildren = map[string]bool{"defaults": true, "entries": true, "list": true, "ownership": true}
