package config

import (
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"
)

const (
	// DefaultPort is the gateway port when nothing sets one.
	DefaultPort = 18789
	// DevPort is the port `--dev` uses; the caller applies it.
	DevPort = 19001
	// RedactedSentinel replaces secret values in output meant for display,
	// the same marker OpenClaw uses, so its clients recognise it.
	RedactedSentinel = "__OPENCLAW_REDACTED__"
)

// Defaults returns a new Config holding every default. Load and Parse decode
// the file over it, so a key that is absent keeps its default and a key that
// is present (even as 0, "" or false) keeps the file's value.
func Defaults() *Config {
	yes := func() *bool { b := true; return &b }
	return &Config{
		Gateway: Gateway{
			Mode: "local",
			Port: DefaultPort,
			Bind: "loopback",
			Auth: GatewayAuth{
				Mode: "token",
				RateLimit: RateLimit{
					MaxAttempts:    10,
					WindowMs:       60_000,
					LockoutMs:      300_000,
					ExemptLoopback: yes(),
				},
			},
			ControlUI: ControlUI{Enabled: yes()},
			Nodes:     GatewayNodes{Pairing: NodePairing{AutoApproveLocal: yes()}},
			Reload:    Reload{Mode: "hybrid"},
			Retention: GatewayRetention{
				ChannelMessages: RetentionOf(7 * 24 * time.Hour), ChannelMaxRows: 100_000,
				ToolAudit: RetentionOf(30 * 24 * time.Hour), ToolAuditMaxRows: 100_000,
			},
		},
		Logging:  Logging{Level: "info", ConsoleStyle: "pretty"},
		Messages: Messages{GroupChat: MessagesGroupChat{HistoryLimit: 50}},
		Agents: Agents{Defaults: AgentDefaults{
			TimeoutSeconds: 48 * 60 * 60,
			Subagents: SubagentDefaults{
				MaxConcurrent: 8, MaxSpawnDepth: 1, MaxChildrenPerAgent: 5,
				AnnounceTimeoutMs: 120_000, ArchiveAfterMinutes: 60,
			},
			Heartbeat:         Heartbeat{Every: "30m", Target: "owner"},
			ContextInjection:  "always",
			BootstrapMaxChars: 20_000, BootstrapTotalMaxChars: 60_000, TypingIntervalSeconds: 6,
			Sandbox: AgentSandbox{Mode: "off", Scope: "agent", WorkspaceAccess: "none"},
		}},
		Cron:    Cron{Enabled: yes(), SessionRetention: RetentionOf(24 * time.Hour), FailureAlert: CronFailureAlert{Enabled: yes(), After: 2, CooldownMs: 3_600_000, Mode: "announce"}},
		Browser: Browser{Enabled: yes(), DefaultProfile: "openclaw", EvaluateEnabled: yes(), Headless: yes()},
		Tools: Tools{Guard: ToolGuard{DefaultPolicy: "allow", ApprovalTimeoutSeconds: 600}, Disclosure: ToolDisclosure{Mode: "progressive"},
			Sessions: ToolSessions{Visibility: "all"},
			Exec:     ToolExec{TimeoutSeconds: 1800, BackgroundMs: 10_000, CleanupMs: 1_800_000},
			Web: ToolWeb{Fetch: ToolWebFetch{MaxCharsCap: 20_000, MaxChars: 20_000, MaxRedirects: 3, MaxResponseBytes: 750_000, TimeoutSeconds: 30, CacheTTLMinutes: 15},
				Search: ToolWebSearch{MaxResults: 5, TimeoutSeconds: 30, CacheTTLMinutes: 15}}},
		Session: Session{
			Scope: "per-sender", DMScope: "main", GroupScope: "per-group", MainKey: "main",
			Reset:         SessionReset{Mode: "none", AtHour: 4},
			ResetTriggers: []string{"/new", "/reset"},
		},
	}
}

// ApplyDefaults fills every field still at its zero value (nil for the
// *bool fields) with its default. It is for configs built in code; configs
// from Load already have their defaults, and there a 0 the user wrote is
// kept rather than replaced.
func (c *Config) ApplyDefaults() {
	fillZero(reflect.ValueOf(c).Elem(), reflect.ValueOf(Defaults()).Elem())
}

func fillZero(dst, def reflect.Value) {
	if dst.Kind() == reflect.Struct && !isLeafType(dst.Type()) {
		for i := range dst.NumField() {
			if dst.Type().Field(i).IsExported() {
				fillZero(dst.Field(i), def.Field(i))
			}
		}
		return
	}
	if dst.IsZero() {
		dst.Set(def)
	}
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// IsEnabled reports whether the Control UI is served (nil means the default, true).
func (c ControlUI) IsEnabled() bool { return boolOr(c.Enabled, true) }

// Base is basePath without a trailing slash: "" for the root, else like
// "/openclaw".
func (c ControlUI) Base() string { return strings.TrimRight(c.BasePath, "/") }

// IsLoopbackExempt reports whether loopback clients skip rate limiting
// (nil means the default, true).
func (r RateLimit) IsLoopbackExempt() bool { return boolOr(r.ExemptLoopback, true) }

// AutoApprovesLocal reports whether local pairing requests are approved
// without asking (nil means the default, true).
func (p NodePairing) AutoApprovesLocal() bool { return boolOr(p.AutoApproveLocal, true) }

// SlogLevel maps logging.level onto slog levels: trace is below debug, fatal
// above error, and silent above everything.
func (l Logging) SlogLevel() slog.Level {
	switch l.Level {
	case "trace":
		return slog.LevelDebug - 4
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	case "fatal":
		return slog.LevelError + 4
	case "silent":
		return slog.LevelError + 1000
	}
	return slog.LevelInfo
}

// IsEnabled reports cron.enabled (default true).
func (c Cron) IsEnabled() bool { return boolOr(c.Enabled, true) }

// IsEnabled reports cron.failureAlert.enabled (default true).
func (c CronFailureAlert) IsEnabled() bool { return boolOr(c.Enabled, true) }

// IsEnabled reports browser.enabled (default true).
func (b Browser) IsEnabled() bool { return boolOr(b.Enabled, true) }

// EvaluateAllowed reports browser.evaluateEnabled (default true).
func (b Browser) EvaluateAllowed() bool { return boolOr(b.EvaluateEnabled, true) }

// IsHeadless reports browser.headless (default true).
func (b Browser) IsHeadless() bool { return boolOr(b.Headless, true) }

// IsEnabled reports mcp.servers.<name>.enabled (default true).
func (m MCPServer) IsEnabled() bool { return boolOr(m.Enabled, true) }

// IsEnabled reports plugins.entries.<id>.enabled: optional plugins are
// off until turned on.
func (p PluginEntry) IsEnabled() bool { return boolOr(p.Enabled, false) }

// IsEnabled reports skills.entries.<name>.enabled (default true).
func (s SkillEntry) IsEnabled() bool { return boolOr(s.Enabled, true) }

// Permits reports whether plugins.enabled, allow and deny let the plugin
// id run at all; its entry may still turn it off.
func (p Plugins) Permits(id string) bool {
	if p.Enabled != nil && !*p.Enabled {
		return false
	}
	if slices.Contains(p.Deny, id) {
		return false
	}
	return len(p.Allow) == 0 || slices.Contains(p.Allow, id)
}
