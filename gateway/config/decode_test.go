package config

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDecodeDefaults(t *testing.T) {
	snap, errs, warns := parseTest(t, `{}`, nil)
	if len(errs) > 0 || len(warns) > 0 {
		t.Fatalf("errors %q, warnings %q", errs, warns)
	}
	if !reflect.DeepEqual(snap.Config, Defaults()) {
		t.Errorf("config = %+v, want defaults", snap.Config)
	}
}

func TestDecodeAllImplementedKeys(t *testing.T) {
	src := `{
  gateway: {
    mode: "remote", port: 19001, bind: "custom", customBindHost: "10.1.2.3",
    auth: {
      mode: "password", token: "t", password: "p",
      rateLimit: { maxAttempts: 3, windowMs: 1000, lockoutMs: 0, exemptLoopback: false },
    },
    controlUi: { enabled: false, basePath: "/oc", allowedOrigins: ["https://a.example"] },
    nodes: { pairing: { autoApproveLocal: false, autoApproveCidrs: ["10.0.0.0/8"] } },
    reload: { mode: "off" },
    remote: { url: "wss://gw.example", transport: "direct", token: "rt", password: "rp", tlsFingerprint: "ab:cd" },
    trustedProxies: ["127.0.0.1", "10.0.0.0/8"],
    retention: { channelMessages: "2d", channelMaxRows: 500, toolAudit: false, toolAuditMaxRows: 300 },
  },
  logging: { level: "debug", file: "/var/log/oc.log", consoleStyle: "json" },
  models: { providers: {
    local: { api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1", apiKey: "k", headers: { "X-A": "1" },
      timeoutSeconds: 30, maxTokens: 1000, models: [{ id: "llama3", name: "Llama", contextWindow: 8192, maxTokens: 512 }] },
  } },
  agents: {
    defaults: {
      model: { primary: "local/llama3", fallbacks: ["local/other"] }, workspace: "/w", timeoutSeconds: 60,
      subagents: { maxConcurrent: 2, maxSpawnDepth: 2, maxChildrenPerAgent: 3, allowAgents: ["*"], announceTimeoutMs: 5,
        archiveAfterMinutes: 6, runTimeoutSeconds: 7, model: "local/small" },
      heartbeat: { every: "1h", prompt: "p", target: "telegram", to: "42", accountId: "a", model: "local/small", timeoutSeconds: 9,
        activeHours: { start: "08:00", end: "22:00", timezone: "Europe/Berlin" } },
      maxConcurrent: 3, mediaMaxMb: 5, userTimezone: "America/Chicago", bootstrapMaxChars: 100, bootstrapTotalMaxChars: 200,
      contextInjection: "never", skipOptionalBootstrapFiles: ["SOUL.md"], typingMode: "message", typingIntervalSeconds: 4,
      sandbox: { mode: "non-main", scope: "session", workspaceAccess: "ro", workspaceRoot: "/sb", backend: "ssh",
        docker: { image: "img", network: "bridge" },
        ssh: { target: "u@h:2222", command: "ssh2", workspaceRoot: "/r", strictHostKeyChecking: false, updateHostKeys: false,
          identityFile: "/k", certificateFile: "/c", knownHostsFile: "/kh" } },
    },
    entries: { main: { name: "Main", description: "d", workspace: "/m", model: "local/llama3",
      identity: { name: "M", emoji: "m", avatar: "a.png", theme: "t" }, default: true,
      subagents: { allowAgents: ["helper"], model: "local/small" }, heartbeat: { every: "0m" },
      bootstrapMaxChars: 7, bootstrapTotalMaxChars: 8, contextInjection: "always",
      sandbox: { mode: "all" }, tools: { elevated: { enabled: false, allowFrom: { telegram: ["1"] } } } } },
    ownership: "explicit",
  },
  tools: { profile: "coding", deny: ["exec"], byProvider: { openai: { allow: ["read"] } },
    guard: { defaultPolicy: "require_approval", rules: [{ tool: "exec", argPattern: "^ls", action: "allow" }], approvalTimeoutSeconds: 30 },
    disclosure: { mode: "legacy" }, sessions: { visibility: "agent" },
    exec: { mode: "full", security: "full", ask: "off", safeBins: ["head", "myfilter"], safeBinTrustedDirs: ["/opt/bin"],
      safeBinProfiles: { myfilter: { minPositional: 0, maxPositional: 0, allowedValueFlags: ["-n"], deniedFlags: ["-f"] }, other: {} },
      timeoutSeconds: 0, backgroundMs: 500, notifyOnExit: false, pathPrepend: ["/opt/bin"], cleanupMs: 60000,
      applyPatch: { enabled: false, workspaceOnly: true, allowModels: ["gpt-5.4"] } },
    elevated: { enabled: true, allowFrom: { telegram: ["4242"] } },
    web: { fetch: { enabled: false, maxCharsCap: 1000, maxResponseBytes: 32000, timeoutSeconds: 5, cacheTtlMinutes: 0, userAgent: "ua",
      maxChars: 500, maxRedirects: 0, headers: { "X-Route": "r" },
      ssrfPolicy: { dangerouslyAllowPrivateNetwork: false, allowedHostnames: ["intranet.example"], blockedHostnames: ["*.ads.example"], allowRfc2544BenchmarkRange: true, allowIpv6UniqueLocalRange: true } },
      search: { enabled: false, provider: "brave", maxResults: 3, timeoutSeconds: 7, cacheTtlMinutes: 0 } } },
  session: { scope: "global", dmScope: "per-peer", groupScope: "main", mainKey: "home",
    reset: { mode: "idle", atHour: 5, idleMinutes: 30 }, resetTriggers: ["/fresh"], identityLinks: { alice: ["telegram:1"] } },
  cron: { enabled: false, skipMissedJobs: true, failureAlert: { enabled: false, after: 3, cooldownMs: 60000, channel: "telegram",
    to: "42", accountId: "a", mode: "announce", includeSkipped: true }, sessionRetention: "1h" },
  browser: { enabled: false, defaultProfile: "work", executablePath: "/usr/bin/chromium", evaluateEnabled: false, headless: false,
    ssrfPolicy: { allowedHostnames: ["intranet.example"] },
    profiles: { work: { cdpPort: 18801 }, remote: { cdpUrl: "http://10.0.0.5:9222" } } },
}`
	snap, errs, warns := parseTest(t, src, nil)
	if len(errs) > 0 || len(warns) > 0 {
		t.Fatalf("errors %q, warnings %q", errs, warns)
	}
	no, yes := false, true
	want := &Config{
		Gateway: Gateway{
			Mode: "remote", Port: 19001, Bind: "custom", CustomBindHost: "10.1.2.3",
			Auth: GatewayAuth{
				Mode: "password", Token: SecretInput{Value: "t"}, Password: SecretInput{Value: "p"},
				RateLimit: RateLimit{MaxAttempts: 3, WindowMs: 1000, LockoutMs: 0, ExemptLoopback: &no},
			},
			ControlUI:      ControlUI{Enabled: &no, BasePath: "/oc", AllowedOrigins: []string{"https://a.example"}},
			Nodes:          GatewayNodes{Pairing: NodePairing{AutoApproveLocal: &no, AutoApproveCIDRs: []string{"10.0.0.0/8"}}},
			Reload:         Reload{Mode: "off"},
			Remote:         Remote{URL: "wss://gw.example", Transport: "direct", Token: SecretInput{Value: "rt"}, Password: SecretInput{Value: "rp"}, TLSFingerprint: "ab:cd"},
			TrustedProxies: []string{"127.0.0.1", "10.0.0.0/8"},
			Retention: GatewayRetention{ChannelMessages: RetentionOf(48 * time.Hour), ChannelMaxRows: 500,
				ToolAudit: Retention{Off: true}, ToolAuditMaxRows: 300},
		},
		Logging:  Logging{Level: "debug", File: "/var/log/oc.log", ConsoleStyle: "json"},
		Messages: Messages{GroupChat: MessagesGroupChat{HistoryLimit: 50}}, // not in this file: the default
		Models: Models{Providers: map[string]ModelProvider{"local": {
			API: "openai-completions", BaseURL: "http://127.0.0.1:11434/v1", APIKey: SecretInput{Value: "k"},
			Headers: map[string]string{"X-A": "1"}, TimeoutSeconds: 30, MaxTokens: 1000,
			Models: []ModelDefinition{{ID: "llama3", Name: "Llama", ContextWindow: 8192, MaxTokens: 512}},
		}}},
		Agents: Agents{
			Defaults: AgentDefaults{
				Model: ModelRef{Primary: "local/llama3", Fallbacks: []string{"local/other"}}, Workspace: "/w", TimeoutSeconds: 60,
				Subagents: SubagentDefaults{MaxConcurrent: 2, MaxSpawnDepth: 2, MaxChildrenPerAgent: 3, AllowAgents: []string{"*"},
					AnnounceTimeoutMs: 5, ArchiveAfterMinutes: 6, RunTimeoutSeconds: 7, Model: ModelRef{Primary: "local/small"}},
				Heartbeat: Heartbeat{Every: "1h", Prompt: "p", Target: "telegram", To: "42", AccountID: "a", Model: "local/small", TimeoutSeconds: 9,
					ActiveHours: HeartbeatActiveHours{Start: "08:00", End: "22:00", Timezone: "Europe/Berlin"}},
				MaxConcurrent: 3, MediaMaxMb: 5, UserTimezone: "America/Chicago", BootstrapMaxChars: 100, BootstrapTotalMaxChars: 200,
				ContextInjection: "never", SkipOptionalBootstrapFiles: []string{"SOUL.md"}, TypingMode: "message", TypingIntervalSeconds: 4,
				Sandbox: AgentSandbox{Mode: "non-main", Scope: "session", WorkspaceAccess: "ro", WorkspaceRoot: "/sb", Backend: "ssh",
					Docker: SandboxDocker{Image: "img", Network: "bridge"},
					SSH: SandboxSSH{Target: "u@h:2222", Command: "ssh2", WorkspaceRoot: "/r", StrictHostKeyChecking: &no, UpdateHostKeys: &no,
						IdentityFile: "/k", CertificateFile: "/c", KnownHostsFile: "/kh"}},
			},
			Entries: map[string]AgentEntry{"main": {Name: "Main", Description: "d", Workspace: "/m", Model: ModelRef{Primary: "local/llama3"},
				Identity: AgentIdentity{Name: "M", Emoji: "m", Avatar: "a.png", Theme: "t"}, Default: true,
				Subagents: AgentSubagents{AllowAgents: []string{"helper"}, Model: ModelRef{Primary: "local/small"}},
				Heartbeat: Heartbeat{Every: "0m"}, BootstrapMaxChars: 7, BootstrapTotalMaxChars: 8, ContextInjection: "always",
				Sandbox: AgentSandbox{Mode: "all"}, Tools: ToolPolicy{Elevated: AgentToolElevated{Enabled: &no, AllowFrom: map[string][]string{"telegram": {"1"}}}}}},
			Ownership: "explicit",
		},
		Tools: Tools{Profile: "coding", Deny: []string{"exec"}, ByProvider: map[string]ToolProviderRules{"openai": {Allow: []string{"read"}}},
			Guard:      ToolGuard{DefaultPolicy: "require_approval", Rules: []GuardRule{{Tool: "exec", ArgPattern: "^ls", Action: "allow"}}, ApprovalTimeoutSeconds: 30},
			Disclosure: ToolDisclosure{Mode: "legacy"}, Sessions: ToolSessions{Visibility: "agent"},
			Exec: ToolExec{Mode: "full", Security: "full", Ask: "off", SafeBins: []string{"head", "myfilter"}, SafeBinTrustedDirs: []string{"/opt/bin"},
				SafeBinProfiles: map[string]SafeBinProfile{
					"myfilter": {MaxPositional: Limit{N: 0, Set: true}, AllowedValueFlags: []string{"-n"}, DeniedFlags: []string{"-f"}},
					"other":    {}},
				TimeoutSeconds: 0, BackgroundMs: 500, NotifyOnExit: &no, PathPrepend: []string{"/opt/bin"}, CleanupMs: 60000,
				ApplyPatch: ToolApplyPatch{Enabled: &no, WorkspaceOnly: &yes, AllowModels: []string{"gpt-5.4"}}},
			Elevated: ToolElevated{Enabled: true, AllowFrom: map[string][]string{"telegram": {"4242"}}},
			Web: ToolWeb{Fetch: ToolWebFetch{Enabled: &no, MaxCharsCap: 1000, MaxResponseBytes: 32000, TimeoutSeconds: 5, UserAgent: "ua",
				MaxChars: 500, Headers: map[string]string{"X-Route": "r"},
				SSRFPolicy: ToolWebFetchSSRFPolicy{AllowedHostnames: []string{"intranet.example"}, BlockedHostnames: []string{"*.ads.example"}, AllowRfc2544BenchmarkRange: true, AllowIPv6UniqueLocalRange: true}},
				Search: ToolWebSearch{Enabled: &no, Provider: "brave", MaxResults: 3, TimeoutSeconds: 7}}},
		Session: Session{Scope: "global", DMScope: "per-peer", GroupScope: "main", MainKey: "home",
			Reset: SessionReset{Mode: "idle", AtHour: 5, IdleMinutes: 30}, ResetTriggers: []string{"/fresh"},
			IdentityLinks: map[string][]string{"alice": {"telegram:1"}}},
		Cron: Cron{Enabled: &no, SkipMissedJobs: true, FailureAlert: CronFailureAlert{Enabled: &no, After: 3, CooldownMs: 60000,
			Channel: "telegram", To: "42", AccountID: "a", Mode: "announce", IncludeSkipped: true},
			SessionRetention: RetentionOf(time.Hour)},
		Browser: Browser{Enabled: &no, DefaultProfile: "work", ExecutablePath: "/usr/bin/chromium", EvaluateEnabled: &no, Headless: &no,
			SSRFPolicy: BrowserSSRFPolicy{AllowedHostnames: []string{"intranet.example"}},
			Profiles:   map[string]BrowserProfile{"work": {CDPPort: 18801}, "remote": {CDPURL: "http://10.0.0.5:9222"}}},
	}
	if !reflect.DeepEqual(snap.Config, want) {
		t.Errorf("config =\n%+v\nwant\n%+v", snap.Config, want)
	}
}

// decodeErrorCases each produce exactly one error.
var decodeErrorCases = []struct {
	name, src, want string
}{
	{"string for number", `{gateway: {port: "18789"}}`, `openclaw.json:1:18: gateway.port: expected a number, got a string`},
	{"bind host alias", `{gateway: {bind: "0.0.0.0"}}`, `openclaw.json:1:18: gateway.bind: "0.0.0.0" is not allowed here; want one of "loopback", "lan", "tailnet", "auto" or "custom"`},
	{"port zero", `{gateway: {port: 0}}`, `openclaw.json:1:18: gateway.port: must be at least 1, got 0`},
	{"port too big", `{gateway: {port: 70000}}`, `openclaw.json:1:18: gateway.port: must be at most 65535, got 70000`},
	{"fractional port", `{gateway: {port: 80.5}}`, `openclaw.json:1:18: gateway.port: expected a whole number, got 80.5`},
	{"string for bool", `{gateway: {controlUi: {enabled: "yes"}}}`, `openclaw.json:1:33: gateway.controlUi.enabled: expected true or false, got a string`},
	{"number in string list", "{gateway: {trustedProxies: [\"10.0.0.1\",\n 5]}}", `openclaw.json:2:2: gateway.trustedProxies[1]: expected a string, got a number`},
	{"scalar for section", `{gateway: "local"}`, `openclaw.json:1:11: gateway: expected an object, got a string`},
	{"unknown level", `{logging: {level: "verbose"}}`, `openclaw.json:1:19: logging.level: "verbose" is not allowed here; want one of "trace", "debug", "info", "warn", "error", "fatal" or "silent"`},
	{"null value", `{logging: {file: null}}`, `openclaw.json:1:18: logging.file: expected a string, got null`},
	{"top level array", `[]`, `openclaw.json:1:1: the config must be an object, got an array`},
	{"no auth on lan", `{gateway: {bind: "lan", auth: {mode: "none"}}}`, `openclaw.json:1:38: gateway.auth.mode: auth mode "none" is only allowed with a loopback bind, but gateway.bind is "lan"; use token or password auth`},
	{"custom bind needs host", `{gateway: {bind: "custom"}}`, `openclaw.json:1:18: gateway.bind: bind "custom" needs customBindHost set to an IPv4 address, got ""`},
	{"base path without slash", `{gateway: {controlUi: {basePath: "oc"}}}`, `openclaw.json:1:34: gateway.controlUi.basePath: basePath "oc" must be a URL path like "/openclaw": starting with /, of letters, digits, '-', '_', '.' and '/', without ".."`},
	{"base path escape", `{gateway: {controlUi: {basePath: "/a/../b"}}}`, `openclaw.json:1:34: gateway.controlUi.basePath: basePath "/a/../b" must be a URL path like "/openclaw": starting with /, of letters, digits, '-', '_', '.' and '/', without ".."`},
	{"bad proxy", `{gateway: {trustedProxies: ["10.0.0.0/33"]}}`, `openclaw.json:1:29: gateway.trustedProxies[0]: "10.0.0.0/33" is not an IP address or CIDR range`},
	{"secret ref bad source", `{gateway: {auth: {token: {source: "vault", provider: "default", id: "X"}}}}`, `openclaw.json:1:35: gateway.auth.token.source: "vault" is not a secret source; want one of "env", "file", "exec" or "store"`},
	{"secret ref extra key", `{gateway: {auth: {token: {source: "env", provider: "default", id: "X", x: 1}}}}`, `openclaw.json:1:72: gateway.auth.token.x: unknown key in a SecretRef; want source, provider and id`},
	{"secret wrong type", `{gateway: {auth: {token: 5}}}`, `openclaw.json:1:26: gateway.auth.token: expected a string or a SecretRef object {source, provider, id}, got a number`},
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range decodeErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			snap, errs, _ := parseTest(t, tc.src, nil)
			if len(errs) != 1 || errs[0] != tc.want {
				t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), tc.want)
			}
			if snap == nil || snap.Config != nil {
				t.Errorf("a config with errors must come back without Config")
			}
		})
	}
}

func TestAllErrorsAtOnce(t *testing.T) {
	src := `{
  gateway: {
    port: "x",
    bind: "everywhere",
    portt: 1,
    auth: { mode: "none", rateLimit: { maxAttempts: 0 } },
  },
  logging: { level: 3 },
  nonsense: true,
}`
	_, err := Parse(testFile, []byte(src), LoadOptions{Getenv: envFunc(nil)})
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("want *LoadError, got %v", err)
	}
	want := []string{
		`/cfg/openclaw.json:3:11: gateway.port: expected a number, got a string`,
		`/cfg/openclaw.json:4:11: gateway.bind: "everywhere" is not allowed here; want one of "loopback", "lan", "tailnet", "auto" or "custom"`,
		`/cfg/openclaw.json:5:5: gateway.portt: unknown key (did you mean "port"?)`,
		`/cfg/openclaw.json:6:53: gateway.auth.rateLimit.maxAttempts: must be at least 1, got 0`,
		`/cfg/openclaw.json:8:21: logging.level: expected a string, got a number`,
		`/cfg/openclaw.json:9:3: nonsense: unknown key`,
	}
	if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, want) {
		t.Errorf("error text:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

func TestSecretRefFromEnv(t *testing.T) {
	src := `{gateway: {auth: {token: {source: "env", provider: "default", id: "GW_TOKEN"}},
	  remote: {token: {source: "file", provider: "vault", id: "/x"}}}}`
	snap, errs, warns := parseTest(t, src, map[string]string{"GW_TOKEN": "s3cret"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	tok := snap.Config.Gateway.Auth.Token
	if tok.Value != "s3cret" || tok.Ref == nil || tok.Ref.ID != "GW_TOKEN" {
		t.Errorf("token = %+v", tok)
	}
	if strings.Contains(tok.String(), "s3cret") {
		t.Errorf("String() leaks the secret: %s", tok)
	}
	if !containsAll(warns, `gateway.remote.token: secret provider "vault" is not configured`) {
		t.Errorf("warnings = %q", warns)
	}
	_, _, warns = parseTest(t, src, nil)
	if !containsAll(warns, "gateway.auth.token: environment variable GW_TOKEN is not set") {
		t.Errorf("warnings = %q", warns)
	}
}

func TestApplyDefaults(t *testing.T) {
	var c Config
	c.Gateway.Port = 1234
	c.ApplyDefaults()
	want := Defaults()
	want.Gateway.Port = 1234
	if !reflect.DeepEqual(&c, want) {
		t.Errorf("got %+v, want %+v", c, want)
	}
	if !c.Gateway.ControlUI.IsEnabled() || !(ControlUI{}).IsEnabled() || !(RateLimit{}).IsLoopbackExempt() || !(NodePairing{}).AutoApprovesLocal() {
		t.Error("nil *bool fields must read as their default, true")
	}
}

func TestTooManyIssues(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n")
	for i := range 150 {
		b.WriteString("  bad" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "_" + strings.Repeat("y", i) + ": 1,\n")
	}
	b.WriteString("}\n")
	_, errs, _ := parseTest(t, b.String(), nil)
	if len(errs) != maxIssues+1 {
		t.Fatalf("got %d errors, want %d listed plus a note", len(errs), maxIssues)
	}
	if last := errs[len(errs)-1]; last != "openclaw.json: 50 more errors are not listed" {
		t.Errorf("last issue = %q", last)
	}
}
