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
	// What the setup commands recorded of their last run, and the choices onboarding keeps. Default: nothing recorded.
	Wizard Wizard `json:"wizard"`
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
	// Messages configures how channel messages are acknowledged, queued and prefixed. Default: each key at its own default.
	Messages Messages `json:"messages"`
	// Broadcast runs several agents on one chat's messages: keys are chat (peer) ids, values the agent ids, plus "strategy". Default {} (one agent per chat).
	Broadcast Broadcast `json:"broadcast"`
	// Channels configures the chat networks agents talk on; a channel starts when its block is present. Default: none.
	Channels Channels `json:"channels"`
	// Bindings route inbound chats to agents by channel, account and peer; the most specific match wins. Default [] (the default agent answers).
	Bindings []Binding `json:"bindings"`
	// Cron configures the scheduler that runs jobs and heartbeats. Default: enabled.
	Cron Cron `json:"cron"`
	// Hooks configures the HTTP webhook ingress (POST <path>/wake, <path>/agent, mapped paths) by which outside services wake an agent or give it a turn. Default: off.
	Hooks Hooks `json:"hooks"`
	// Browser configures the gateway-managed Chromium the browser tool drives. Default: enabled, headless, profile "openclaw".
	Browser Browser `json:"browser"`
	// MCP configures the Model Context Protocol servers whose tools agents may use. Default: none.
	MCP MCP `json:"mcp"`
	// Plugins turns optional plugin tools on and configures them. Default: none enabled.
	Plugins Plugins `json:"plugins"`
	// Skills configures where skill packages (folders with a SKILL.md) are found. Default: the workspace's skills/ and <state dir>/skills.
	Skills Skills `json:"skills"`
	// AccessGroups are named sender lists that channel allowlists (allowFrom, groupAllowFrom, a group's allowFrom) name as "accessGroup:<name>"; a group grants nothing unless an allowlist names it, and a name with no group lets nobody in. Default {} (none).
	AccessGroups map[string]AccessGroup `json:"accessGroups"`
	// Secrets configures the providers SecretRefs {source, provider, id} are resolved through. Default: the built-in env provider only.
	Secrets Secrets `json:"secrets"`
	// Env holds environment variables for the gateway, used only where the process environment lacks them. Default: none.
	Env EnvSection `json:"env"`
	// Approvals forwards approval prompts to chats besides the one that asked. Default: not forwarded (the asking chat still gets its owner-only prompt).
	Approvals Approvals `json:"approvals"`
	// TTS speaks replies as voice notes (Telegram, WhatsApp, Discord) through OpenAI or ElevenLabs. Default: off.
	TTS TTS `json:"tts"`
	// Memory configures memory search; here only its embedding model is read, by wiki_semantic_search. Default: no embedding model.
	Memory Memory `json:"memory"`
	// Store says where the gateway keeps its state: the SQLite file in the state directory, or a PostgreSQL database that several gateways share, one active and the others standing by. Not an OpenClaw key. Default: SQLite.
	Store Store `json:"store"`
}

// Store is store.* (ours): OpenClaw keeps its state in SQLite files only.
type Store struct {
	// The database engine: "sqlite" (one file in the state directory) or "postgres" (the database at url). Default "sqlite".
	Driver string `json:"driver" enum:"sqlite,postgres"`
	// The PostgreSQL database, as a postgres:// URL or a key=value DSN; ${VAR} takes it from the environment, which keeps the password out of the file. Default "" (required for postgres).
	URL string `json:"url"`
	// How often a standby gateway tries to become the active one, and how often the active one renews its lease. Default "1s".
	LeaseInterval string `json:"leaseInterval"`
	// How long the active gateway's lease stays good without a renewal; past it a standby ends the stalled holder's database session and takes over. Default "10s".
	LeaseTimeout string `json:"leaseTimeout"`
}

// Memory is the memory.* section.
type Memory struct {
	// The embedding model semantic search uses. Default: none (wiki_semantic_search ranks by full text and says so).
	Search MemorySearch `json:"search"`
}

// MemorySearch is memory.search.
type MemorySearch struct {
	// Whether embeddings are used at all; false makes wiki_semantic_search rank by full text. Default true.
	Enabled *bool `json:"enabled"`
	// Embedding provider: "openai" means any OpenAI-compatible POST /embeddings endpoint, the one kind used here. Default "" (none).
	Provider string `json:"provider"`
	// Embedding model id, e.g. "text-embedding-3-small". Default "" (none: no embeddings).
	Model string `json:"model"`
	// Where the embeddings endpoint is. Default: models.providers.openai's baseUrl and apiKey when provider is "openai".
	Remote MemorySearchRemote `json:"remote"`
}

// MemorySearchRemote is memory.search.remote.
type MemorySearchRemote struct {
	// API root including its version, e.g. "http://127.0.0.1:8080/v1"; /embeddings is appended. Default "" (see remote).
	BaseURL string `json:"baseUrl"`
	// API key sent as a bearer token: a string, "${ENV_VAR}" or a SecretRef. Default "" (none).
	APIKey SecretInput `json:"apiKey"`
	// Extra HTTP headers sent with every embeddings request. Default {} (none).
	Headers map[string]string `json:"headers"`
}

// AccessGroup is accessGroups.<name>.
type AccessGroup struct {
	// "message.senders" (the members below); "discord.channelAudience" (who can view a Discord channel) is accepted but not in effect here: it lets nobody in. Default "" (required).
	Type string `json:"type" enum:"message.senders,discord.channelAudience"`
	// Sender ids by channel ("telegram", "discord", ...), and "*" for ids checked on every channel; each entry is matched as that channel's allowFrom entries are (stable ids, never display names; "*" is not expanded). Default {} (nobody).
	Members map[string][]string `json:"members"`
	// The Discord guild of a discord.channelAudience group (not in effect here). Default "".
	GuildID string `json:"guildId"`
	// The Discord channel of a discord.channelAudience group (not in effect here). Default "".
	ChannelID string `json:"channelId"`
	// Which members of that channel count (not in effect here). Default "".
	Membership string `json:"membership"`
}

// Secrets is the secrets.* section.
type Secrets struct {
	// Secret providers by alias (lower case letters, digits, _ and -): a SecretRef names one by its provider. Default {} (env refs use the built-in env provider; file and exec refs need an entry).
	Providers map[string]SecretProvider `json:"providers"`
	// The alias each source's refs use without a provider entry of their own. Default: "default".
	Defaults SecretDefaults `json:"defaults"`
}

// SecretDefaults is secrets.defaults.
type SecretDefaults struct {
	// Alias of the built-in env provider: env refs naming it read the environment unless secrets.providers has an env entry by that name. Default "default".
	Env string `json:"env"`
}

// SecretProvider is secrets.providers.<alias>.
type SecretProvider struct {
	// Where the secrets live: "env" (environment variables), "file" (a private file on this machine) or "exec" (a resolver program run without a shell); "store" is accepted but not in effect here. Default "" (required).
	Source string `json:"source" enum:"env,file,exec,store"`
	// env: the only variable names refs may read; [] denies every name. Default: absent (any name).
	Allowlist []string `json:"allowlist"`
	// file: path of the secrets file ("~" is the home directory); it must be a regular file, not a symlink, with one link, owned by the gateway's user and readable by it alone. Default "" (required for file).
	Path string `json:"path"`
	// file: "json" reads an object and resolves each ref id as a JSON pointer ("/providers/openai/apiKey"); "singleValue" returns the whole file (one trailing newline dropped) for ref id "value". Default "json".
	Mode string `json:"mode" enum:"json,singleValue"`
	// file: most bytes read from the file. Default 1048576.
	MaxBytes int `json:"maxBytes" min:"1"`
	// file and exec: milliseconds the read or the program may take. Default 5000.
	TimeoutMs int `json:"timeoutMs" min:"1"`
	// exec: absolute path of the resolver program, run directly (never through a shell); it must not be a symlink, must be owned by the gateway's user and writable by it alone. Default "" (required for exec).
	Command string `json:"command"`
	// exec: arguments passed to the program as they are. Default [] (none).
	Args []string `json:"args"`
	// exec: names of the gateway's environment variables the program gets; it gets no others but env. Default [] (none).
	PassEnv []string `json:"passEnv"`
	// exec: environment variables set for the program. Default {} (none).
	Env map[string]string `json:"env"`
	// exec: folders the command must lie in. Default [] (anywhere).
	TrustedDirs []string `json:"trustedDirs"`
	// exec: milliseconds the program may go without writing before it is stopped. Default: timeoutMs.
	NoOutputTimeoutMs int `json:"noOutputTimeoutMs" min:"1"`
	// exec: most bytes of output read; more stops the program and fails. Default 1048576.
	MaxOutputBytes int `json:"maxOutputBytes" min:"1"`
	// exec: whether the program must answer with the JSON protocol; false accepts plain stdout as the value when one id is asked for. Default true.
	JSONOnly *bool `json:"jsonOnly"`
}

// ModelPolicy is agents.defaults.modelPolicy and agents.entries.<id>.modelPolicy.
type ModelPolicy struct {
	// Models that may be chosen: "provider/model" refs, aliases from agents.defaults.models, and "provider/*" prefixes; [] allows any model. Default: absent (no policy at this level).
	Allow []string `json:"allow"`
}

// EnvSection is the env.* section.
type EnvSection struct {
	// Variables by name, used where the gateway's environment lacks them: in ${VAR}, env SecretRefs, the built-in providers' keys and the programs the gateway runs. Default {} (none).
	Vars map[string]string `json:"vars"`
}

// Approvals is the approvals.* section.
type Approvals struct {
	// Forwarding of exec approval prompts (the exec tool's, on the gateway or a node). Default: off.
	Exec ApprovalForwarding `json:"exec"`
	// Forwarding of plugin approval prompts (every other tool call a person must allow: Tool Guard rules, the gateway tool, ...). Independent of exec. Default: off.
	Plugin ApprovalForwarding `json:"plugin"`
}

// ApprovalForwarding is approvals.exec or approvals.plugin. A forwarded
// prompt carries the same text and buttons as the asking chat's; only
// the owner (commands.ownerAllowFrom) or a channel's execApprovals
// approvers can answer it, wherever it is shown.
type ApprovalForwarding struct {
	// Whether prompts are forwarded at all. Default false.
	Enabled bool `json:"enabled"`
	// Where prompts go: "session" (the chat the request came from), "targets" (only the targets) or "both". Default "session".
	Mode string `json:"mode" enum:"session,targets,both"`
	// Forward only requests of these agent ids (taken from the session key when the request names none). Default [] (every agent).
	AgentFilter []string `json:"agentFilter"`
	// Forward only requests whose session key contains one of these strings or matches one as a regular expression. Default [] (every session).
	SessionFilter []string `json:"sessionFilter"`
	// Chats that also get every prompt in mode targets or both. Default [] (none).
	Targets []ApprovalTarget `json:"targets"`
}

// ApprovalTarget is one approvals.<exec|plugin>.targets entry.
type ApprovalTarget struct {
	// Channel id, e.g. "telegram" or "slack". Default "" (required).
	Channel string `json:"channel"`
	// Chat or user id the prompt is sent to, as the channel's send takes it. Default "" (required).
	To string `json:"to"`
	// Account that sends it. Default "" (the channel's default account).
	AccountID string `json:"accountId"`
	// Thread or forum topic inside the chat, a string or a number. Default "" (none).
	ThreadID ThreadRef `json:"threadId"`
}

// ChannelExecApprovals is channels.<telegram|discord|slack>.execApprovals:
// who on that network may answer approval prompts besides the owner. The
// native approval client's keys (enabled, target, agentFilter,
// sessionFilter, cleanupAfterResolve: approver DMs and origin-chat
// routing) are not typed here: prompts go to the asking chat and the
// approvals.* targets.
type ChannelExecApprovals struct {
	// Sender ids of this network who may answer approval prompts (button or /approve), besides the owner in commands.ownerAllowFrom; they may whether or not the network's native approval client (enabled) is on. Default [] (the owner alone).
	Approvers IDList `json:"approvers"`
}

// Skills is the skills.* section.
type Skills struct {
	// Where skills are found besides the defaults. Default: see each key.
	Load SkillsLoad `json:"load"`
	// Per-skill settings by skill name. Default {} (every skill found is on).
	Entries map[string]SkillEntry `json:"entries"`
	// Bounds on what skills put in the system prompt. Default: see each key.
	Limits SkillsLimits `json:"limits"`
}

// SkillsLimits is skills.limits.
type SkillsLimits struct {
	// Most characters the skill directory takes in an agent's system prompt; skills past it are counted in one line (load_skill still takes them). Default 0 (6000).
	MaxSkillsPromptChars int `json:"maxSkillsPromptChars" min:"0"`
}

// SkillsLoad is skills.load.
type SkillsLoad struct {
	// More folders of skill packages, after the workspace's skills/ and <state dir>/skills. Default [] (none).
	ExtraDirs []string `json:"extraDirs"`
	// Real folders that a symlinked skill folder in the workspace's skills/ or an extraDirs folder may resolve to; any other symlink out of its folder is refused ("symlink-escape"), and a file system root is never trusted. Default [] (none).
	AllowSymlinkTargets []string `json:"allowSymlinkTargets"`
}

// SkillEntry is skills.entries.<name>.
type SkillEntry struct {
	// Whether the skill is offered to agents. Default true.
	Enabled *bool `json:"enabled"`
	// Environment variables given to this skill's scripts only (and meeting its requires.env); a variable the gateway's environment sets keeps its value. Default {} (none).
	Env map[string]string `json:"env"`
	// API key put in the variable the skill names as metadata.openclaw.primaryEnv, for its scripts only; a string or a SecretRef. Default "" (none).
	APIKey SecretInput `json:"apiKey"`
}

// Plugins is the plugins.* section.
type Plugins struct {
	// Plugins by id, e.g. "llm-task". Default {} (optional plugins off).
	Entries map[string]PluginEntry `json:"entries"`
	// Where out-of-process plugins (folders with an openclaw.plugin.json) are found. Default: none.
	Load PluginsLoad `json:"load"`
	// Whether plugins run at all: false stops every plugin of plugins.load.paths and llm-task, whatever their entries say. Default true.
	Enabled *bool `json:"enabled"`
	// Plugin ids that may run; any other is off. Default [] (no allowlist).
	Allow []string `json:"allow"`
	// Plugin ids that never run; wins over allow and entries. Default [] (none).
	Deny []string `json:"deny"`
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
	// The plugin's own settings; of these only webSearch (for the web_search providers) is read here. Default {}.
	Config PluginConfig `json:"config"`
}

// PluginConfig is plugins.entries.<id>.config.
type PluginConfig struct {
	// The web_search provider of this plugin: brave, tavily, serper, searxng, perplexity, exa, firecrawl, ollama, minimax, google (gemini), xai (grok) or moonshot (kimi). Default {}.
	WebSearch PluginWebSearch `json:"webSearch"`
}

// PluginWebSearch is plugins.entries.<id>.config.webSearch.
type PluginWebSearch struct {
	// API key of the provider (brave, tavily, serper, perplexity, exa, firecrawl, google for gemini, xai for grok, moonshot for kimi, minimax, ollama for its hosted search); beats the provider's environment variables (BRAVE_API_KEY, PERPLEXITY_API_KEY or OPENROUTER_API_KEY, GEMINI_API_KEY, XAI_API_KEY, KIMI_API_KEY or MOONSHOT_API_KEY, MINIMAX_CODE_PLAN_KEY, ...). Default "" (the environment variable).
	APIKey SecretInput `json:"apiKey"`
	// Base URL: the instance for searxng, e.g. "https://searx.example.org"; the API's base for exa, firecrawl, google (gemini), xai (grok), moonshot (kimi), ollama and perplexity (which then uses its chat path), the provider adding its own path; a self-hosted firecrawl must be on a private or local host. Default "" (searxng is skipped; the others use their public API, ollama http://127.0.0.1:11434).
	BaseURL string `json:"baseUrl"`
	// Model that writes the answer: perplexity (then its chat path, e.g. "sonar-pro" or "perplexity/sonar-pro" on OpenRouter) google (gemini, e.g. "gemini-3.6-flash"), xai (grok) and moonshot (kimi). Default "" (sonar-pro; gemini-3.6-flash; grok-4.3; kimi-k2.6).
	Model string `json:"model"`
	// Region: minimax "global" or "cn" (its China host); duckduckgo a region code such as "us-en", used when a search names no region of its own. Default "" (minimax global unless MINIMAX_API_HOST or models.providers.minimax(-portal).baseUrl is a minimaxi.com host; duckduckgo none).
	Region string `json:"region"`
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
	// Bearer token sent as Authorization with every run result a job with delivery.mode "webhook" posts. Default "" (no Authorization header).
	WebhookToken string `json:"webhookToken"`
	// Exceptions to the guard that keeps webhook deliveries off loopback, private and link-local addresses. Default: none (public addresses only).
	WebhookSsrfPolicy CronWebhookSsrfPolicy `json:"webhookSsrfPolicy"`
}

// CronWebhookSsrfPolicy is cron.webhookSsrfPolicy.
type CronWebhookSsrfPolicy struct {
	// Host names or IP literals (exact) a webhook may reach though they resolve to a private or loopback address. Default [] (none).
	AllowedHostnames []string `json:"allowedHostnames"`
}

// Hooks is the hooks.* section: the gateway's HTTP webhook ingress.
type Hooks struct {
	// Whether POST <path>/wake, <path>/agent and the mapped paths are served; needs token. Default false.
	Enabled bool `json:"enabled"`
	// The shared secret every hook request carries as Authorization: Bearer <token> or x-openclaw-token (never in the URL); use its own long random value, not the gateway's token. Default "" (required when enabled).
	Token string `json:"token"`
	// Base path of the endpoints; a leading slash is added, trailing ones dropped, "/" is refused. Default "/hooks".
	Path string `json:"path"`
	// Agents a hook may run (an explicit agentId and the default agent alike); "*" allows all, [] none. Default: unset (every agent).
	AllowedAgentIDs []string `json:"allowedAgentIds"`
	// Session key of agent runs when neither the request nor the mapping names one; it must pass allowedSessionKeyPrefixes. Default "" (a new hook:<uuid> per request).
	DefaultSessionKey string `json:"defaultSessionKey"`
	// Whether a request (or a template rendered from its payload) may choose the session key. Default false.
	AllowRequestSessionKey bool `json:"allowRequestSessionKey"`
	// Case-insensitive prefixes every hook session key (requested, mapped, default or generated) must start with; blank entries are ignored. Default [] (no restriction).
	AllowedSessionKeyPrefixes []string `json:"allowedSessionKeyPrefixes"`
	// Built-in mappings appended after mappings; only "gmail" exists (POST <path>/gmail, one isolated agent run per message). Default [] (none).
	Presets []string `json:"presets"`
	// Mapped paths: POST <path>/<name> runs the first mapping whose match fits, before the presets. Default [] (none).
	Mappings []HookMapping `json:"mappings"`
	// The bundled hooks OpenClaw calls internal: boot-md, session-memory and command-logger run here, compaction-notifier is agents.defaults.compaction.notifyUser; bootstrap-extra-files is accepted but not in effect. Default: none enabled.
	Internal InternalHooks `json:"internal"`
}

// InternalHooks is hooks.internal.
type InternalHooks struct {
	// false turns every internal hook off, whatever its entry says. Default true.
	Enabled *bool `json:"enabled"`
	// The hooks by name, each off until its enabled is true. Default {} (none).
	Entries map[string]InternalHook `json:"entries"`
}

// InternalHook is hooks.internal.entries.<name>.
type InternalHook struct {
	// Run this hook. Default false.
	Enabled bool `json:"enabled"`
	// session-memory: how many of the ended session's newest user and assistant messages are saved. Default 15.
	Messages int `json:"messages" min:"1"`
	// Variables for the hook; not in effect here (no hook here runs a program). Default {}.
	Env map[string]string `json:"env"`
}

// HookMapping is one hooks.mappings entry.
type HookMapping struct {
	// Name of the mapping in logs. Default "mapping-<index>".
	ID string `json:"id"`
	// Which requests the mapping takes; both parts must fit when set. Default: any mapped path.
	Match HookMatch `json:"match"`
	// What a matching request does: "agent" (an agent turn) or "wake" (a system event for the agent's main session). Default "agent".
	Action string `json:"action" enum:"agent,wake"`
	// "now" runs a heartbeat at once for a wake (and for the completion notice of an agent run); "next-heartbeat" waits. Default "now".
	WakeMode string `json:"wakeMode" enum:"now,next-heartbeat"`
	// Label of the run, a template. Default "Hook".
	Name string `json:"name"`
	// Agent that runs the turn; it must pass hooks.allowedAgentIds. Default "" (the default agent).
	AgentID string `json:"agentId"`
	// Session key of the run, a template; one that uses the payload needs allowRequestSessionKey and allowedSessionKeyPrefixes. Default "" (hooks.defaultSessionKey, else a new hook:<uuid>).
	SessionKey string `json:"sessionKey"`
	// "isolated" gives each run a fresh session; "persistent" continues the session of the key (which must then be fixed: sessionKey or hooks.defaultSessionKey). Default "isolated".
	SessionMode string `json:"sessionMode" enum:"isolated,persistent"`
	// The agent's message, a template: {{field}} or {{payload.a.b}}, {{messages[0].subject}}, {{headers.x-name}}, {{query.name}}, {{path}}, {{now}}. Default "" (the run is refused without a message).
	MessageTemplate string `json:"messageTemplate"`
	// The wake's system-event text, a template as messageTemplate. Default "" (the wake is refused without text).
	TextTemplate string `json:"textTemplate"`
	// Name of a top-level array in the payload: one action per item (at most 200), each seeing the payload with that array holding only its item. Default "" (one action).
	ForEach string `json:"forEach"`
	// Whether the agent's answer is sent to a chat (channel and to). Default true.
	Deliver *bool `json:"deliver"`
	// Channel the answer goes to, or "last" (the agent's last chat). Default "last".
	Channel string `json:"channel"`
	// Chat id the answer goes to, a template. Default "" (with channel "last", the agent's last chat).
	To string `json:"to"`
	// Model of the run, a template (a model ref or alias). Default "" (the agent's).
	Model string `json:"model"`
	// Turn time limit in seconds. Default 0 (the agent's).
	TimeoutSeconds int `json:"timeoutSeconds" min:"0"`
	// A JavaScript module that rewrites the payload; not in effect here (there is no JavaScript runtime), so a request this mapping takes is refused with 500. Default: none.
	Transform HookTransform `json:"transform"`
}

// HookMatch is hooks.mappings[].match.
type HookMatch struct {
	// Sub-path after hooks.path, slashes at either end ignored ("gmail" takes POST /hooks/gmail). Default "" (any).
	Path string `json:"path"`
	// Exact value of the payload's string field source. Default "" (any).
	Source string `json:"source"`
}

// HookTransform is hooks.mappings[].transform.
type HookTransform struct {
	// Module file under hooks.transformsDir. Default "".
	Module string `json:"module"`
	// Exported function name. Default "default".
	Export string `json:"export"`
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
	// Where a heartbeat's answer goes: "owner" (the owner's DM: the first person commands.ownerAllowFrom names, else the first of a channel's allowFrom; never a group, and a "*" names nobody), "none", "last" (the chat the agent last talked in), or a channel id with to. A scheduled heartbeat with no owner to tell is skipped before the model is called. Default "owner".
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
	// Who may use chat commands (/status, /model, /approve...), by channel name or "*" for every channel that has no entry of its own; sender ids as in allowFrom. When set it is the only authority: anyone else's command-only message is ignored. Default: unset (anyone who passes the chat's gate).
	AllowFrom map[string]IDList `json:"allowFrom"`
	// Whether "! <cmd>" and /bash run host shell commands from chat; only false is in effect here: the gateway has no chat shell command, so true warns. Default false.
	Bash bool `json:"bash"`
	// Whether /config reads and writes the config from chat; only false is in effect here (there is no /config command: config changes go through config.set and config.patch with operator.admin). Default false.
	Config bool `json:"config"`
	// Whether /debug sets runtime config overrides from chat; only false is in effect here (no /debug command). Default false.
	Debug bool `json:"debug"`
	// Whether /mcp edits mcp.servers from chat; only false is in effect here (no /mcp command). Default false.
	MCP bool `json:"mcp"`
	// Whether /plugins installs and toggles plugins from chat; only false is in effect here (no /plugins command). Default false.
	Plugins bool `json:"plugins"`
	// Whether the native command menu is published: "auto" on Telegram and Discord, off on Slack (its commands live in the Slack app); false clears the menu at start. Default "auto".
	Native NativeSetting `json:"native"`
	// Whether the agents' skills join the native command menu (as /<skill>, sanitised to a-z0-9_, at most 32 characters, a clash with another command numbered): "auto" on Telegram and Discord, off on Slack. /skill <name> and /<skill> work as typed text either way. Default "auto".
	NativeSkills NativeSetting `json:"nativeSkills"`
}

// ChannelCommandSettings is channels.<telegram|discord|slack>.commands:
// the network's own choice over commands.native and commands.nativeSkills.
type ChannelCommandSettings struct {
	// Whether this network's native command menu is published; overrides commands.native. Default "" (commands.native).
	Native NativeSetting `json:"native"`
	// Whether skills join this network's command menu; overrides commands.nativeSkills. Default "" (commands.nativeSkills).
	NativeSkills NativeSetting `json:"nativeSkills"`
}

// Messages is the messages.* section.
type Messages struct {
	// Text put in front of every reply when the channel and account set none; "auto" is "[<agent name>]", and {model}, {modelFull}, {provider} and {identity.name} are filled in ({thinkingLevel} is left as written: no thinking level reaches the model here). "" on a channel or account turns it off there. Default: none.
	ResponsePrefix OptionalString `json:"responsePrefix"`
	// Emoji reacted to a message the agent takes up; "" turns acknowledgements off. WhatsApp acknowledges only when this is set. Default: the agent's identity.emoji, else "👀".
	AckReaction OptionalString `json:"ackReaction"`
	// Which messages get the acknowledgement: group-mentions (group messages that mention the agent), group-all, direct, all, off or none. Default "group-mentions".
	AckReactionScope string `json:"ackReactionScope" enum:"group-mentions,group-all,direct,all,off,none"`
	// What happens to messages that arrive while the chat's agent is still answering. Default: steer, cap 20, drop summarize.
	Queue MessagesQueue `json:"queue"`
	// Group chat settings every agent inherits. Default: each key at its own default.
	GroupChat MessagesGroupChat `json:"groupChat"`
	// How an agent's answers become visible in the chat it answers: automatic posts the final reply; message_tool keeps the final reply private, so only what the agent sends with message(action=send) is seen (when the agent has no message tool, replies stay automatic). groupChat.visibleReplies overrides it in groups and channels. Default "automatic".
	VisibleReplies string `json:"visibleReplies" enum:"automatic,message_tool"`
}

// MessagesQueue is messages.queue.
type MessagesQueue struct {
	// steer hands a plain message to the agent's running turn, read before its next model call (commands, attachments and a turn past its last call wait as followup); followup runs each waiting message after the current answer; collect runs all the waiting ones together as one turn; interrupt stops the current answer and runs the newest message, dropping older waiting ones. "queue" is steer; steer-backlog acts as steer here. Default "steer".
	Mode string `json:"mode" enum:"steer,followup,collect,interrupt,queue,steer-backlog,steer+backlog"`
	// Most messages waiting in one chat; beyond it the drop policy applies. Default 20.
	Cap int `json:"cap" min:"1"`
	// What goes when the cap is reached: old (the oldest waiting message, unanswered), new (the newest), summarize (the oldest, with a line naming each dropped message added to the next turn). Default "summarize".
	Drop string `json:"drop" enum:"old,new,summarize"`
	// Queue mode per channel name, in place of mode. Default {} (none).
	ByChannel map[string]string `json:"byChannel" enum:"steer,followup,collect,interrupt,queue,steer-backlog,steer+backlog"`
}

// MessagesGroupChat is messages.groupChat.
type MessagesGroupChat struct {
	// Regular expressions that count as mentioning an agent in a group message (case-insensitive), for agents that set no groupChat.mentionPatterns of their own. Default [] (native mentions only).
	MentionPatterns []string `json:"mentionPatterns"`
	// How many recent group messages that did not mention the agent are kept (in memory) and shown to it, as context, with the next message that does; 0 turns it off. Default 50.
	HistoryLimit int `json:"historyLimit" min:"0"`
	// What an unmentioned message in a group that needs no mention (requireMention false) is: user_request, a message to answer; room_event, quiet room context the agent reads without its final reply being posted (it speaks only through message(action=send); no typing indicator). Mentions, commands and direct messages stay user requests. Discord guild channels, Slack channels and Telegram groups. Default "user_request".
	UnmentionedInbound string `json:"unmentionedInbound" enum:"user_request,room_event"`
	// messages.visibleReplies for groups and channels. Default: messages.visibleReplies.
	VisibleReplies string `json:"visibleReplies" enum:"automatic,message_tool"`
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
	// OpenAI-compatible HTTP endpoints on the gateway port. Default: all off.
	HTTP GatewayHTTP `json:"http"`
	// Exposing the gateway through Tailscale Serve or Funnel. Default: mode "off".
	Tailscale GatewayTailscale `json:"tailscale"`
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
	// How mode "trusted-proxy" reads the user a reverse proxy authenticated. Default: unset (the mode refuses every connect until userHeader and gateway.trustedProxies are set).
	TrustedProxy TrustedProxyAuth `json:"trustedProxy"`
	// Operator scopes granted to a trusted-proxy user by identity, on top of what the connection has otherwise, for that connection only (never written into a paired device), e.g. {"admin@example.com": ["operator.admin"]}. Default {} (none).
	IdentityScopes map[string][]string `json:"identityScopes"`
}

// TrustedProxyAuth is gateway.auth.trustedProxy.
type TrustedProxyAuth struct {
	// Header holding the authenticated user, e.g. "x-forwarded-user"; believed only on a socket opened from an address in gateway.trustedProxies. Default "" (required in trusted-proxy mode).
	UserHeader string `json:"userHeader"`
	// Headers the proxy must also send, non-empty, for a request to count as coming through it, e.g. ["x-forwarded-proto"]. Default [] (none).
	RequiredHeaders []string `json:"requiredHeaders"`
	// Users allowed in, as the user header spells them. Default [] (every user the proxy authenticated).
	AllowUsers []string `json:"allowUsers"`
	// Whether a proxy on this host (a loopback source, which must also be in gateway.trustedProxies) is believed; every local process can then claim any user. Default false.
	AllowLoopback bool `json:"allowLoopback"`
	// Approval of new browser devices (Control UI, WebChat) by the proxy's identity. Default: off.
	DeviceAutoApprove TrustedProxyDeviceAutoApprove `json:"deviceAutoApprove"`
}

// TrustedProxyDeviceAutoApprove is gateway.auth.trustedProxy.deviceAutoApprove.
type TrustedProxyDeviceAutoApprove struct {
	// Whether a new Control UI or WebChat device of a trusted-proxy user is paired without asking; known devices asking for more still wait for approval. Default false.
	Enabled bool `json:"enabled"`
	// Most scopes such a device gets: what it asks for within these, or all of these when it asks for none; operator.admin only when listed. Default ["operator.read","operator.write","operator.approvals","operator.questions"].
	Scopes []string `json:"scopes"`
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
	// Minimum level written to the console (stderr); the log file follows level. Default "info" (debug with --verbose).
	ConsoleLevel string `json:"consoleLevel" enum:"trace,debug,info,warn,error,fatal,silent"`
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
	// Wire protocol: "openai-completions" (OpenAI and compatible servers such as vLLM, llama.cpp, LM Studio, OpenRouter), "anthropic-messages", or "ollama" (Ollama's native /api/chat at baseUrl without /v1, default http://127.0.0.1:11434) or "google-generative-ai" (the Gemini API, default https://generativelanguage.googleapis.com/v1beta); OpenClaw's other adapters are accepted but refused when used. Default "openai-completions".
	API string `json:"api" enum:"openai-completions,openai-responses,openai-chatgpt-responses,anthropic-messages,google-generative-ai,google-vertex,github-copilot,bedrock-converse-stream,ollama,pi-messages,azure-openai-responses"`
	// Base URL of the API, e.g. "http://127.0.0.1:11434/v1". Default: the vendor's public endpoint.
	BaseURL string `json:"baseUrl"`
	// API key: a string, "${ENV_VAR}" or a SecretRef. Default "" (none, for local servers).
	APIKey SecretInput `json:"apiKey"`
	// Extra HTTP headers sent with every request. Default {} (none).
	Headers map[string]string `json:"headers"`
	// Send apiKey as "Authorization: Bearer <key>" instead of the API's own header (x-api-key, x-goog-api-key), replacing any Authorization in headers. Default false.
	AuthHeader bool `json:"authHeader"`
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
	// Most tokens of context used before older turns are compacted, when less than contextWindow; the model's window itself is unchanged. Default 0 (contextWindow).
	ContextTokens int `json:"contextTokens" min:"1"`
	// Most tokens a reply may use. Default 0 (the provider's setting).
	MaxTokens int `json:"maxTokens" min:"1"`
	// What the model accepts: "text", and "image" if it may be sent images. A list without "image" keeps images from the model: the image tool skips it. Default [] (undeclared: images are sent).
	Input []string `json:"input"`
	// Whether the model reasons before it answers, so thinking levels apply; shown by models.list. Default false.
	Reasoning bool `json:"reasoning"`
	// Price in US dollars per million tokens, used to put a cost on each run's usage. Default: none (no cost shown).
	Cost ModelCost `json:"cost"`
	// What the model's endpoint can take, where it differs from the API's usual. Default: each key at its own default.
	Compat ModelCompat `json:"compat"`
}

// ModelCompat is models.providers.<name>.models[].compat.
type ModelCompat struct {
	// Whether the model can call tools; false sends it no tool definitions, so it only answers in text. Default true.
	SupportsTools *bool `json:"supportsTools"`
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

// MediaModels is agents.defaults.mediaModels: the provider/model each
// generation tool tries first, then its fallbacks.
type MediaModels struct {
	// image_generate's model, as "provider/model" or {primary, fallbacks, timeoutMs}; the provider here is openai (OpenAI Images). Default: none (openai/gpt-image-2 when OpenAI has an API key).
	Image MediaModelRef `json:"image"`
	// video_generate's model, as "provider/model" or {primary, fallbacks, timeoutMs}; the provider here is runway. Default: none (runway/gen4.5 when Runway has an API key).
	Video MediaModelRef `json:"video"`
	// music_generate's model, as "provider/model" or {primary, fallbacks, timeoutMs}; the provider here is minimax. Default: none (minimax/music-2.6 when MiniMax has an API key).
	Music MediaModelRef `json:"music"`
}

// AgentDefaults is agents.defaults.
type AgentDefaults struct {
	// Model as "provider/model" or an alias from agents.defaults.models, or {primary, fallbacks}. Default: none (a message then says which key to set).
	Model ModelRef `json:"model"`
	// The model catalog by "provider/model": each entry's alias may stand for the model wherever a model is named (model, fallbacks, /model, sessions.patch). A non-empty map is also the allowlist: models.list offers only these, and /model or sessions.patch refuse any other model. Default {} (any model, no aliases).
	Models map[string]AgentModel `json:"models"`
	// Which models a user or a model may pick (/model, sessions.patch, sessions_spawn) and models.list offers; when set it replaces the agents.defaults.models allowlist. Default: absent (the agents.defaults.models keys, if any).
	ModelPolicy ModelPolicy `json:"modelPolicy"`
	// Model the image tool analyses images with, as "provider/model" or {primary, fallbacks, timeoutMs}; it must accept image input. Default: none (the image tool then says to set it).
	ImageModel MediaModelRef `json:"imageModel"`
	// Models the generation tools (image_generate, video_generate, music_generate) use. Default: each kind unset.
	MediaModels MediaModels `json:"mediaModels"`
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
	// The skills (by name) agents see, unless an agent's own skills replaces the list; [] gives none. Default: unset (every skill found).
	Skills []string `json:"skills"`
	// Agent runs at once across all sessions (each session still runs one turn at a time); further runs wait their turn. Sub-agent runs and a turn's messages to other sessions have their own limits. Default 0: the larger of 8 and 4 × the CPUs available, as in OpenClaw.
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
	// Where tool calls run: on the gateway host, or in a sandbox (exec and the file tools). Default: mode "off".
	Sandbox AgentSandbox `json:"sandbox"`
	// When and how a session's older turns are summarised to fit the model's window. Default: on, safeguard mode (see each key).
	Compaction Compaction `json:"compaction"`
}

// Compaction is agents.defaults.compaction: when and how a session's
// older turns are summarised so the conversation fits the model's window.
// The transcript keeps every message; only what the model is sent shrinks.
type Compaction struct {
	// Summarise older turns on their own when the context nears the model's window (80% of it); false leaves that to /compact and sessions.compact, and to maxActiveTranscriptBytes. Default true.
	Enabled *bool `json:"enabled"`
	// "safeguard" summarises long histories in chunks, keeps the last recentTurnsPreserve turns verbatim and audits each summary (qualityGuard); "default" asks for one summary in one request. Default "safeguard", as OpenClaw's new configs.
	Mode string `json:"mode" enum:"default,safeguard"`
	// A compaction provider plugin to summarise with; accepted but not in effect here (no such plugins): the built-in summary is used. Default "".
	Provider string `json:"provider"`
	// Thinking level of the summary requests; accepted but not in effect here (no provider is sent a thinking level). Default "".
	ThinkingLevel string `json:"thinkingLevel" enum:"off,minimal,low,medium,high,xhigh,adaptive,max,ultra,inherit"`
	// Seconds each summary request may take before it is abandoned (and the context sent unsummarised). Default 180.
	TimeoutSeconds int `json:"timeoutSeconds" min:"1"`
	// Tokens of the newest messages kept verbatim after a compaction (at most half the model's window). Default 20000.
	KeepRecentTokens int `json:"keepRecentTokens" min:"1"`
	// In safeguard mode, the newest user turns kept verbatim whatever their size, unless that leaves nothing to summarise. Default 3.
	RecentTurnsPreserve OptInt `json:"recentTurnsPreserve"`
	// "strict" tells the summariser to copy identifiers (URLs, paths, ids, hashes) exactly and, in safeguard mode, has the quality guard check that those the user gave survive; "off" does neither. Default "strict".
	IdentifierPolicy string `json:"identifierPolicy" enum:"strict,off"`
	// The audit of safeguard summaries: a summary that is empty, no shorter than what it replaces, or (identifierPolicy strict) missing an identifier the user gave is asked for again, and after maxRetries the context stays unsummarised. Default: on in safeguard mode, 1 retry.
	QualityGuard CompactionQualityGuard `json:"qualityGuard"`
	// Check context pressure between tool steps of a turn; accepted but not in effect here (a turn is checked before its first model call). Default: off.
	MidTurnPrecheck CompactionMidTurn `json:"midTurnPrecheck"`
	// How session memory is reindexed after a compaction; accepted but not in effect here (transcripts are not indexed into memory search). Default "async".
	PostIndexSync string `json:"postIndexSync" enum:"off,async,await"`
	// H2/H3 section titles of the workspace's AGENTS.md put back, after a compaction, at the end of the summary the model sees, so rules the summary may blur stay word for word. Default [] (none).
	PostCompactionSections []string `json:"postCompactionSections"`
	// Model the summaries are written with, as "provider/model" or an alias of agents.defaults.models; exact (no fallbacks). Default "" (the session's model chain).
	Model string `json:"model"`
	// Compact before a turn once the messages the model would see (since the last compaction) reach this many bytes, even when compaction is off; a number or "20mb". Default 0 (off).
	MaxActiveTranscriptBytes ByteSize `json:"maxActiveTranscriptBytes"`
	// Tell the chat when a compaction starts ("Compacting context...") and ends ("Compaction complete"). Default false.
	NotifyUser bool `json:"notifyUser"`
	// A silent turn before compaction that saves durable memories; accepted but not in effect here. Default: see each key.
	MemoryFlush CompactionMemoryFlush `json:"memoryFlush"`
}

// CompactionQualityGuard is agents.defaults.compaction.qualityGuard.
type CompactionQualityGuard struct {
	// Audit safeguard summaries. Default true.
	Enabled *bool `json:"enabled"`
	// Further requests for a summary that failed the audit. Default 1.
	MaxRetries OptInt `json:"maxRetries"`
}

// CompactionMidTurn is agents.defaults.compaction.midTurnPrecheck.
type CompactionMidTurn struct {
	// Check between tool steps; not in effect here. Default false.
	Enabled bool `json:"enabled"`
}

// CompactionMemoryFlush is agents.defaults.compaction.memoryFlush; not in
// effect here.
type CompactionMemoryFlush struct {
	// Run the memory flush turn; not in effect here. Default false.
	Enabled bool `json:"enabled"`
	// Model of the flush turn; not in effect here. Default "".
	Model string `json:"model"`
	// Tokens before the compaction threshold at which the flush runs; not in effect here. Default 0.
	SoftThresholdTokens int `json:"softThresholdTokens" min:"0"`
	// Transcript bytes that force the flush; not in effect here. Default 0.
	ForceFlushTranscriptBytes ByteSize `json:"forceFlushTranscriptBytes"`
}

// Wizard is wizard: written by openclaw onboard, configure and doctor
// --fix (here as in OpenClaw), read by onboarding and shown by doctor.
type Wizard struct {
	// How onboarding may look around for keys: "full" takes a provider key it finds in the environment (asking first at a terminal); "guarded" never takes one without asking, so without a terminal the key's flag must be given. Default "full".
	AccessMode string `json:"accessMode" enum:"full,guarded"`
	// When onboarding's risk notice was acknowledged (ISO 8601); while set, onboarding does not ask again. Default "" (ask).
	SecurityAcknowledgedAt string `json:"securityAcknowledgedAt"`
	// When a setup command last ran (ISO 8601); openclaw doctor shows it. Default "".
	LastRunAt string `json:"lastRunAt"`
	// Version of the CLI that ran it. Default "".
	LastRunVersion string `json:"lastRunVersion"`
	// Source revision of that CLI, when it was built with one. Default "".
	LastRunCommit string `json:"lastRunCommit"`
	// Which command it was: "onboard", "configure" or "doctor" (OpenClaw's own may write others). Default "".
	LastRunCommand string `json:"lastRunCommand"`
	// Whether it set up a gateway on this machine ("local") or a client of one elsewhere ("remote"). Default "".
	LastRunMode string `json:"lastRunMode" enum:"local,remote"`
}

// GatewayTailscale is gateway.tailscale.
type GatewayTailscale struct {
	// "off" leaves Tailscale alone; "serve" (the tailnet) and "funnel" (the internet) are accepted but not in effect here: expose the port with tailscale serve yourself. Default "off".
	Mode string `json:"mode" enum:"off,serve,funnel"`
}

// GatewayHTTP is gateway.http.
type GatewayHTTP struct {
	// The endpoints, each off until enabled. Default: each off.
	Endpoints GatewayHTTPEndpoints `json:"endpoints"`
}

// GatewayHTTPEndpoints is gateway.http.endpoints.
type GatewayHTTPEndpoints struct {
	// POST /v1/chat/completions, GET /v1/models and /v1/models/{id}: OpenAI's Chat Completions over the agents, with the gateway's token or password as the bearer key (full operator access: keep it off the internet). Default: off.
	ChatCompletions ChatCompletionsEndpoint `json:"chatCompletions"`
}

// ChatCompletionsEndpoint is gateway.http.endpoints.chatCompletions.
type ChatCompletionsEndpoint struct {
	// Serve the endpoint. Default false.
	Enabled bool `json:"enabled"`
}

// AgentSandbox is agents.defaults.sandbox and agents.entries.<id>.sandbox;
// an agent's keys left unset come from agents.defaults.sandbox.
type AgentSandbox struct {
	// Which sessions are sandboxed: "off" (none), "non-main" (all but the agent's main session agent:<id>:main), "all". Default "off".
	Mode string `json:"mode" enum:"off,non-main,all"`
	// How many sandboxes there are: "agent" (one per agent), "session" (one per session), "shared" (one for every sandboxed session). Default "agent".
	Scope string `json:"scope" enum:"agent,session,shared"`
	// What a sandbox sees of the agent's workspace: "none" (a private sandbox workspace under workspaceRoot instead), "ro" (the workspace read-only at /agent; write, edit and apply_patch refused), "rw" (read-write at /workspace). Default "none".
	WorkspaceAccess string `json:"workspaceAccess" enum:"none,ro,rw"`
	// Folder holding the private sandbox workspaces of workspaceAccess "none", one per scope. Default "" (<state dir>/sandboxes).
	WorkspaceRoot string `json:"workspaceRoot"`
	// The sandbox runtime: "ssh" runs on another machine (see ssh); "docker" and "podman" a container through their CLI; "openshell" and "crabbox" are refused here. Default "" (the daemonless local sandbox, bubblewrap's bwrap, on Linux).
	Backend string `json:"backend" enum:"docker,podman,ssh,openshell,crabbox"`
	// Container settings; the local sandbox reads network from here too. Default: see each key.
	Docker SandboxDocker `json:"docker"`
	// The ssh backend's target and keys. Default: see each key.
	SSH SandboxSSH `json:"ssh"`
	// How far a sandboxed session's session tools (sessions_list, sessions_history, sessions_send, ...) reach: "spawned" (its own session and the sub-agents it spawned) or "all" (as tools.sessions.visibility says). Default "spawned".
	SessionToolsVisibility string `json:"sessionToolsVisibility" enum:"spawned,all"`
}

// SandboxDocker is agents.defaults.sandbox.docker.
type SandboxDocker struct {
	// Image the docker and podman backends run. Default "" (openclaw-sandbox:bookworm-slim).
	Image string `json:"image"`
	// Network of the sandbox: "none" cuts it off; "bridge" or a network name gives it network access (the local sandbox then shares the host's network); "host" is refused, and "container:<id>" unless dangerouslyAllowContainerNamespaceJoin. Default "" ("none").
	Network string `json:"network"`
	// Make the container's root file system read-only (the workspace, binds and tmpfs stay writable). Default true.
	ReadOnlyRoot *bool `json:"readOnlyRoot"`
	// Private in-memory folders of the container. Default ["/tmp", "/var/tmp", "/run"].
	Tmpfs []string `json:"tmpfs"`
	// User to run as, "uid:gid" or a name in the image. Default "" (the image's).
	User string `json:"user"`
	// Linux capabilities to drop. Default ["ALL"].
	CapDrop []string `json:"capDrop"`
	// Variables set in the sandbox (every backend); names are letters, digits and "_", values one line. An agent's entries add to and override the defaults'. Default {} (none).
	Env map[string]string `json:"env"`
	// Shell line run once per scope and configuration (sh -lc) before the first command; the container backends keep its result as a local image the later runs start from. Needs network, a writable root and root to install packages. Default "" (none).
	SetupCommand string `json:"setupCommand"`
	// Most processes in the container. Default 0 (no limit).
	PidsLimit int `json:"pidsLimit" min:"0"`
	// Memory limit, e.g. "1g". Default "" (no limit).
	Memory string `json:"memory"`
	// Memory plus swap limit, e.g. "2g". Default "" (the runtime's).
	MemorySwap string `json:"memorySwap"`
	// CPUs the container may use, e.g. 1.5. Default 0 (no limit).
	Cpus float64 `json:"cpus" min:"0"`
	// Seccomp profile file. Default "" (the runtime's default profile).
	SeccompProfile string `json:"seccompProfile"`
	// AppArmor profile name. Default "" (the runtime's default).
	ApparmorProfile string `json:"apparmorProfile"`
	// DNS servers of the container. Default [] (the runtime's).
	DNS []string `json:"dns"`
	// Extra /etc/hosts entries, "name:address". Default [] (none).
	ExtraHosts []string `json:"extraHosts"`
	// GPUs to hand the container, docker's --gpus value, e.g. "all". Default "" (none).
	Gpus string `json:"gpus"`
	// Start of the containers' names (letters, digits, ".", "_", "-"). Default "" ("openclaw-sbx-").
	ContainerPrefix string `json:"containerPrefix"`
	// Extra host folders, "host:container[:ro|rw]"; the defaults' and the agent's are merged, a later entry for the same container path wins. System folders, the docker socket, credential folders and the gateway's state folder are refused, and so are sources outside the workspaces unless dangerouslyAllowExternalBindSources. The local sandbox mounts them too. Default [] (none).
	Binds []string `json:"binds"`
	// Allow bind sources outside the agent's and the sandbox's workspaces (the blocked paths stay blocked). Default false.
	DangerouslyAllowExternalBindSources bool `json:"dangerouslyAllowExternalBindSources"`
	// Allow binds onto /workspace and /agent. Default false.
	DangerouslyAllowReservedContainerTargets bool `json:"dangerouslyAllowReservedContainerTargets"`
	// Allow network "container:<id>", joining another container's network. Default false.
	DangerouslyAllowContainerNamespaceJoin bool `json:"dangerouslyAllowContainerNamespaceJoin"`
}

// SandboxSSH is agents.defaults.sandbox.ssh.
type SandboxSSH struct {
	// Where to run, as "user@host:port" (port optional). Default "" (the ssh backend then refuses to run).
	Target string `json:"target"`
	// The ssh program. Default "" ("ssh").
	Command string `json:"command"`
	// Remote folder holding one workspace per scope. Default "" ("/tmp/openclaw-sandboxes").
	WorkspaceRoot string `json:"workspaceRoot"`
	// Refuse a host whose key is not in the known hosts. Default true.
	StrictHostKeyChecking *bool `json:"strictHostKeyChecking"`
	// Let the server add its other host keys to the known hosts. Default true.
	UpdateHostKeys *bool `json:"updateHostKeys"`
	// Private key file to log in with. Default "" (ssh's own choice).
	IdentityFile string `json:"identityFile"`
	// Certificate for that key. Default "" (none).
	CertificateFile string `json:"certificateFile"`
	// Known hosts file. Default "" (ssh's own, ~/.ssh/known_hosts).
	KnownHostsFile string `json:"knownHostsFile"`
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
	// Where OpenClaw kept this agent's state (its openclaw-agent.sqlite); openclaw migrate reads the agent's sessions there, a relative path from the folder holding the OpenClaw state directory. The gateway keeps agent state in its own database. Default "" (<OpenClaw state dir>/agents/<id>/agent).
	AgentDir string `json:"agentDir"`
	// This agent's model allowlist; when set it replaces agents.defaults.modelPolicy for the agent, and [] lets it pick any model. Default: absent (the defaults' policy).
	ModelPolicy ModelPolicy `json:"modelPolicy"`
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
	// This agent's tts settings, deep-merged over tts (provider blocks key by key). Default: tts as it is.
	TTS TTS `json:"tts"`
	// Tool policy for this agent, applied after the global one; its profile replaces the global profile. Default: none.
	Tools ToolPolicy `json:"tools"`
	// How the agent behaves in group chats. Default: mentioned by native mentions only.
	GroupChat AgentGroupChat `json:"groupChat"`
	// Heartbeat settings for this agent; keys left unset come from agents.defaults.heartbeat. Default: the defaults.
	Heartbeat Heartbeat `json:"heartbeat"`
	// The skills (by name) this agent sees, replacing agents.defaults.skills; [] gives none. Default: unset (agents.defaults.skills).
	Skills []string `json:"skills"`
	// This agent's agents.defaults.bootstrapMaxChars. Default 0 (the defaults').
	BootstrapMaxChars int `json:"bootstrapMaxChars" min:"1"`
	// This agent's agents.defaults.bootstrapTotalMaxChars. Default 0 (the defaults').
	BootstrapTotalMaxChars int `json:"bootstrapTotalMaxChars" min:"1"`
	// This agent's agents.defaults.contextInjection. Default "" (the defaults').
	ContextInjection string `json:"contextInjection" enum:"always,continuation-skip,never"`
	// This agent's sandbox; keys left unset come from agents.defaults.sandbox (under scope "shared" its docker and ssh keys are ignored). Default: the defaults'.
	Sandbox AgentSandbox `json:"sandbox"`
}

// AgentGroupChat is agents.entries.<id>.groupChat.
type AgentGroupChat struct {
	// Regular expressions that count as mentioning the agent in a group message (case-insensitive). Default [] (native mentions only).
	MentionPatterns []string `json:"mentionPatterns"`
	// This agent's messages.groupChat.unmentionedInbound. Default: that key.
	UnmentionedInbound string `json:"unmentionedInbound" enum:"user_request,room_event"`
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
	// false stops the notice each new session leaves for its agent's main session's next turn (where it came from, never its messages; not for the main session itself, cron runs or sub-agents; kept in memory). Default true.
	NotifyOnCreate *bool `json:"notifyOnCreate"`
	// Reset policies for direct, group and thread sessions, each key overriding session.reset. Default: session.reset for all.
	ResetByType SessionResetByType `json:"resetByType"`
	// Reset policies by channel id ("discord"); a channel's entry wins outright over resetByType and reset. Default {} (none).
	ResetByChannel map[string]SessionResetOverride `json:"resetByChannel"`
	// Whether agent replies may be delivered to a session's chat, by rules on channel, chat type and key prefix (a session's own sendPolicy, set by sessions.patch, wins). Default: every send allowed.
	SendPolicy SessionSendPolicy `json:"sendPolicy"`
}

// SessionResetByType is session.resetByType.
type SessionResetByType struct {
	// Reset policy of direct-message sessions. Default: session.reset.
	Direct SessionResetOverride `json:"direct"`
	// Reset policy of group and room sessions. Default: session.reset.
	Group SessionResetOverride `json:"group"`
	// Reset policy of thread and topic sessions. Default: session.reset.
	Thread SessionResetOverride `json:"thread"`
}

// SessionResetOverride is one session.resetByType or resetByChannel entry;
// what it leaves out comes from session.reset.
type SessionResetOverride struct {
	// none, daily (at atHour) or idle (after idleMinutes). Default: session.reset.mode when that is not "none", else "daily".
	Mode string `json:"mode" enum:"none,daily,idle"`
	// Local hour (0-23, larger read as 23) at which daily resets happen. Default: session.reset.atHour.
	AtHour OptInt `json:"atHour"`
	// Minutes of silence after which an idle reset happens; 0 turns idle resets off. Default: session.reset.idleMinutes.
	IdleMinutes OptInt `json:"idleMinutes"`
}

// SessionSendPolicy is session.sendPolicy.
type SessionSendPolicy struct {
	// Rules in order: a matching deny blocks at once; a matching allow allows unless a later rule denies. Default [] (none).
	Rules []SessionSendRule `json:"rules"`
	// allow or deny, when no rule matches. Default "allow".
	Default string `json:"default" enum:"allow,deny"`
}

// SessionSendRule is one session.sendPolicy.rules entry.
type SessionSendRule struct {
	// allow or deny. Default "allow".
	Action string `json:"action" enum:"allow,deny"`
	// What the session must be for the rule to apply; every key given must match. Default: every session.
	Match SessionSendMatch `json:"match"`
}

// SessionSendMatch is session.sendPolicy.rules[].match.
type SessionSendMatch struct {
	// Channel id, e.g. "discord". Default "" (any).
	Channel string `json:"channel"`
	// direct, group or channel ("dm" is read as direct). Default "" (any).
	ChatType string `json:"chatType" enum:"direct,dm,group,channel"`
	// Session-key prefix, matched against the key with or without its agent:<id>: part, e.g. "cron:". Default "" (any).
	KeyPrefix string `json:"keyPrefix"`
	// Session-key prefix matched against the whole key only, e.g. "agent:main:discord:". Default "" (any).
	RawKeyPrefix string `json:"rawKeyPrefix"`
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
	// Whether the session tools may cross from one agent to another. Default: enabled, every agent.
	AgentToAgent ToolAgentToAgent `json:"agentToAgent"`
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
	// MateClaw's Content Studio tools (this gateway's key; OpenClaw's own CLI does not know it). Default: Xiaohongshu's creator page in the browser's default profile.
	ContentStudio ToolContentStudio `json:"contentStudio"`
	// Understanding of inbound media; here, speech to text of voice notes and audio files. Default: audio transcribed when an openai key is found.
	Media ToolMedia `json:"media"`
}

// ToolContentStudio is tools.contentStudio.
type ToolContentStudio struct {
	// The Xiaohongshu creator publish page xhs_publish fills; only this key sets it, never a model's arguments. Default "https://creator.xiaohongshu.com/publish/publish".
	XhsCreatorURL string `json:"xhsCreatorUrl"`
	// The browser profile (browser.profiles) the user logged in to Xiaohongshu with once; xhs_publish uses its cookies and never stores a password. Default "" (browser.defaultProfile).
	XhsProfile string `json:"xhsProfile"`
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
	// The one provider to use: brave, minimax, gemini, grok, kimi, perplexity, firecrawl, exa, tavily, serper, searxng, duckduckgo or ollama. OpenClaw's parallel is accepted but not in effect here: the chain is used instead. Default "" (each but ollama in that order, the next when one fails or has no key).
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

// ToolAgentToAgent is tools.agentToAgent.
type ToolAgentToAgent struct {
	// false stops sessions_send, sessions_list, sessions_history, session_status and delegateToAgent from reaching another agent's sessions (the sub-agents a session spawned stay in reach under tree and all visibility). Default true.
	Enabled *bool `json:"enabled"`
	// Agent ids or "*" globs that may take part in a cross-agent call; the caller's agent and the target's must both match. Exact ids are case-sensitive, globs are not; entries all blank deny every cross-agent call. Default [] (every agent).
	Allow []string `json:"allow"`
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
	// A further gate on exec's elevated flag for this agent: both it and tools.elevated must allow the sender. Default: not set (tools.elevated alone).
	Elevated AgentToolElevated `json:"elevated"`
}

// AgentToolElevated is agents.entries.<id>.tools.elevated.
type AgentToolElevated struct {
	// false refuses elevated for this agent; true still needs tools.elevated.enabled. Default: not set (tools.elevated.enabled).
	Enabled *bool `json:"enabled"`
	// Senders per channel who may use it, on top of tools.elevated.allowFrom: when set, the sender must be listed in both. Default {} (tools.elevated.allowFrom alone).
	AllowFrom map[string][]string `json:"allowFrom"`
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
	// Models by channel, then by chat: a group, channel or topic id ("<chatId>:topic:<id>" on Telegram), a direct chat's peer (the sender id; Slack "user:<id>"), or "*"; a "provider/model" or an alias. It applies only while the session has no model of its own (/model). Default {} (the agent's model).
	ModelByChannel map[string]map[string]string `json:"modelByChannel"`
}

// ChannelToolPolicy is the tools block of one chat (a group, a server or
// its channel, a direct chat).
type ChannelToolPolicy struct {
	// Only these tools (names, globs or group:<name>), of those the tool policy allows, in this chat. Default [] (all the policy allows).
	Allow []string `json:"allow"`
	// Tools the agent may not use in this chat; deny wins. Default [] (none).
	Deny []string `json:"deny"`
}

// ChannelDefaults is channels.defaults.
type ChannelDefaults struct {
	// Group policy of channels that set none: allowlist, open or disabled. Default "allowlist".
	GroupPolicy string `json:"groupPolicy" enum:"allowlist,open,disabled"`
	// How long another bot and ours may answer each other in one chat before their messages are dropped for a while (channels whose allowBots admits bots: Discord, Slack). Default: each key at its own default.
	BotLoopProtection BotLoopProtection `json:"botLoopProtection"`
}

// BotLoopProtection is a botLoopProtection block: channels.defaults, a
// channel or one of its accounts; each key unset falls back to the next.
type BotLoopProtection struct {
	// Whether the guard runs. Default true.
	Enabled *bool `json:"enabled"`
	// Messages one bot may send us in one chat within windowSeconds before it is cut off. Default 20.
	MaxEventsPerWindow int `json:"maxEventsPerWindow" min:"1"`
	// The sliding window, in seconds. Default 60.
	WindowSeconds int `json:"windowSeconds" min:"1"`
	// How long a bot that went over is ignored in that chat, in seconds. Default 60.
	CooldownSeconds int `json:"cooldownSeconds" min:"1"`
}

// TelegramChannel is channels.telegram: the default account's settings,
// which named accounts inherit key by key.
type TelegramChannel struct {
	TelegramAccount
	// Who on this network may answer approval prompts. Default: the owner alone.
	ExecApprovals ChannelExecApprovals `json:"execApprovals"`
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
	// Which reply messages quote the message they answer: off, first, all or batched. Default "first".
	ReplyToMode string `json:"replyToMode" enum:"off,first,all,batched"`
	// Largest attachment sent or received, in megabytes. Default: the network's (Telegram 100, Discord 8, Slack 20, WhatsApp 50).
	MediaMaxMb int `json:"mediaMaxMb" min:"1"`
	// Text put in front of every reply, with messages.responsePrefix's "auto" and variables; "" turns it off here. Default: messages.responsePrefix.
	ResponsePrefix OptionalString `json:"responsePrefix"`
	// How many recent group messages that did not mention the agent are kept (in memory, at most 1000 per chat) and shown to it, as context, with the next message that does, on this channel or account; 0 turns it off here. Default: messages.groupChat.historyLimit (50).
	HistoryLimit OptInt `json:"historyLimit"`
}

// TelegramAccount is the settings of one Telegram bot: channels.telegram
// itself, or channels.telegram.accounts.<id> (unset keys inherited).
type TelegramAccount struct {
	ChannelCommon
	// Display name of the account. Default "".
	Name string `json:"name"`
	// The network's own commands.native and commands.nativeSkills. Default: those.
	Commands ChannelCommandSettings `json:"commands"`
	// How replies are shaped while they are written. Default: each key at its own default.
	Streaming PreviewStreaming `json:"streaming"`
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
	// Which message actions the agent (and the message RPC) may take on this bot. Default: each at its own default.
	Actions TelegramActions `json:"actions"`
	// Extra entries of the bot's command menu, after the built-in ones (/new, /reset); the text of such a command goes to the agent as typed. Default [] (none).
	CustomCommands []TelegramCustomCommand `json:"customCommands"`
	// Whether links in replies show a preview. Default true.
	LinkPreview *bool `json:"linkPreview"`
	// What the chat sees when a turn fails: "always" the error, "once" each distinct error once per 4 hours, "silent" nothing. Default "always".
	ErrorPolicy string `json:"errorPolicy" enum:"always,once,silent"`
	// Per-direct-chat settings by the sender's user id, or "*" for every direct chat. Default {} (none).
	Direct map[string]ChannelDirect `json:"direct"`
}

// ChannelDirect is channels.<telegram|whatsapp>.direct.<peer>.
type ChannelDirect struct {
	// Extra system prompt for this direct chat. Default "".
	SystemPrompt string `json:"systemPrompt"`
	// Tool limits in this chat, on top of the tool policy. Default: none.
	Tools ChannelToolPolicy `json:"tools"`
}

// TelegramActions is channels.telegram.actions.
type TelegramActions struct {
	// send, thread-reply and poll. Default true.
	SendMessage *bool `json:"sendMessage"`
	// delete. Default true.
	DeleteMessage *bool `json:"deleteMessage"`
	// edit. Default true.
	EditMessage *bool `json:"editMessage"`
	// react and reactions. Default true.
	Reactions *bool `json:"reactions"`
	// poll (sendMessage false turns polls off too). Default true.
	Poll *bool `json:"poll"`
	// thread-create (a forum topic). Default true.
	CreateForumTopic *bool `json:"createForumTopic"`
	// sticker (sending one). Default false.
	Sticker bool `json:"sticker"`
}

// TelegramCustomCommand is one channels.telegram.customCommands entry.
type TelegramCustomCommand struct {
	// The command without its slash: 1-32 of a-z, 0-9 and _ (upper case is lowered). Default "" (required).
	Command string `json:"command"`
	// What the menu says about it. Default "" (required).
	Description string `json:"description"`
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
	// What the chat sees when a turn fails: "always" the error, "once" each distinct error once per 4 hours, "silent" nothing. Default "" (the account's).
	ErrorPolicy string `json:"errorPolicy" enum:"always,once,silent"`
	// Tool limits in this chat, on top of the tool policy. Default: none.
	Tools ChannelToolPolicy `json:"tools"`
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
	// What the chat sees when a turn fails: "always" the error, "once" each distinct error once per 4 hours, "silent" nothing. Default "" (the group's).
	ErrorPolicy string `json:"errorPolicy" enum:"always,once,silent"`
}

// ChannelStreaming is channels.<ch>.streaming.
type ChannelStreaming struct {
	// Where long replies split: at the length limit ("length") or at every paragraph ("newline"). Default "length".
	ChunkMode string `json:"chunkMode" enum:"length,newline"`
}

// PreviewStreaming is channels.<telegram|discord|slack>.streaming.
type PreviewStreaming struct {
	// Where long replies split: at the length limit ("length") or at every paragraph ("newline"). Default "length".
	ChunkMode string `json:"chunkMode" enum:"length,newline"`
	// "partial" shows the reply while it is written, in one message edited in place (Telegram, Discord, Slack); "off" sends it when done; "block" and "progress" (OpenClaw's block replies and tool-progress message) are not in effect here and send it when done. Default "off"; OpenClaw's Telegram default is "progress" (a status message while it works, then the reply as a new message), which here ends the same as "off": the reply sent when done.
	Mode string `json:"mode" enum:"off,partial,block,progress"`
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
	// Who on this network may answer approval prompts. Default: the owner alone.
	ExecApprovals ChannelExecApprovals `json:"execApprovals"`
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
	// The network's own commands.native and commands.nativeSkills. Default: those.
	Commands ChannelCommandSettings `json:"commands"`
	// How replies are shaped while they are written. Default: each key at its own default.
	Streaming PreviewStreaming `json:"streaming"`
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
	// Which message actions the agent (and the message RPC) may take on this bot. Default: each at its own default.
	Actions DiscordActions `json:"actions"`
	// Whether links in replies are sent without Discord's embedded previews. Default true.
	SuppressEmbeds *bool `json:"suppressEmbeds"`
	// The bot's presence status: online, idle, dnd or invisible. Default "" (Discord's: online).
	Status string `json:"status" enum:"online,idle,dnd,invisible"`
	// Text of the bot's activity. Default "" (none).
	Activity string `json:"activity"`
	// Kind of activity: 0 playing, 1 streaming (needs activityUrl), 2 listening, 3 watching, 4 custom status, 5 competing. Default 4 (custom status) when activity is set.
	ActivityType Limit `json:"activityType"`
	// Stream URL of a streaming activity (activityType 1). Default "".
	ActivityURL string `json:"activityUrl"`
	// HTTP(S) proxy for REST calls and the Gateway connection; its credentials never appear in logs. Default "" (HTTPS_PROXY from the environment).
	Proxy string `json:"proxy"`
	// Limits on how long another bot and this one may answer each other. Default: channels.defaults.botLoopProtection, key by key.
	BotLoopProtection BotLoopProtection `json:"botLoopProtection"`
	// Handles (without the "@") the agent may write as "@Handle" to mention, and ping, a known Discord user, by user id; an account's entries are added to the channel's. Unknown handles, @everyone, @here and text in code are left as written. Default {} (replies ping no one).
	MentionAliases map[string]string `json:"mentionAliases"`
}

// DiscordActions is channels.discord.actions.
type DiscordActions struct {
	// react and reactions. Default true.
	Reactions *bool `json:"reactions"`
	// poll. Default true.
	Polls *bool `json:"polls"`
	// send, edit, delete and read. Default true.
	Messages *bool `json:"messages"`
	// thread-create, thread-list and thread-reply. Default true.
	Threads *bool `json:"threads"`
	// pin, unpin and list-pins. Default true.
	Pins *bool `json:"pins"`
	// search. Default true.
	Search *bool `json:"search"`
	// member-info. Default true.
	MemberInfo *bool `json:"memberInfo"`
	// channel-info and channel-list. Default true.
	ChannelInfo *bool `json:"channelInfo"`
	// role-info. Default true.
	RoleInfo *bool `json:"roleInfo"`
	// channel-list (channelInfo false turns it off too). Default true.
	Channels *bool `json:"channels"`
	// voice-status. Default true.
	VoiceStatus *bool `json:"voiceStatus"`
	// event-list and event-create. Default true.
	Events *bool `json:"events"`
	// sticker (sending one). Default true.
	Stickers *bool `json:"stickers"`
	// emoji-upload. Default true.
	EmojiUploads *bool `json:"emojiUploads"`
	// sticker-upload. Default true.
	StickerUploads *bool `json:"stickerUploads"`
	// permissions. Default true.
	Permissions *bool `json:"permissions"`
	// role-add and role-remove. Default false.
	Roles bool `json:"roles"`
	// timeout, kick and ban. Default false.
	Moderation bool `json:"moderation"`
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
	// Tool limits in this server (a channel's own tools replace them), on top of the tool policy. Default: none.
	Tools ChannelToolPolicy `json:"tools"`
	// Whether a message addressed to someone else is ignored: one that mentions another user or role (not @everyone or @here) or replies to another bot, unless it also mentions this bot (or replies to it). Default false.
	IgnoreOtherMentions *bool `json:"ignoreOtherMentions"`
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
	// Tool limits in this chat, on top of the tool policy. Default: the server's.
	Tools ChannelToolPolicy `json:"tools"`
	// Whether a message addressed to someone else, and not to this bot, is ignored in this channel. Default: the server's.
	IgnoreOtherMentions *bool `json:"ignoreOtherMentions"`
}

// SlackChannel is channels.slack.
type SlackChannel struct {
	SlackAccount
	// Who on this network may answer approval prompts. Default: the owner alone.
	ExecApprovals ChannelExecApprovals `json:"execApprovals"`
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
	// The network's own commands.native and commands.nativeSkills. Default: those.
	Commands ChannelCommandSettings `json:"commands"`
	// How replies are shaped while they are written. Default: each key at its own default.
	Streaming PreviewStreaming `json:"streaming"`
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
	// Which message actions the agent (and the message RPC) may take in this workspace. Default: each at its own default.
	Actions SlackActions `json:"actions"`
	// Whether Slack expands links in replies into previews (chat.postMessage unfurl_links). Default false.
	UnfurlLinks bool `json:"unfurlLinks"`
	// Whether Slack expands media links in replies (unfurl_media). Default true.
	UnfurlMedia *bool `json:"unfurlMedia"`
	// Limits on how long another bot and this one may answer each other. Default: channels.defaults.botLoopProtection, key by key.
	BotLoopProtection BotLoopProtection `json:"botLoopProtection"`
	// Which implicit facts count as mentioning the bot in channels. Default: each at its own default.
	ImplicitMentions SlackImplicitMentions `json:"implicitMentions"`
}

// SlackImplicitMentions is channels.slack.implicitMentions (and an
// account's).
type SlackImplicitMentions struct {
	// Whether a reply in a thread started by the bot's own message counts as mentioning it. Default true.
	ReplyToBot *bool `json:"replyToBot"`
}

// SlackActions is channels.slack.actions.
type SlackActions struct {
	// react and reactions. Default true.
	Reactions *bool `json:"reactions"`
	// send, edit, delete, read and thread-reply. Default true.
	Messages *bool `json:"messages"`
	// pin, unpin and list-pins. Default true.
	Pins *bool `json:"pins"`
	// member-info. Default true.
	MemberInfo *bool `json:"memberInfo"`
	// channel-info and channel-list. Default true.
	ChannelInfo *bool `json:"channelInfo"`
	// search. Default true.
	Search *bool `json:"search"`
	// emoji-list. Default true.
	EmojiList *bool `json:"emojiList"`
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
	// Tool limits in this chat, on top of the tool policy. Default: none.
	Tools ChannelToolPolicy `json:"tools"`
	// Whether a channel message that mentions another user but not this bot is ignored; direct and group DMs are not affected, and a user-group mention alone is let through. Default false.
	IgnoreOtherMentions *bool `json:"ignoreOtherMentions"`
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
	// Which message actions the agent (and the message RPC) may take, on every linked device. Default: each at its own default.
	Actions WhatsappActions `json:"actions"`

	present bool
}

// WhatsappAccount is one linked WhatsApp device's settings.
type WhatsappAccount struct {
	ChannelCommon
	// How replies are shaped. Default: each key at its own default.
	Streaming ChannelStreaming `json:"streaming"`
	// Senders allowed to talk to the bot in groups, in E.164. Default [] (allowFrom).
	GroupAllowFrom IDList `json:"groupAllowFrom"`
	// Groups by JID, or "*", with their own settings. Default {} (none under groupPolicy "allowlist").
	Groups map[string]WhatsappGroup `json:"groups"`
	// Whether messages the agent handled are marked read. Default true.
	SendReadReceipts *bool `json:"sendReadReceipts"`
	// Per-direct-chat settings by the sender's number (E.164), or "*" for every direct chat. Default {} (none).
	Direct map[string]WhatsappDirect `json:"direct"`
}

// WhatsappDirect is channels.whatsapp.direct.<number>.
type WhatsappDirect struct {
	// Extra system prompt for this direct chat. Default "".
	SystemPrompt string `json:"systemPrompt"`
}

// WhatsappActions is channels.whatsapp.actions.
type WhatsappActions struct {
	// send. Default true.
	SendMessage *bool `json:"sendMessage"`
	// react. Default true.
	Reactions *bool `json:"reactions"`
	// poll. Default true.
	Polls *bool `json:"polls"`
}

// WhatsappGroup is channels.whatsapp.groups.<jid>.
type WhatsappGroup struct {
	// Whether the bot answers only when mentioned. Default true.
	RequireMention *bool `json:"requireMention"`
	// Extra system prompt for this group. Default "".
	SystemPrompt string `json:"systemPrompt"`
	// Tool limits in this chat, on top of the tool policy. Default: none.
	Tools ChannelToolPolicy `json:"tools"`
}

// TTS is the tts section (and agents.entries.<id>.tts, which deep-merges
// over it): replies spoken as voice notes.
type TTS struct {
	// When replies are spoken: "off", "always", "inbound" (only after an inbound voice message) or "tagged" (only replies carrying a [[tts:...]] directive or a [[tts:text]] block). Default "off".
	Auto string `json:"auto" enum:"off,always,inbound,tagged"`
	// Older form of auto: true means "always"; auto wins when both are set. Default false.
	Enabled bool `json:"enabled"`
	// Which replies are spoken: "final" (the answer) or "all" (tool and block replies too; this gateway sends only final replies, so both speak the answer). Default "final".
	Mode string `json:"mode" enum:"final,all"`
	// Speech provider id: "openai", "elevenlabs" or "tts-local-cli" (a program on this machine) speak here (other ids OpenClaw knows are kept, with a warning, and speak nothing). Default "" (the first of openai, elevenlabs with an API key, then tts-local-cli with a command).
	Provider string `json:"provider"`
	// Hard cap on the characters sent to the provider; a longer reply is cut to fit before it is spoken. Default 4096.
	MaxTextLength int `json:"maxTextLength" min:"1" max:"100000"`
	// Milliseconds one provider request may take. Default 30000.
	TimeoutMs int `json:"timeoutMs" min:"1" max:"600000"`
	// Whether the model may steer one reply's speech with [[tts:...]] directives. Default: enabled, provider switching off.
	ModelOverrides TTSModelOverrides `json:"modelOverrides"`
	// Provider settings by provider id (openai, elevenlabs, tts-local-cli, ...). Default {} (each provider's defaults, keys from the environment).
	Providers map[string]TTSProvider `json:"providers"`
	// The persona replies speak as (a key of personas, any case); /tts persona <id> overrides it. Default "" (none).
	Persona string `json:"persona"`
	// Spoken identities by id: a preferred provider and, per provider, settings laid over tts.providers.<id>. Default {} (none).
	Personas map[string]TTSPersona `json:"personas"`

	present bool
}

// TTSPersona is tts.personas.<id>.
type TTSPersona struct {
	// Name shown for the persona. Default "" (the id).
	Label string `json:"label"`
	// What the persona sounds like, for people reading the config. Default "".
	Description string `json:"description"`
	// Provider the persona speaks with, after /tts provider and an allowed directive, before tts.provider. Default "" (tts.provider).
	Provider string `json:"provider"`
	// When the persona has no settings for the provider that speaks: "preserve-persona" and "provider-defaults" speak with the provider's own settings (there are no provider-neutral persona prompts here), "fail" skips that provider. Default "preserve-persona".
	FallbackPolicy string `json:"fallbackPolicy" enum:"preserve-persona,provider-defaults,fail"`
	// Settings by provider id, laid key by key over tts.providers.<id>. Default {} (none).
	Providers map[string]TTSProvider `json:"providers"`
}

// TTSModelOverrides is tts.modelOverrides.
type TTSModelOverrides struct {
	// Directives are obeyed (they are always taken out of the visible text). Default true.
	Enabled *bool `json:"enabled"`
	// A directive may name another provider. Default false.
	AllowProvider bool `json:"allowProvider"`
}

// TTSProvider is tts.providers.<id>; each provider reads the keys it knows.
type TTSProvider struct {
	// API key (a string or SecretRef). Default "" (OPENAI_API_KEY for openai; ELEVENLABS_API_KEY or XI_API_KEY for elevenlabs).
	APIKey SecretInput `json:"apiKey"`
	// API base URL. Default "https://api.openai.com/v1" (openai, or OPENAI_TTS_BASE_URL), "https://api.elevenlabs.io" (elevenlabs).
	BaseURL string `json:"baseUrl"`
	// Model id. Default "gpt-4o-mini-tts" (openai), "eleven_multilingual_v2" (elevenlabs).
	Model string `json:"model"`
	// Older name of model (elevenlabs). Default "".
	ModelID string `json:"modelId"`
	// Voice name (openai). Default "coral".
	SpeakerVoice string `json:"speakerVoice"`
	// Older name of speakerVoice. Default "".
	Voice string `json:"voice"`
	// Voice id (elevenlabs). Default "pMsXgVXv3BLzUgSXRplE".
	SpeakerVoiceID string `json:"speakerVoiceId"`
	// Older name of speakerVoiceId. Default "".
	VoiceID string `json:"voiceId"`
	// How to speak (openai "instructions"). Default "" (none).
	Instructions string `json:"instructions"`
	// Audio format asked for (openai): "mp3", "opus" or "wav". Default "" (opus for a voice note, mp3 otherwise).
	ResponseFormat string `json:"responseFormat" enum:"mp3,opus,wav"`
	// Speaking speed (openai 0.25 to 4). Default 0 (the provider's, 1).
	Speed float64 `json:"speed"`
	// ElevenLabs voice settings, sent only when present. Default: the voice's own.
	VoiceSettings TTSVoiceSettings `json:"voiceSettings"`
	// ElevenLabs text normalization: "auto", "on" or "off". Default "" (the provider's).
	ApplyTextNormalization string `json:"applyTextNormalization" enum:"auto,on,off"`
	// ElevenLabs language, ISO 639-1 ("en"). Default "" (detected).
	LanguageCode string `json:"languageCode"`
	// ElevenLabs seed, 0 to 4294967295, for best-effort determinism. Default 0 (none).
	Seed int `json:"seed" min:"0" max:"4294967295"`
	// The speech program (tts-local-cli), a path or a name on PATH, optionally with its own arguments after spaces; it runs without a shell. Default "" (none).
	Command string `json:"command"`
	// Its arguments (tts-local-cli), each one argument: {{Text}} is the text (else it comes on stdin), {{OutputPath}}, {{OutputDir}} and {{OutputBase}} the file it writes (else its stdout is the audio). Default [].
	Args []string `json:"args"`
	// What the program writes (tts-local-cli): "mp3", "opus" or "wav". Default "mp3".
	OutputFormat string `json:"outputFormat"`
	// Milliseconds the program may take (tts-local-cli). Default 0 (the request's timeout, else 120000).
	TimeoutMs int `json:"timeoutMs" min:"1"`
	// Folder the program runs in (tts-local-cli). Default "" (the gateway's).
	Cwd string `json:"cwd"`
	// Variables added to the program's environment (tts-local-cli), which otherwise holds only PATH, HOME, USER, the locale and the temporary and XDG folders: none of the gateway's secrets. Default {}.
	Env map[string]string `json:"env"`
}

// TTSVoiceSettings is tts.providers.elevenlabs.voiceSettings.
type TTSVoiceSettings struct {
	// 0 to 1. Default 0.5.
	Stability float64 `json:"stability"`
	// 0 to 1. Default 0.75.
	SimilarityBoost float64 `json:"similarityBoost"`
	// 0 to 1. Default 0.
	Style float64 `json:"style"`
	// Default true.
	UseSpeakerBoost *bool `json:"useSpeakerBoost"`
	// 0.5 to 2. Default 1.
	Speed float64 `json:"speed"`

	present bool
}

// ToolMedia is tools.media: understanding inbound media before the agent
// sees the message. Only audio (speech to text) is in effect here.
type ToolMedia struct {
	// Media models tried in order, each for the capabilities it lists; an entry's keys override tools.media.audio's. Only provider "openai" and "elevenlabs" entries with the "audio" capability (or none listed) transcribe here. Default [] (audio picks openai, else elevenlabs, whichever has an API key).
	Models []MediaModelEntry `json:"models"`
	// Speech to text of inbound voice notes and audio files. Default: on when an openai or elevenlabs key is found.
	Audio MediaAudio `json:"audio"`
}

// MediaModelEntry is one tools.media.models[] entry.
type MediaModelEntry struct {
	// Provider id ("openai"); a CLI entry has type "cli" instead. Default "".
	Provider string `json:"provider"`
	// Model id. Default "gpt-4o-transcribe" (openai), "scribe_v2" (elevenlabs).
	Model string `json:"model"`
	// What the entry handles: "audio", "image", "video". Default [] (every capability its provider has).
	Capabilities []string `json:"capabilities"`
	// "provider" or "cli"; CLI entries are not in effect here. Default "provider".
	Type string `json:"type" enum:"provider,cli"`
	// API base URL. Default: tools.media.audio.baseUrl, else models.providers.<provider>.baseUrl, else the provider's.
	BaseURL string `json:"baseUrl"`
	// Largest file sent to this entry, in bytes. Default: tools.media.audio.maxBytes.
	MaxBytes int `json:"maxBytes" min:"1"`
	// Characters of transcript kept. Default: tools.media.audio.maxChars.
	MaxChars int `json:"maxChars" min:"1"`
	// Language hint (ISO 639-1). Default: tools.media.audio.language.
	Language string `json:"language"`
	// Transcription prompt (context, spellings). Default: tools.media.audio.prompt.
	Prompt string `json:"prompt"`
	// Seconds one transcription may take. Default: tools.media.audio.timeoutSeconds.
	TimeoutSeconds int `json:"timeoutSeconds" min:"1"`
}

// MediaAudio is tools.media.audio.
type MediaAudio struct {
	// false turns transcription off. Default true (on when an openai or elevenlabs key is configured or found).
	Enabled *bool `json:"enabled"`
	// "provider/model" to try first among the entries. Default "".
	PreferredModel string `json:"preferredModel"`
	// API base URL of the provider. Default: models.providers.<provider>.baseUrl, else the provider's.
	BaseURL string `json:"baseUrl"`
	// Largest audio file transcribed, in bytes; larger ones reach the agent untranscribed. Default 20971520 (20 MB).
	MaxBytes int `json:"maxBytes" min:"1"`
	// Characters of transcript kept. Default 0 (all).
	MaxChars int `json:"maxChars" min:"0"`
	// Language hint (ISO 639-1). Default "" (detected).
	Language string `json:"language"`
	// Transcription prompt (context, spellings in the audio's language). Default "" (none).
	Prompt string `json:"prompt"`
	// Seconds one transcription may take. Default 60.
	TimeoutSeconds int `json:"timeoutSeconds" min:"1"`
	// Also post the transcript in the chat. Default false.
	EchoTranscript bool `json:"echoTranscript"`
	// The echo's text; {transcript} is replaced. Default "📝 \"{transcript}\"".
	EchoFormat string `json:"echoFormat"`
}
