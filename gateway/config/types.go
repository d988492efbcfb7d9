package config

//go:generate go run ./internal/gen -fielddocs

// The doc comments below are the descriptions in Schema and the comments in
// DefaultFile: fielddocs_gen.go is generated from them. Keep the first
// sentence short (it becomes the comment in the default file) and end with
// the default. Struct tags: json names the key; enum lists the allowed
// strings; min and max bound integers.

// Config holds the keys of openclaw.json this gateway implements.
// Keys OpenClaw knows but we do not implement yet are kept in Snapshot.Tree.
type Config struct {
	// Gateway configures the gateway process: mode, listener, auth and Control UI. Default: each key at its own default.
	Gateway Gateway `json:"gateway"`
	// Logging configures log output. Default: each key at its own default.
	Logging Logging `json:"logging"`
	// Models configures the model providers agents call. Default: no providers.
	Models Models `json:"models"`
	// Agents configures the agents and what they inherit. Default: one agent, "main".
	Agents Agents `json:"agents"`
	// Session configures how conversations map to sessions and when they reset. Default: each key at its own default.
	Session Session `json:"session"`
	// Tools decides which tools models see and which calls need a person. Default: every tool, no guard rules.
	Tools Tools `json:"tools"`
	// Commands configures what agents may do to the gateway itself. Default: each key at its own default.
	Commands Commands `json:"commands"`
	// Channels configures the chat networks agents talk on; a channel starts when its block is present. Default: none.
	Channels Channels `json:"channels"`
	// Bindings route inbound chats to agents by channel, account and peer; the most specific match wins. Default [] (the default agent answers).
	Bindings []Binding `json:"bindings"`
	// Cron configures the scheduler that runs jobs and heartbeats. Default: enabled.
	Cron Cron `json:"cron"`
	// Browser configures the gateway-managed Chromium the browser tool drives. Default: enabled, headless, profile "openclaw".
	Browser Browser `json:"browser"`
	// MCP configures the Model Context Protocol servers whose tools agents may use. Default: none.
	MCP MCP `json:"mcp"`
	// Plugins turns optional plugin tools on and configures them. Default: none enabled.
	Plugins Plugins `json:"plugins"`
	// Skills configures where skill packages (folders with a SKILL.md) are found. Default: the workspace's skills/ and <state dir>/skills.
	Skills Skills `json:"skills"`
}

// Skills is the skills.* section.
type Skills struct {
	// Where skills are found besides the defaults. Default: see each key.
	Load SkillsLoad `json:"load"`
	// Per-skill settings by skill name. Default {} (every skill found is on).
	Entries map[string]SkillEntry `json:"entries"`
}

// SkillsLoad is skills.load.
type SkillsLoad struct {
	// More folders of skill packages, after the workspace's skills/ and <state dir>/skills. Default [] (none).
	ExtraDirs []string `json:"extraDirs"`
}

// SkillEntry is skills.entries.<name>.
type SkillEntry struct {
	// Whether the skill is offered to agents. Default true.
	Enabled *bool `json:"enabled"`
}

// Plugins is the plugins.* section.
type Plugins struct {
	// Plugins by id, e.g. "llm-task". Default {} (optional plugins off).
	Entries map[string]PluginEntry `json:"entries"`
	// Where out-of-process plugins (folders with an openclaw.plugin.json) are found. Default: none.
	Load PluginsLoad `json:"load"`
}

// PluginsLoad is plugins.load.
type PluginsLoad struct {
	// Folders to look for plugins in (each a plugin, or a folder of plugins). Default [] (none).
	Paths []string `json:"paths"`
}

// PluginEntry is plugins.entries.<id>.
type PluginEntry struct {
	// Whether the plugin's tools are registered: optional built-in plugins such as llm-task need true; a plugin found in plugins.load.paths runs unless this is false. Default: see there.
	Enabled *bool `json:"enabled"`
	// What the plugin may ask of the models. Default: the agent's model only.
	LLM PluginLLM `json:"llm"`
	// The plugin's own settings; of these only webSearch (for the brave, tavily and searxng search providers) is read here. Default {}.
	Config PluginConfig `json:"config"`
}

// PluginConfig is plugins.entries.<id>.config.
type PluginConfig struct {
	// The web_search provider of this plugin: brave, tavily or searxng. Default {}.
	WebSearch PluginWebSearch `json:"webSearch"`
}

// PluginWebSearch is plugins.entries.<id>.config.webSearch.
type PluginWebSearch struct {
	// API key of the provider (brave, tavily); beats BRAVE_API_KEY and TAVILY_API_KEY. Default "" (the environment variable).
	APIKey SecretInput `json:"apiKey"`
	// Base URL of the instance (searxng), e.g. "https://searx.example.org". Default "" (none: searxng is skipped).
	BaseURL string `json:"baseUrl"`
}

// PluginLLM is plugins.entries.<id>.llm.
type PluginLLM struct {
	// Whether a call may name its own model. Default false.
	AllowModelOverride bool `json:"allowModelOverride"`
}

// MCP is the mcp.* section.
type MCP struct {
	// MCP servers by name: a command run over stdio, or a url spoken to over streamable HTTP. Default {} (none).
	Servers map[string]MCPServer `json:"servers"`
}

// MCPServer is mcp.servers.<name>.
type MCPServer struct {
	// Program to run as a stdio MCP server. Default "" (use url).
	Command string `json:"command"`
	// Its arguments. Default [] (none).
	Args []string `json:"args"`
	// Environment variables added to the gateway's for the program. Default {} (none).
	Env map[string]string `json:"env"`
	// Working directory of the program. Default "" (the state directory).
	Cwd string `json:"cwd"`
	// URL of a streamable HTTP MCP server. Default "" (use command).
	URL string `json:"url"`
	// HTTP headers sent to the url, e.g. Authorization. Default {} (none).
	Headers map[string]string `json:"headers"`
	// stdio or streamable-http; inferred from command or url when unset. Default "".
	Transport string `json:"transport" enum:"stdio,streamable-http,http"`
	// Whether the gateway starts this server. Default true.
	Enabled *bool `json:"enabled"`
	// Milliseconds to wait for the server to start and answer. Default 30000.
	ConnectionTimeoutMs int `json:"connectionTimeoutMs" min:"0"`
	// Milliseconds one tool call may take. Default 60000.
	RequestTimeoutMs int `json:"requestTimeoutMs" min:"0"`
	// Which of the server's tools agents see, by name or glob. Default: all.
	ToolFilter MCPToolFilter `json:"toolFilter"`
}

// MCPToolFilter is mcp.servers.<name>.toolFilter.
type MCPToolFilter struct {
	// Only these tools (names or globs). Default [] (all).
	Include []string `json:"include"`
	// Not these tools (names or globs); wins over include. Default [] (none).
	Exclude []string `json:"exclude"`
}

// Browser is the browser.* section.
type Browser struct {
	// Whether the browser tool may start a browser. Default true.
	Enabled *bool `json:"enabled"`
	// Profile used when a call names none. Default "openclaw".
	DefaultProfile string `json:"defaultProfile"`
	// Chromium or Chrome binary. Default "" (chromium, chromium-browser, google-chrome or google-chrome-stable on PATH).
	ExecutablePath string `json:"executablePath"`
	// Whether act may run JavaScript in the page (evaluate). Default true.
	EvaluateEnabled *bool `json:"evaluateEnabled"`
	// Run the browser without a window. Default true.
	Headless *bool `json:"headless"`
	// Which addresses pages may load from; private and loopback addresses are refused unless allowed here. Default: public addresses only.
	SSRFPolicy BrowserSSRFPolicy `json:"ssrfPolicy"`
	// Named browser profiles, each with its own user data and port, or a cdpUrl to attach to a browser elsewhere. Default {} (the default profile only).
	Profiles map[string]BrowserProfile `json:"profiles"`
}

// BrowserSSRFPolicy is browser.ssrfPolicy.
type BrowserSSRFPolicy struct {
	// Let pages load from private, loopback and link-local addresses. Default false.
	DangerouslyAllowPrivateNetwork bool `json:"dangerouslyAllowPrivateNetwork"`
	// Host names pages may load from even when they resolve to private addresses, e.g. "intranet.example". Default [] (none).
	AllowedHostnames []string `json:"allowedHostnames"`
}

// BrowserProfile is browser.profiles.<name>.
type BrowserProfile struct {
	// DevTools port of this profile's browser, 18800–18899. Default 0 (the first free one).
	CDPPort int `json:"cdpPort" min:"0" max:"65535"`
	// DevTools URL of a browser elsewhere to attach to (attach only: no start, stop or reset). Default "".
	CDPURL string `json:"cdpUrl"`
}

// Cron is the cron.* section.
type Cron struct {
	// Whether jobs and heartbeats fire on schedule (manual runs and wakes still work when off). Default true.
	Enabled *bool `json:"enabled"`
	// Record runs missed while the gateway was down as skipped instead of running each job once at start; a job's own catchUp wins. Default false.
	SkipMissedJobs bool `json:"skipMissedJobs"`
	// Telling a chat when a job keeps failing; a job's own failureAlert wins. Default: on, after 2 failures in a row, at most hourly, to the job's delivery chat.
	FailureAlert CronFailureAlert `json:"failureAlert"`
	// How long the finished runs of a job with its own session (agent:<id>:cron:<job>) are kept, each a retired session with its transcript; false or "0h" keeps them. Default "24h".
	SessionRetention Retention `json:"sessionRetention"`
}

// CronFailureAlert is cron.failureAlert.
type CronFailureAlert struct {
	// Whether failing jobs are reported to a chat. Default true.
	Enabled *bool `json:"enabled"`
	// Failures in a row before the first alert. Default 2.
	After int `json:"after" min:"1"`
	// Milliseconds between two alerts about the same job. Default 3600000 (an hour).
	CooldownMs int `json:"cooldownMs" min:"0"`
	// Channel alerts go to, with to; "last" is the agent's last chat. Default "" (the job's delivery chat).
	Channel string `json:"channel"`
	// Chat id alerts go to. Default "" (the job's delivery chat).
	To string `json:"to"`
	// Channel account alerts go through. Default "" (the channel's default).
	AccountID string `json:"accountId"`
	// How alerts are sent; only "announce" (a chat message) here. Default "announce".
	Mode string `json:"mode" enum:"announce"`
	// Whether skipped runs count as failures. Default false.
	IncludeSkipped bool `json:"includeSkipped"`
}

// Heartbeat is agents.defaults.heartbeat and agents.entries.<id>.heartbeat.
type Heartbeat struct {
	// How often the agent's main session gets a heartbeat turn, as a duration like "30m" or "1h"; "0m" turns heartbeats off. Default "30m" (per agent: the defaults).
	Every string `json:"every"`
	// The message a heartbeat turn sends the model. Default: read HEARTBEAT.md, act on it, and answer HEARTBEAT_OK when nothing needs attention.
	Prompt string `json:"prompt"`
	// Where a heartbeat's answer goes: "none", "last" (the chat the agent last talked in), or a channel id with to. Default "none".
	Target string `json:"target"`
	// Chat to send to when target names a channel. Default "".
	To string `json:"to"`
	// Channel account for target. Default "" (the channel's default account).
	AccountID string `json:"accountId"`
	// Hours of the day heartbeats run in; outside them they are skipped. Default: all day.
	ActiveHours HeartbeatActiveHours `json:"activeHours"`
	// Model for heartbeat turns as "provider/model". Default "" (the agent's model).
	Model string `json:"model"`
	// Seconds a heartbeat turn may take. Default 0 (10 minutes).
	TimeoutSeconds int `json:"timeoutSeconds" min:"0"`
}

// HeartbeatActiveHours is heartbeat.activeHours.
type HeartbeatActiveHours struct {
	// Start of the active window as HH:MM. Default "" (midnight).
	Start string `json:"start"`
	// End of the active window as HH:MM; "24:00" is the end of the day. Default "" (end of the day).
	End string `json:"end"`
	// IANA time zone of start and end. Default "" (the gateway's zone).
	Timezone string `json:"timezone"`
}

// Commands is the commands.* section.
type Commands struct {
	// Whether the gateway tool may restart the gateway. Default false.
	Restart bool `json:"restart"`
	// Chat senders who are the owner, as "<channel>:<sender id>" (e.g. "telegram:123456"): only their turns may use owner-only tools (gateway, automations, nodes) and dangerous tools without approval, and only they may answer approval buttons in a chat. Default none: no chat sender is the owner.
	OwnerAllowFrom []string `json:"ownerAllowFrom"`
}

// Gateway is the gateway.* section.
type Gateway struct {
	// Whether this machine runs the gateway ("local") or its CLI talks to a gateway elsewhere ("remote"). Default "local".
	Mode string `json:"mode" enum:"local,remote"`
	// TCP port for WebSocket RPC and HTTP. Default 18789 (19001 with --dev; the command line and OPENCLAW_GATEWAY_PORT override it).
	Port int `json:"port" min:"1" max:"65535"`
	// Which interfaces the gateway listens on: loopback (127.0.0.1), lan (all interfaces), tailnet (the Tailscale address), auto, or custom (customBindHost). Default "loopback".
	Bind string `json:"bind" enum:"loopback,lan,tailnet,auto,custom"`
	// IPv4 address to listen on when bind is "custom". Default "" (none).
	CustomBindHost string `json:"customBindHost"`
	// How clients prove they may use the gateway. Default: token auth.
	Auth GatewayAuth `json:"auth"`
	// The browser Control UI served by the gateway. Default: enabled at the root path.
	ControlUI ControlUI `json:"controlUi"`
	// Node host settings. Default: local nodes are approved automatically.
	Nodes GatewayNodes `json:"nodes"`
	// How config file changes are applied. Default: hot reload ("hybrid").
	Reload Reload `json:"reload"`
	// Where the CLI connects when mode is "remote"; these are client credentials, not the gateway's own auth. Default: unset.
	Remote Remote `json:"remote"`
	// IP addresses or CIDR ranges of reverse proxies whose X-Forwarded-For headers are believed. Default [] (none).
	TrustedProxies []string `json:"trustedProxies"`
	// How long finished channel messages and the tool audit are kept, and how many rows each may hold (this gateway's key; OpenClaw's own CLI does not know it). Default: channel messages 7 days and 100000 rows a table, the tool audit 30 days and 100000 rows.
	Retention GatewayRetention `json:"retention"`
}

// GatewayRetention is gateway.retention (ours). Unfinished rows (a message
// not yet answered or sent, a pending approval) are never removed.
type GatewayRetention struct {
	// Age after which answered, dropped or failed inbound messages and sent or failed outbound ones are removed; under 24h a redelivered Telegram update could run again. false or "0h" keeps them. Default "7d".
	ChannelMessages Retention `json:"channelMessages"`
	// Most finished rows kept in each of the inbound and outbound message tables, oldest removed first, but never one younger than 48 hours (or channelMessages, if shorter). Default 100000.
	ChannelMaxRows int `json:"channelMaxRows" min:"1"`
	// Age after which tool audit entries and decided approvals are removed; audit.list never shows an older entry. false or "0h" keeps them. Default "30d", as OpenClaw's audit ledger.
	ToolAudit Retention `json:"toolAudit"`
	// Most tool audit entries kept, oldest removed first. Default 100000, as OpenClaw's audit ledger.
	ToolAuditMaxRows int `json:"toolAuditMaxRows" min:"1"`
}

// GatewayAuth is gateway.auth.
type GatewayAuth struct {
	// Auth mode: token, password, trusted-proxy, or none (only allowed with a loopback bind). Default "token".
	Mode string `json:"mode" enum:"none,token,password,trusted-proxy"`
	// Shared token clients must send in token mode; a string or a SecretRef. Default "" (OPENCLAW_GATEWAY_TOKEN is used when set).
	Token SecretInput `json:"token"`
	// Password clients must send in password mode; a string or a SecretRef. Default "".
	Password SecretInput `json:"password"`
	// Limits on failed auth attempts per client address: connects, bearer tokens on the HTTP API and (ours) channel webhook secrets. Default: 10 attempts a minute, then a 5-minute lockout.
	RateLimit RateLimit `json:"rateLimit"`
}

// RateLimit is gateway.auth.rateLimit.
type RateLimit struct {
	// Failed attempts allowed per client address within windowMs. Default 10.
	MaxAttempts int `json:"maxAttempts" min:"1"`
	// Length of the window in which failures are counted, in milliseconds. Default 60000.
	WindowMs int `json:"windowMs" min:"1"`
	// How long a client is refused after too many failures, in milliseconds. Default 300000.
	LockoutMs int `json:"lockoutMs" min:"0"`
	// Whether direct loopback clients (no forwarding headers, no browser Origin) are never rate limited; channel webhooks always are. Default true.
	ExemptLoopback *bool `json:"exemptLoopback"`
}

// ControlUI is gateway.controlUi.
type ControlUI struct {
	// Whether the gateway serves the Control UI. Default true.
	Enabled *bool `json:"enabled"`
	// URL path prefix the Control UI and WebSocket live under, e.g. "/openclaw". Default "" (the root).
	BasePath string `json:"basePath"`
	// Browser origins, besides the gateway's own, allowed to open the WebSocket, e.g. "https://ops.example.com". Default [] (none).
	AllowedOrigins []string `json:"allowedOrigins"`
}

// GatewayNodes is gateway.nodes.
type GatewayNodes struct {
	// How node hosts get paired. Default: local nodes are approved automatically.
	Pairing NodePairing `json:"pairing"`
	// Which declared node commands may be invoked, beyond the platform defaults. Default: the platform defaults only.
	Commands NodeCommands `json:"commands"`
}

// NodeCommands is gateway.nodes.commands.
type NodeCommands struct {
	// Commands invocable on top of the platform defaults, e.g. "camera.snap"; "prefix.*" matches a family but never a dangerous command. Default [] (none).
	Allow []string `json:"allow"`
	// Commands never invocable; wins over allow and the defaults. Default [] (none).
	Deny []string `json:"deny"`
}

// NodePairing is gateway.nodes.pairing.
type NodePairing struct {
	// Whether pairing requests from this machine are approved without asking. Default true.
	AutoApproveLocal *bool `json:"autoApproveLocal"`
	// CIDR ranges whose pairing requests are approved without asking. Default [] (none).
	AutoApproveCIDRs []string `json:"autoApproveCidrs"`
}

// Reload is gateway.reload.
type Reload struct {
	// "hybrid" applies config file changes while running (restarting listeners when needed); "off" ignores them until restart. Default "hybrid".
	Mode string `json:"mode" enum:"hybrid,off"`
}

// Remote is gateway.remote.
type Remote struct {
	// WebSocket URL of the remote gateway, e.g. "wss://gw.example.com". Default "".
	URL string `json:"url"`
	// How to reach it: "direct" (connect to url) or "ssh" (tunnel). Default "" (direct).
	Transport string `json:"transport" enum:"direct,ssh"`
	// Token to send to the remote gateway; a string or a SecretRef. Default "".
	Token SecretInput `json:"token"`
	// Password to send to the remote gateway; a string or a SecretRef. Default "".
	Password SecretInput `json:"password"`
	// SHA-256 fingerprint of the remote gateway's TLS certificate to pin. Default "" (normal certificate checks).
	TLSFingerprint string `json:"tlsFingerprint"`
}

// Logging is the logging.* section.
type Logging struct {
	// Minimum level logged: trace, debug, info, warn, error, fatal or silent. Default "info".
	Level string `json:"level" enum:"trace,debug,info,warn,error,fatal,silent"`
	// Log file path. Default "" (the caller uses <state dir>/logs/gateway.log).
	File string `json:"file"`
	// Console output style: "pretty" (text for people) or "json" (one object a line). Default "pretty".
	ConsoleStyle string `json:"consoleStyle" enum:"pretty,json"`
}

// Models is the models.* section.
type Models struct {
	// How models.providers combines with the built-in providers (openai, anthropic and ollama, keyed from the environment): "merge" keeps them for models no entry configures, "replace" uses only models.providers. Default "merge".
	Mode string `json:"mode" enum:"merge,replace"`
	// Model providers by name; agents refer to a model as "<provider>/<model id>". Default {} (none).
	Providers map[string]ModelProvider `json:"providers"`
}

// ModelProvider is models.providers.<name>.
type ModelProvider struct {
	// Wire protocol: "openai-completions" (OpenAI and compatible servers such as Ollama, vLLM, llama.cpp, LM Studio, OpenRouter) or "anthropic-messages"; OpenClaw's other adapters are accepted but refused when used. Default "openai-completions".
	API string `json:"api" enum:"openai-completions,openai-responses,openai-chatgpt-responses,anthropic-messages,google-generative-ai,google-vertex,github-copilot,bedrock-converse-stream,ollama,pi-messages,azure-openai-responses"`
	// Base URL of the API, e.g. "http://127.0.0.1:11434/v1". Default: the vendor's public endpoint.
	BaseURL string `json:"baseUrl"`
	// API key: a string, "${ENV_VAR}" or a SecretRef. Default "" (none, for local servers).
	APIKey SecretInput `json:"apiKey"`
	// Extra HTTP headers sent with every request. Default {} (none).
	Headers map[string]string `json:"headers"`
	// Seconds one model call may take. Default 120.
	TimeoutSeconds int `json:"timeoutSeconds" min:"1"`
	// Most tokens a reply may use, unless the model entry says otherwise. Default 0 (the provider's default).
	MaxTokens int `json:"maxTokens" min:"1"`
	// The models this provider serves. Default [] (any model id is passed through).
	Models []ModelDefinition `json:"models"`
}

// ModelDefinition is one entry of models.providers.<name>.models.
type ModelDefinition struct {
	// Model id as the provider knows it. Default "" (required).
	ID string `json:"id"`
	// Display name. Default "" (the id).
	Name string `json:"name"`
	// Context window in tokens, used to decide when to compact. Default 0 (128000).
	ContextWindow int `json:"contextWindow" min:"1"`
	// Most tokens a reply may use. Default 0 (the provider's setting).
	MaxTokens int `json:"maxTokens" min:"1"`
	// What the model accepts: "text", and "image" if it may be sent images. A list without "image" keeps images from the model: the image tool skips it. Default [] (undeclared: images are sent).
	Input []string `json:"input"`
	// Whether the model reasons before it answers, so thinking levels apply; shown by models.list. Default false.
	Reasoning bool `json:"reasoning"`
	// Price in US dollars per million tokens, used to put a cost on each run's usage. Default: none (no cost shown).
	Cost ModelCost `json:"cost"`
}

// ModelCost is models.providers.<name>.models[].cost.
type ModelCost struct {
	// Dollars per million input tokens. Default 0.
	Input float64 `json:"input"`
	// Dollars per million output tokens. Default 0.
	Output float64 `json:"output"`
	// Dollars per million tokens read from the prompt cache. Default 0.
	CacheRead float64 `json:"cacheRead"`
	// Dollars per million tokens written to the prompt cache. Default 0.
	CacheWrite float64 `json:"cacheWrite"`
}

// Agents is the agents.* section.
type Agents struct {
	// Settings every agent inherits unless its entry overrides them. Default: see each key.
	Defaults AgentDefaults `json:"defaults"`
	// The agents by id (letters, digits, _ and -; compared in lower case). Default {} (one implicit agent, "main").
	Entries map[string]AgentEntry `json:"entries"`
	// "explicit" marks a multi-agent setup whose operations must name their agent. Default "" (a sole agent).
	Ownership string `json:"ownership" enum:"explicit"`
	// The older list form of agents, read as if written under entries, with a warning. Default [] (none).
	List []LegacyAgent `json:"list"`
}

// AgentDefaults is agents.defaults.
type AgentDefaults struct {
	// Model as "provider/model" or an alias from agents.defaults.models, or {primary, fallbacks}. Default: none (a message then says which key to set).
	Model ModelRef `json:"model"`
	// The model catalog by "provider/model": each entry's alias may stand for the model wherever a model is named (model, fallbacks, /model, sessions.patch). A non-empty map is also the allowlist: models.list offers only these, and /model or sessions.patch refuse any other model. Default {} (any model, no aliases).
	Models map[string]AgentModel `json:"models"`
	// Model the image tool analyses images with, as "provider/model" or {primary, fallbacks, timeoutMs}; it must accept image input. Default: none (the image tool then says to set it).
	ImageModel MediaModelRef `json:"imageModel"`
	// Workspace holding the agent's AGENTS.md, SOUL.md, IDENTITY.md, USER.md, BOOTSTRAP.md and MEMORY.md. Default "" (<state dir>/workspace).
	Workspace string `json:"workspace"`
	// Do not create the workspace's missing bootstrap files (AGENTS.md, SOUL.md, IDENTITY.md, USER.md, and BOOTSTRAP.md in a new workspace); files that exist are still read. Default false.
	SkipBootstrap bool `json:"skipBootstrap"`
	// Seconds one agent run may take in all. Default 172800 (48 hours).
	TimeoutSeconds int `json:"timeoutSeconds" min:"1"`
	// Limits on sub-agents. Default: see each key.
	Subagents SubagentDefaults `json:"subagents"`
	// Periodic turns in each agent's main session. Default: every 30 minutes, answers delivered nowhere.
	Heartbeat Heartbeat `json:"heartbeat"`
	// Agent runs at once across all sessions (each session still runs one turn at a time); further runs wait their turn. Sub-agent runs and a turn's messages to other sessions have their own limits. Default 4.
	MaxConcurrent int `json:"maxConcurrent" min:"1"`
	// Largest attachment, in megabytes, that a chat message may bring in (saved to the workspace's inbox/; a larger one is refused) and, for channel accounts that set no mediaMaxMb, that is sent out. Default 0 (20 received; the network's limit sent).
	MediaMaxMb int `json:"mediaMaxMb" min:"1"`
	// IANA time zone named in the system prompt (e.g. "America/Chicago"). Default "" (the gateway host's zone).
	UserTimezone string `json:"userTimezone"`
	// Characters of one workspace file (AGENTS.md, SOUL.md, ...) put in the system prompt before it is cut. Default 20000.
	BootstrapMaxChars int `json:"bootstrapMaxChars" min:"1"`
	// Characters of all workspace files together put in the system prompt; files past it are cut or left out. Default 60000.
	BootstrapTotalMaxChars int `json:"bootstrapTotalMaxChars" min:"1"`
	// When the workspace files go into the system prompt: "always"; "continuation-skip" leaves them out once the session has a finished answer (heartbeats and turns that compacted still get them); "never". Default "always".
	ContextInjection string `json:"contextInjection" enum:"always,continuation-skip,never"`
	// Optional workspace files not to create in a new workspace: any of "SOUL.md", "USER.md", "HEARTBEAT.md", "IDENTITY.md". Default [] (create them all).
	SkipOptionalBootstrapFiles []string `json:"skipOptionalBootstrapFiles"`
	// When a chat shows "typing…" during a turn: "never"; "instant" (as the turn starts); "thinking" or "message" (at the answer's first text). Default "" (instant in direct chats and when mentioned, message in group chats otherwise).
	TypingMode string `json:"typingMode" enum:"never,instant,thinking,message"`
	// Seconds between repeats of the typing indicator while a turn runs. Default 6.
	TypingIntervalSeconds int `json:"typingIntervalSeconds" min:"1"`
}

// AgentModel is one agents.defaults.models entry.
type AgentModel struct {
	// Short name for the model, e.g. "Sonnet"; matched without regard to case. Default "" (none).
	Alias string `json:"alias"`
}

// SubagentDefaults is agents.defaults.subagents.
type SubagentDefaults struct {
	// Sub-agent runs at once across the gateway. Default 8.
	MaxConcurrent int `json:"maxConcurrent" min:"1"`
	// How deep sub-agents may spawn sub-agents. Default 1.
	MaxSpawnDepth int `json:"maxSpawnDepth" min:"0"`
	// Live children one agent may have. Default 5.
	MaxChildrenPerAgent int `json:"maxChildrenPerAgent" min:"1"`
	// Agents a sub-agent may be spawned as; ["*"] allows any. Default [] (only the requester's own agent).
	AllowAgents []string `json:"allowAgents"`
	// Milliseconds to wait for a child's announcement. Default 120000.
	AnnounceTimeoutMs int `json:"announceTimeoutMs" min:"0"`
	// Minutes after which finished child sessions are archived. Default 60.
	ArchiveAfterMinutes int `json:"archiveAfterMinutes" min:"0"`
	// Seconds one sub-agent run may take. Default 0 (the agent timeout).
	RunTimeoutSeconds int `json:"runTimeoutSeconds" min:"0"`
	// Model for sub-agents. Default: none (the parent agent's model).
	Model ModelRef `json:"model"`
}

// AgentEntry is agents.entries.<id>.
type AgentEntry struct {
	// Display name. Default "" (the id).
	Name string `json:"name"`
	// What the agent is for, shown to other agents. Default "".
	Description string `json:"description"`
	// Workspace directory. Default "" (agents.defaults.workspace; other agents get <state dir>/workspace-<id>).
	Workspace string `json:"workspace"`
	// Model as "provider/model", or {primary, fallbacks}. Default: none (agents.defaults.model).
	Model ModelRef `json:"model"`
	// How the agent presents itself. Default: none.
	Identity AgentIdentity `json:"identity"`
	// Which agent answers when none is named. Default false (the first agent, or "main").
	Default bool `json:"default"`
	// Sub-agent settings for this agent. Default: agents.defaults.subagents.
	Subagents AgentSubagents `json:"subagents"`
	// Tool policy for this agent, applied after the global one; its profile replaces the global profile. Default: none.
	Tools ToolPolicy `json:"tools"`
	// How the agent behaves in group chats. Default: mentioned by native mentions only.
	GroupChat AgentGroupChat `json:"groupChat"`
	// Heartbeat settings for this agent; keys left unset come from agents.defaults.heartbeat. Default: the defaults.
	Heartbeat Heartbeat `json:"heartbeat"`
	// This agent's agents.defaults.bootstrapMaxChars. Default 0 (the defaults').
	BootstrapMaxChars int `json:"bootstrapMaxChars" min:"1"`
	// This agent's agents.defaults.bootstrapTotalMaxChars. Default 0 (the defaults').
	BootstrapTotalMaxChars int `json:"bootstrapTotalMaxChars" min:"1"`
	// This agent's agents.defaults.contextInjection. Default "" (the defaults').
	ContextInjection string `json:"contextInjection" enum:"always,continuation-skip,never"`
}

// AgentGroupChat is agents.entries.<id>.groupChat.
type AgentGroupChat struct {
	// Regular expressions that count as mentioning the agent in a group message (case-insensitive). Default [] (native mentions only).
	MentionPatterns []string `json:"mentionPatterns"`
}

// AgentIdentity is agents.entries.<id>.identity.
type AgentIdentity struct {
	// Name the agent uses for itself. Default "".
	Name string `json:"name"`
	// Emoji shown beside the agent. Default "".
	Emoji string `json:"emoji"`
	// Avatar: a workspace-relative path, an http(s) URL or a data URI. Default "".
	Avatar string `json:"avatar"`
	// Free-text persona theme. Default "".
	Theme string `json:"theme"`
}

// AgentSubagents is agents.entries.<id>.subagents.
type AgentSubagents struct {
	// Agents this agent may spawn as sub-agents; ["*"] allows any. Default [] (agents.defaults.subagents.allowAgents).
	AllowAgents []string `json:"allowAgents"`
	// Model for this agent's sub-agents. Default: none.
	Model ModelRef `json:"model"`
}

// LegacyAgent is one element of the older agents.list form: an id and
// every key an agents.entries.<id> entry takes.
type LegacyAgent struct {
	// Agent id. Default "" (required).
	ID string `json:"id"`
	AgentEntry
}

// Session is the session.* section.
type Session struct {
	// "per-sender" keeps a session per sender; "global" shares one per channel context. Default "per-sender".
	Scope string `json:"scope" enum:"per-sender,global"`
	// How direct messages map to sessions: main, per-peer, per-channel-peer or per-account-channel-peer. Default "main".
	DMScope string `json:"dmScope" enum:"main,per-peer,per-channel-peer,per-account-channel-peer"`
	// How group chats map to sessions: per-group or main. Default "per-group".
	GroupScope string `json:"groupScope" enum:"main,per-group"`
	// Name of each agent's main session (agent:<id>:<mainKey>). Default "main".
	MainKey string `json:"mainKey"`
	// When sessions start afresh on their own. Default: never (mode "none").
	Reset SessionReset `json:"reset"`
	// Messages that start a new session when they begin a message. Default ["/new", "/reset"].
	ResetTriggers []string `json:"resetTriggers"`
	// Canonical identities and the channel peer ids that are the same person, e.g. {"alice": ["telegram:123"]}. Default {} (none).
	IdentityLinks map[string][]string `json:"identityLinks"`
}

// SessionReset is session.reset.
type SessionReset struct {
	// none, daily (at atHour) or idle (after idleMinutes). Default "none".
	Mode string `json:"mode" enum:"none,daily,idle"`
	// Local hour (0-23) at which daily resets happen. Default 4.
	AtHour int `json:"atHour" min:"0" max:"23"`
	// Minutes of silence after which an idle reset happens. Default 0 (unset).
	IdleMinutes int `json:"idleMinutes" min:"1"`
}

// Tools is the tools.* section.
type Tools struct {
	// Base tool set: minimal, coding, messaging or full. Default "" (full).
	Profile string `json:"profile" enum:"minimal,coding,messaging,full"`
	// Only tools matching these names, globs or groups stay. Default: not set.
	Allow []string `json:"allow"`
	// Tools added to the profile without restricting others; not with allow. Default: not set.
	AlsoAllow []string `json:"alsoAllow"`
	// Tools removed whatever else allows them. Default: not set.
	Deny []string `json:"deny"`
	// Narrower policies for a provider ("openai") or one model ("openai/gpt-5.2"). Default {} (none).
	ByProvider map[string]ToolProviderRules `json:"byProvider"`
	// Narrower policies per sender, keyed channel:<ch>:<id>, id:<id>, e164:<phone>, username:<name>, name:<display> or "*". Default {} (none).
	ToolsBySender map[string]ToolRules `json:"toolsBySender"`
	// Tool policy inside a sandbox. Default: the sandbox defaults.
	Sandbox ToolSandbox `json:"sandbox"`
	// Tool policy for spawned sub-agents. Default: the sub-agent defaults.
	Subagents ToolSubagents `json:"subagents"`
	// Which sessions the session tools may reach. Default: all.
	Sessions ToolSessions `json:"sessions"`
	// The Tool Guard: rules deciding, per call, allow, deny or ask a person (this gateway's key; OpenClaw's own CLI does not know it). Default: allow, with dangerous shell commands raised to approval.
	Guard ToolGuard `json:"guard"`
	// How tools are shown to models (this gateway's key; OpenClaw's own CLI does not know it). Default: progressive.
	Disclosure ToolDisclosure `json:"disclosure"`
	// Declarative hooks around tool calls and model calls (this gateway's key; OpenClaw's own CLI does not know it). Default [] (none).
	Hooks []ToolHook `json:"hooks"`
	// Named database connections for SqlQueryTool and DatasourceTool (this gateway's key; OpenClaw's own CLI does not know it). Default [] (none).
	Datasources []ToolDatasource `json:"datasources"`
	// How exec runs shell commands and when it asks a person first. Default: allowlist mode asking on a miss (this gateway's safer default; OpenClaw's is mode "full").
	Exec ToolExec `json:"exec"`
	// Who may ask exec to run outside a sandbox (exec's elevated flag). Default: nobody.
	Elevated ToolElevated `json:"elevated"`
	// web_fetch and web_search. Default: both on.
	Web ToolWeb `json:"web"`
	// A Unicode TrueType font (.ttf) PdfRenderTool uses for text beyond Latin, such as CJK (this gateway's key; OpenClaw's own CLI does not know it). Default "" (the first CJK-capable .ttf found in the system's font folders, such as DroidSansFallbackFull.ttf from fonts-droid-fallback or a Noto Sans CJK .ttf, else NotoSans-Regular.ttf or DejaVuSans.ttf; a result says which characters the font lacks).
	PdfFont string `json:"pdfFont"`
}

// ToolExec is tools.exec.
type ToolExec struct {
	// The exec policy in one word: deny (nothing runs), allowlist (only allowlisted commands and safe bins, nothing asked), ask (allowlist, ask a person on a miss), auto (as ask: this gateway has no model reviewer, so a miss goes to a person) or full (everything runs, nothing asked). Overrides security and ask when set. Default "" (security and ask decide).
	Mode string `json:"mode" enum:"deny,allowlist,ask,auto,full"`
	// Older form of mode: deny, allowlist or full. The exec approvals file can only tighten it. Default "" (the exec approvals file's, else allowlist; OpenClaw's is full).
	Security string `json:"security" enum:"deny,allowlist,full"`
	// Older form of mode: when to ask a person, off, on-miss or always. The exec approvals file can only tighten it. Default "" (the exec approvals file's, else on-miss; OpenClaw's is off).
	Ask string `json:"ask" enum:"off,on-miss,always"`
	// Stdin-only filters that run in allowlist mode without an allowlist entry, when their arguments fit their profile; replaces the default list. awk, sed and jq never count. Default ["cut","uniq","head","tail","tr","wc"].
	SafeBins []string `json:"safeBins"`
	// Directories, besides /bin and /usr/bin, a safe bin may resolve into. Default [] (none).
	SafeBinTrustedDirs []string `json:"safeBinTrustedDirs"`
	// The arguments a safe bin accepts, by bin name; replaces the built-in profile of that bin. Default {} (the built-in profiles; a bin without one takes no arguments).
	SafeBinProfiles map[string]SafeBinProfile `json:"safeBinProfiles"`
	// Seconds a command may run before it is killed, unless the call sets timeoutSeconds; 0 means no limit. Default 1800.
	TimeoutSeconds int `json:"timeoutSeconds" min:"0"`
	// Milliseconds exec waits before moving a command to the background, unless the call sets yieldMs (10 to 120000). Default 10000.
	BackgroundMs int `json:"backgroundMs" min:"10" max:"120000"`
	// A background command's exit is queued as a system event for its session and wakes the agent. Default true.
	NotifyOnExit *bool `json:"notifyOnExit"`
	// Directories put in front of PATH for every command exec runs. Default [] (none).
	PathPrepend []string `json:"pathPrepend"`
	// Milliseconds a finished background command is kept for the process tool (60000 to 10800000). Default 1800000.
	CleanupMs int `json:"cleanupMs" min:"60000" max:"10800000"`
	// The apply_patch tool. Default: on, for every model, inside the workspace.
	ApplyPatch ToolApplyPatch `json:"applyPatch"`
}

// SafeBinProfile is one tools.exec.safeBinProfiles entry.
type SafeBinProfile struct {
	// Fewest operands (not options) the bin must get. Default 0.
	MinPositional int `json:"minPositional" min:"0"`
	// Most operands the bin may get. Default: no limit.
	MaxPositional Limit `json:"maxPositional"`
	// Options that take a value ("-n", "--lines"); any other option is refused. Default [] (none).
	AllowedValueFlags []string `json:"allowedValueFlags"`
	// Options refused, with their abbreviations, and named in the reason. Default [] (none).
	DeniedFlags []string `json:"deniedFlags"`
}

// ToolApplyPatch is tools.exec.applyPatch.
type ToolApplyPatch struct {
	// false removes the apply_patch tool. Default true.
	Enabled *bool `json:"enabled"`
	// Patches stay inside the workspace. This gateway keeps every file tool in the workspace, so false is refused. Default true.
	WorkspaceOnly *bool `json:"workspaceOnly"`
	// Only these models get apply_patch, as "model" or "provider/model". Default [] (every model).
	AllowModels []string `json:"allowModels"`
}

// ToolElevated is tools.elevated.
type ToolElevated struct {
	// Allows exec's elevated flag at all. Default false.
	Enabled bool `json:"enabled"`
	// Senders who may use it, per channel ("telegram": ["4242"]); "*" is anyone on that channel. Default {} (nobody).
	AllowFrom map[string][]string `json:"allowFrom"`
}

// ToolWeb is tools.web.
type ToolWeb struct {
	// The web_fetch tool. Default: on.
	Fetch ToolWebFetch `json:"fetch"`
	// The web_search tool. Default: on.
	Search ToolWebSearch `json:"search"`
}

// ToolWebFetch is tools.web.fetch.
type ToolWebFetch struct {
	// false removes web_fetch. Default true.
	Enabled *bool `json:"enabled"`
	// Most characters one call returns, whatever its maxChars asks. Default 20000.
	MaxCharsCap int `json:"maxCharsCap" min:"100"`
	// Most bytes of a response read (32000 to 10000000). Default 750000.
	MaxResponseBytes int `json:"maxResponseBytes" min:"32000" max:"10000000"`
	// Seconds one fetch may take, redirects included. Default 30.
	TimeoutSeconds int `json:"timeoutSeconds" min:"1"`
	// Minutes a fetched page is reused; 0 turns the cache off. Default 15.
	CacheTTLMinutes int `json:"cacheTtlMinutes" min:"0"`
	// User-Agent sent with each request. Default "" (this gateway's own).
	UserAgent string `json:"userAgent"`
	// Characters a call returns when it names no maxChars (at least 100, at most maxCharsCap). Default 20000.
	MaxChars int `json:"maxChars" min:"100"`
	// Redirects one fetch follows; 0 follows none. Default 3.
	MaxRedirects int `json:"maxRedirects" min:"0"`
	// Extra request headers sent with every fetch, by name; each value is treated as a secret. Accept, Accept-Language, User-Agent, hop-by-hop names and unusable entries are dropped; they are not kept across a redirect to another origin. Default {} (none).
	Headers map[string]string `json:"headers"`
	// Which internal destinations web_fetch may reach. Default: none (public addresses only).
	SSRFPolicy ToolWebFetchSSRFPolicy `json:"ssrfPolicy"`
}

// ToolWebFetchSSRFPolicy is tools.web.fetch.ssrfPolicy.
type ToolWebFetchSSRFPolicy struct {
	// Let fetches reach private, loopback and link-local addresses. Default false.
	DangerouslyAllowPrivateNetwork bool `json:"dangerouslyAllowPrivateNetwork"`
	// Host names (exact) that may resolve to private addresses; loopback, link-local and cloud metadata stay refused for them. Default [] (none).
	AllowedHostnames []string `json:"allowedHostnames"`
	// Host names refused before DNS and before any allow rule, on every redirect too: "tracker.example" exactly, "*.ads.example" its subdomains (not the apex). Default [] (none).
	BlockedHostnames []string `json:"blockedHostnames"`
	// Let fetches reach 198.18.0.0/15, which fake-IP proxies hand out. Default false.
	AllowRfc2544BenchmarkRange bool `json:"allowRfc2544BenchmarkRange"`
	// Let fetches reach fc00::/7 (IPv6 unique local), which some fake-IP proxies hand out. Default false.
	AllowIPv6UniqueLocalRange bool `json:"allowIpv6UniqueLocalRange"`
}

// ToolWebSearch is tools.web.search.
type ToolWebSearch struct {
	// false removes web_search. Default true.
	Enabled *bool `json:"enabled"`
	// The one provider to use: brave, tavily, serper, searxng or duckduckgo. OpenClaw's other providers (exa, firecrawl, gemini, grok, kimi, minimax, ollama, parallel, perplexity) are accepted but not in effect here: the chain is used instead. Default "" (each in that order, the next when one fails).
	Provider string `json:"provider" enum:"brave,tavily,serper,searxng,duckduckgo,exa,firecrawl,gemini,grok,kimi,minimax,ollama,parallel,perplexity"`
	// Results a search returns when the call does not say (1 to 10). Default 5.
	MaxResults int `json:"maxResults" min:"1" max:"10"`
	// Seconds one provider may take. Default 30.
	TimeoutSeconds int `json:"timeoutSeconds" min:"1"`
	// Minutes results are reused for the same query; 0 turns the cache off. Default 15.
	CacheTTLMinutes int `json:"cacheTtlMinutes" min:"0"`
}

// ToolSessions is tools.sessions.
type ToolSessions struct {
	// Which sessions sessions_list, sessions_history, sessions_send and session_status reach: self (this session), tree (this one and the sub-agents it spawned; from the agent's main session, all of the agent's), agent (all of this agent's) or all. A turn that does not act for the owner (commands.ownerAllowFrom, or operator.admin) never reaches past its own tree, whatever this says (this gateway's rule). Default "all".
	Visibility string `json:"visibility" enum:"self,tree,agent,all"`
}

// ToolDatasource is one tools.datasources entry.
type ToolDatasource struct {
	// Name the model uses to pick it, e.g. "sales". Default "" (required).
	Name string `json:"name"`
	// Database driver; only "sqlite" is built in. Default "sqlite".
	Driver string `json:"driver" enum:"sqlite"`
	// Where the database is: for sqlite a file path, relative to the agent's workspace unless absolute. Default "" (required).
	DSN string `json:"dsn"`
	// What it holds, shown to the model by DatasourceTool. Default "".
	Description string `json:"description"`
	// false lets statements write, each write after a person approves it. Default true.
	ReadOnly *bool `json:"readOnly"`
}

// ToolHook is one tools.hooks entry.
type ToolHook struct {
	// When it runs: before_tool, after_tool, on_error, before_llm or after_llm. Default "" (required).
	On string `json:"on" enum:"before_tool,after_tool,on_error,before_llm,after_llm"`
	// Tool name or glob it applies to. Default "" (every tool).
	Tool string `json:"tool"`
	// Regular expression over the arguments (before_tool), the result (after_tool, on_error) or the model's answer (after_llm). Default "" (always).
	Pattern string `json:"pattern"`
	// redact (replace what the pattern matches), block (stop the call or withhold the result), or inject (before_llm). Default "" (required).
	Action string `json:"action" enum:"redact,block,inject"`
	// Text that replaces redacted matches. Default "[REDACTED]".
	Replacement string `json:"replacement"`
	// What the model reads when a call is blocked. Default: a short notice.
	Message string `json:"message"`
	// Text added to the system prompt by before_llm. Default "".
	Text string `json:"text"`
}

// ToolDisclosure is tools.disclosure.
type ToolDisclosure struct {
	// "progressive" shows extension-tier tools only as a directory behind enable_tool; "legacy" shows every tool in full. Default "progressive".
	Mode string `json:"mode" enum:"progressive,legacy"`
}

// ToolPolicy is agents.entries.<id>.tools.
type ToolPolicy struct {
	// Base tool set: minimal, coding, messaging or full. Default "" (the global profile).
	Profile string `json:"profile" enum:"minimal,coding,messaging,full"`
	// Only tools matching these stay. Default: not set.
	Allow []string `json:"allow"`
	// Tools added to the profile. Default: not set.
	AlsoAllow []string `json:"alsoAllow"`
	// Tools removed. Default: not set.
	Deny []string `json:"deny"`
	// Narrower policies per provider or model. Default {} (none).
	ByProvider map[string]ToolProviderRules `json:"byProvider"`
	// Narrower policies per sender. Default {} (none).
	ToolsBySender map[string]ToolRules `json:"toolsBySender"`
	// Tool policy inside a sandbox for this agent. Default: the global one.
	Sandbox ToolSandbox `json:"sandbox"`
}

// ToolProviderRules is one tools.byProvider entry.
type ToolProviderRules struct {
	// Profile applied after the main one; it can only narrow. Default "".
	Profile string `json:"profile" enum:"minimal,coding,messaging,full"`
	// Only tools matching these stay. Default: not set.
	Allow []string `json:"allow"`
	// Tools added. Default: not set.
	AlsoAllow []string `json:"alsoAllow"`
	// Tools removed. Default: not set.
	Deny []string `json:"deny"`
}

// ToolRules is an allow/alsoAllow/deny triple.
type ToolRules struct {
	// Only tools matching these stay. Default: not set.
	Allow []string `json:"allow"`
	// Tools added. Default: not set.
	AlsoAllow []string `json:"alsoAllow"`
	// Tools removed. Default: not set.
	Deny []string `json:"deny"`
}

// ToolSandbox is tools.sandbox.
type ToolSandbox struct {
	// The rules inside a sandbox. Default: the sandbox defaults.
	Tools ToolRules `json:"tools"`
}

// ToolSubagents is tools.subagents.
type ToolSubagents struct {
	// The rules for sub-agents. Default: the sub-agent defaults.
	Tools ToolRules `json:"tools"`
}

// ToolGuard is tools.guard.
type ToolGuard struct {
	// false turns the rules and defaultPolicy off: the guard then lets every call through, except that dangerous shell commands and changes to skills still wait for a person. Default true.
	Enabled *bool `json:"enabled"`
	// What happens when no rule matches: allow, deny or require_approval. Default "allow".
	DefaultPolicy string `json:"defaultPolicy" enum:"allow,deny,require_approval"`
	// Rules checked in order; the first match decides. Default [] (none).
	Rules []GuardRule `json:"rules"`
	// Tools besides exec whose "command" argument is a shell command: checked for dangerous patterns, and what an argPattern sees. Default [] (none).
	ShellTools []string `json:"shellTools"`
	// Seconds to wait for a person before an approval counts as denied. Default 600.
	ApprovalTimeoutSeconds int `json:"approvalTimeoutSeconds" min:"1"`
}

// GuardRule is one tools.guard.rules entry.
type GuardRule struct {
	// Tool name, glob or group the rule is for. Default "" (required).
	Tool string `json:"tool"`
	// Regular expression over what the call acts on: a shell tool's command line (for an allow, every command in it, with no substitution or file redirection), the path for read, write and edit, the arguments as compact JSON for other tools. Default "" (any arguments).
	ArgPattern string `json:"argPattern"`
	// allow, deny or require_approval. Default "" (required).
	Action string `json:"action" enum:"allow,deny,require_approval"`
}

// Channels is the channels.* section.
type Channels struct {
	// Settings every channel inherits. Default: each key at its own default.
	Defaults ChannelDefaults `json:"defaults"`
	// The Telegram bot (Bot API, long polling or webhook). Default: not configured.
	Telegram TelegramChannel `json:"telegram"`
	// The Discord bot (Gateway WebSocket and REST). Default: not configured.
	Discord DiscordChannel `json:"discord"`
	// The Slack app (Socket Mode, or HTTP Events with a signing secret). Default: not configured.
	Slack SlackChannel `json:"slack"`
	// WhatsApp through a linked device (WhatsApp Web multi-device). Default: not configured.
	Whatsapp WhatsappChannel `json:"whatsapp"`
}

// ChannelDefaults is channels.defaults.
type ChannelDefaults struct {
	// Group policy of channels that set none: allowlist, open or disabled. Default "allowlist".
	GroupPolicy string `json:"groupPolicy" enum:"allowlist,open,disabled"`
}

// TelegramChannel is channels.telegram: the default account's settings,
// which named accounts inherit key by key.
type TelegramChannel struct {
	TelegramAccount
	// Named extra bots, each overriding the keys it sets. Default {} (one account, "default").
	Accounts map[string]TelegramAccount `json:"accounts"`
	// Account used when a send names none. Default "default".
	DefaultAccount string `json:"defaultAccount"`

	present bool // the block is in the file
}

// ChannelCommon holds the keys every chat network has, for the channel
// and for each of its accounts.
type ChannelCommon struct {
	// Whether the channel (or account) runs. Default true.
	Enabled *bool `json:"enabled"`
	// Who may direct-message the bot: pairing, allowlist, open or disabled. Default "pairing".
	DMPolicy string `json:"dmPolicy" enum:"pairing,allowlist,open,disabled"`
	// Senders allowed to DM the bot by the network's stable id (Telegram, Discord and Slack user ids, WhatsApp numbers in E.164), optionally prefixed with the channel ("telegram:123"); "*" means anyone. Default [] (none).
	AllowFrom IDList `json:"allowFrom"`
	// Which groups the bot answers in: allowlist, open or disabled. Default channels.defaults.groupPolicy ("allowlist").
	GroupPolicy string `json:"groupPolicy" enum:"allowlist,open,disabled"`
	// Either an array of regular expressions that count as mentioning the bot in groups, in place of the agent's groupChat.mentionPatterns (ours), or OpenClaw's object {mode, allowIn, denyIn} scoping the agent's patterns by chat id: mode "allow" applies them except in denyIn, "deny" only in allowIn; native mentions always count. Default: native mentions and the agent's patterns everywhere.
	MentionPatterns ChannelMentionPatterns `json:"mentionPatterns"`
	// Longest message sent in one piece; longer replies are split. Default: the network's (Discord 2000, the others 4000).
	TextChunkLimit int `json:"textChunkLimit" min:"1"`
	// How replies are shaped while they are written. Default: each key at its own default.
	Streaming ChannelStreaming `json:"streaming"`
	// Which reply messages quote the message they answer: off, first, all or batched. Default "first".
	ReplyToMode string `json:"replyToMode" enum:"off,first,all,batched"`
	// Largest attachment sent or received, in megabytes. Default: the network's (Telegram 100, Discord 8, Slack 20, WhatsApp 50).
	MediaMaxMb int `json:"mediaMaxMb" min:"1"`
	// Text put in front of every reply. Default "".
	ResponsePrefix string `json:"responsePrefix"`
}

// TelegramAccount is the settings of one Telegram bot: channels.telegram
// itself, or channels.telegram.accounts.<id> (unset keys inherited).
type TelegramAccount struct {
	ChannelCommon
	// Display name of the account. Default "".
	Name string `json:"name"`
	// Bot token from @BotFather; a string or a SecretRef. Default "" (tokenFile, then TELEGRAM_BOT_TOKEN for the default account).
	BotToken SecretInput `json:"botToken"`
	// File holding the bot token. Default "".
	TokenFile string `json:"tokenFile"`
	// Senders allowed to talk to the bot in groups. Default [] (allowFrom).
	GroupAllowFrom IDList `json:"groupAllowFrom"`
	// Per-group settings by chat id, or "*" for every group. Default {} (none).
	Groups map[string]TelegramGroup `json:"groups"`
	// Bot API base URL. Default "https://api.telegram.org".
	APIRoot string `json:"apiRoot"`
	// HTTP(S) proxy for Bot API calls. Default "" (none).
	Proxy string `json:"proxy"`
	// Public URL Telegram posts updates to; setting it switches from long polling to webhook mode. Default "" (long polling).
	WebhookURL string `json:"webhookUrl"`
	// Secret Telegram sends with each webhook call; required in webhook mode. Default "".
	WebhookSecret SecretInput `json:"webhookSecret"`
	// Path on the gateway's port where webhook calls arrive. Default "/telegram/webhook/<account>".
	WebhookPath string `json:"webhookPath"`
}

// TelegramGroup is channels.telegram.groups.<chatId>.
type TelegramGroup struct {
	// Whether the bot answers in this group. Default true.
	Enabled *bool `json:"enabled"`
	// Whether the bot answers only when mentioned. Default true.
	RequireMention *bool `json:"requireMention"`
	// Senders allowed in this group. Default [] (groupAllowFrom).
	AllowFrom IDList `json:"allowFrom"`
	// Extra system prompt for this group. Default "".
	SystemPrompt string `json:"systemPrompt"`
	// Per-topic settings of a forum group by topic id. Default {} (none).
	Topics map[string]TelegramTopic `json:"topics"`
}

// TelegramTopic is channels.telegram.groups.<chatId>.topics.<topicId>.
type TelegramTopic struct {
	// Whether the bot answers in this topic. Default true.
	Enabled *bool `json:"enabled"`
	// Whether the bot answers only when mentioned. Default: the group's.
	RequireMention *bool `json:"requireMention"`
	// Senders allowed in this topic. Default [] (the group's).
	AllowFrom IDList `json:"allowFrom"`
	// Extra system prompt for this topic. Default "".
	SystemPrompt string `json:"systemPrompt"`
	// Agent that answers in this topic. Default "" (bindings decide).
	AgentID string `json:"agentId"`
}

// ChannelStreaming is channels.<ch>.streaming.
type ChannelStreaming struct {
	// Where long replies split: at the length limit ("length") or at every paragraph ("newline"). Default "length".
	ChunkMode string `json:"chunkMode" enum:"length,newline"`
}

// Binding is one bindings entry: chats matching match go to agentId.
type Binding struct {
	// "route" (the default) sends matching chats to the agent; "acp" (OpenClaw's ACP conversation binding) is accepted but not in effect here. Default "route".
	Type string `json:"type" enum:"route,acp"`
	// Agent that answers. Default "" (required).
	AgentID string `json:"agentId"`
	// A note for people; ignored. Default "".
	Comment string `json:"comment"`
	// Which chats the binding takes. Default: a channel is required.
	Match BindingMatch `json:"match"`
	// Session scoping for the chats this binding takes. Default: session.dmScope and session.groupScope.
	Session BindingSession `json:"session"`
}

// BindingMatch is bindings[].match; every key given must match.
type BindingMatch struct {
	// Channel id, e.g. "telegram". Default "" (required).
	Channel string `json:"channel"`
	// Account id, or "*" for any account. Default "" (the default account only).
	AccountID string `json:"accountId"`
	// One chat, or "*" for every chat of a kind. Default: any chat.
	Peer BindingPeer `json:"peer"`
	// Discord server id. Default "".
	GuildID string `json:"guildId"`
	// Slack workspace id. Default "".
	TeamID string `json:"teamId"`
	// Discord role ids, any of which the sender must hold. Default [] (any).
	Roles []string `json:"roles"`
}

// BindingPeer is bindings[].match.peer.
type BindingPeer struct {
	// direct, group or channel ("dm" is read as direct). Default "".
	Kind string `json:"kind" enum:"direct,dm,group,channel"`
	// The chat's id, or "*". Default "".
	ID string `json:"id"`
}

// BindingSession is bindings[].session.
type BindingSession struct {
	// How direct messages map to sessions. Default: session.dmScope.
	DMScope string `json:"dmScope" enum:"main,per-peer,per-channel-peer,per-account-channel-peer"`
	// How group chats map to sessions. Default: session.groupScope.
	GroupScope string `json:"groupScope" enum:"main,per-group"`
}

// DiscordChannel is channels.discord.
type DiscordChannel struct {
	DiscordAccount
	// Named extra bots, each overriding the keys it sets. Default {} (one account, "default").
	Accounts map[string]DiscordAccount `json:"accounts"`
	// Account used when a send names none. Default "default".
	DefaultAccount string `json:"defaultAccount"`

	present bool
}

// DiscordAccount is one Discord bot's settings.
type DiscordAccount struct {
	ChannelCommon
	// Display name of the account. Default "".
	Name string `json:"name"`
	// Bot token; a string or a SecretRef. Default "" (DISCORD_BOT_TOKEN for the default account).
	Token SecretInput `json:"token"`
	// Whether messages from other bots are answered: true, false, or "mentions" (only group messages that mention this bot; direct messages follow dmPolicy). Default false.
	AllowBots BotAdmission `json:"allowBots"`
	// Most lines in one message; longer replies are split. Default 17.
	MaxLinesPerMessage int `json:"maxLinesPerMessage" min:"1"`
	// Direct-message settings. Default: DMs follow dmPolicy.
	DM ChannelDM `json:"dm"`
	// Servers the bot answers in, by guild id or "*". Default {} (none under groupPolicy "allowlist").
	Guilds map[string]DiscordGuild `json:"guilds"`
}

// ChannelDM is channels.<discord|slack>.dm.
type ChannelDM struct {
	// Whether direct messages are taken at all. Default true.
	Enabled *bool `json:"enabled"`
}

// DiscordGuild is channels.discord.guilds.<guildId>.
type DiscordGuild struct {
	// Whether the bot answers only when mentioned. Default true.
	RequireMention *bool `json:"requireMention"`
	// User ids allowed to talk to the bot in this server. Default [] (anyone the policy lets in).
	Users IDList `json:"users"`
	// Channels by id, or "*", with their own settings. Default {} (every channel of the server).
	Channels map[string]DiscordGuildChannel `json:"channels"`
}

// DiscordGuildChannel is channels.discord.guilds.<guildId>.channels.<channelId>.
type DiscordGuildChannel struct {
	// Whether the bot answers in this channel. Default true.
	Enabled *bool `json:"enabled"`
	// Whether the bot answers only when mentioned. Default: the server's.
	RequireMention *bool `json:"requireMention"`
	// User ids allowed in this channel. Default [] (the server's).
	Users IDList `json:"users"`
	// Extra system prompt for this channel. Default "".
	SystemPrompt string `json:"systemPrompt"`
}

// SlackChannel is channels.slack.
type SlackChannel struct {
	SlackAccount
	// Named extra apps, each overriding the keys it sets. Default {} (one account, "default").
	Accounts map[string]SlackAccount `json:"accounts"`
	// Account used when a send names none. Default "default".
	DefaultAccount string `json:"defaultAccount"`

	present bool
}

// SlackAccount is one Slack app's settings.
type SlackAccount struct {
	ChannelCommon
	// Display name of the account. Default "".
	Name string `json:"name"`
	// Bot token (xoxb-…); a string or a SecretRef. Default "" (SLACK_BOT_TOKEN for the default account).
	BotToken SecretInput `json:"botToken"`
	// App-level token (xapp-…) for Socket Mode. Default "" (SLACK_APP_TOKEN for the default account).
	AppToken SecretInput `json:"appToken"`
	// Signing secret for HTTP Events mode; requests are verified with it before they are read. Default "".
	SigningSecret SecretInput `json:"signingSecret"`
	// How events arrive: "socket" (Socket Mode) or "http" (Events API to webhookPath); OpenClaw's "relay" (a router forwards events) is accepted but not in effect here. Default "socket".
	Mode string `json:"mode" enum:"socket,http,relay"`
	// Path on the gateway's port for HTTP Events mode. Default "/slack/events/<account>".
	WebhookPath string `json:"webhookPath"`
	// Whether the bot answers in channels only when mentioned. Default true.
	RequireMention *bool `json:"requireMention"`
	// Whether messages from other bots are answered: true, false, or "mentions" (only group messages that mention this bot; direct messages follow dmPolicy). Default false.
	AllowBots BotAdmission `json:"allowBots"`
	// Channels by id, or "*", with their own settings. Default {} (none under groupPolicy "allowlist").
	Channels map[string]SlackChannelEntry `json:"channels"`
	// Direct-message settings. Default: DMs follow dmPolicy.
	DM ChannelDM `json:"dm"`
	// The slash command people type to talk to the agent. Default: /openclaw.
	SlashCommand SlackSlashCommand `json:"slashCommand"`
}

// SlackChannelEntry is channels.slack.channels.<channelId>.
type SlackChannelEntry struct {
	// Whether the bot answers in this channel. Default true.
	Enabled *bool `json:"enabled"`
	// Whether the bot answers only when mentioned. Default: channels.slack.requireMention.
	RequireMention *bool `json:"requireMention"`
	// User ids allowed in this channel. Default [] (anyone the policy lets in).
	Users IDList `json:"users"`
	// Extra system prompt for this channel. Default "".
	SystemPrompt string `json:"systemPrompt"`
}

// SlackSlashCommand is channels.slack.slashCommand.
type SlackSlashCommand struct {
	// Whether the slash command is taken. Default true.
	Enabled *bool `json:"enabled"`
	// The command, with its slash. Default "/openclaw".
	Name string `json:"name"`
}

// WhatsappChannel is channels.whatsapp.
type WhatsappChannel struct {
	WhatsappAccount
	// Named extra linked devices, each overriding the keys it sets. Default {} (one account, "default").
	Accounts map[string]WhatsappAccount `json:"accounts"`
	// Account used when a send names none. Default "default".
	DefaultAccount string `json:"defaultAccount"`

	present bool
}

// WhatsappAccount is one linked WhatsApp device's settings.
type WhatsappAccount struct {
	ChannelCommon
	// Senders allowed to talk to the bot in groups, in E.164. Default [] (allowFrom).
	GroupAllowFrom IDList `json:"groupAllowFrom"`
	// Groups by JID, or "*", with their own settings. Default {} (none under groupPolicy "allowlist").
	Groups map[string]WhatsappGroup `json:"groups"`
	// Whether messages the agent handled are marked read. Default true.
	SendReadReceipts *bool `json:"sendReadReceipts"`
}

// WhatsappGroup is channels.whatsapp.groups.<jid>.
type WhatsappGroup struct {
	// Whether the bot answers only when mentioned. Default true.
	RequireMention *bool `json:"requireMention"`
	// Extra system prompt for this group. Default "".
	SystemPrompt string `json:"systemPrompt"`
}
