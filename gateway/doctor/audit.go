package doctor

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// Severity is a finding's weight, in OpenClaw's words.
type Severity string

// The severities: critical is exposure to be fixed now, warn a posture to
// review, info a fact worth knowing.
const (
	SeverityCritical Severity = "critical"
	SeverityWarn     Severity = "warn"
	SeverityInfo     Severity = "info"
)

// AuditFinding is one finding, in OpenClaw's shape. The check ids are
// OpenClaw's where the same check exists (docs/gateway/security/
// audit-checks.md); the few of our own follow its naming.
type AuditFinding struct {
	CheckID     string   `json:"checkId"`
	Severity    Severity `json:"severity"`
	Title       string   `json:"title"`
	Detail      string   `json:"detail"`
	Remediation string   `json:"remediation,omitempty"`
}

// Summary counts the findings by severity.
type Summary struct {
	Critical int `json:"critical"`
	Warn     int `json:"warn"`
	Info     int `json:"info"`
}

// AuditReport is one audit, as `openclaw security audit --json` prints it.
type AuditReport struct {
	// TS is when the audit ran, in Unix milliseconds.
	TS       int64          `json:"ts"`
	Summary  Summary        `json:"summary"`
	Findings []AuditFinding `json:"findings"`
	// SecretDiagnostics say which secrets the audit could not resolve.
	SecretDiagnostics []string `json:"secretDiagnostics"`
	// Deep is the live probe's outcome, with --deep.
	Deep *DeepResult `json:"deep,omitempty"`
}

// DeepResult is what the live probe found.
type DeepResult struct {
	Gateway DeepGateway `json:"gateway"`
}

// DeepGateway is the gateway probe.
type DeepGateway struct {
	Attempted bool   `json:"attempted"`
	OK        bool   `json:"ok"`
	Error     string `json:"error,omitempty"`
	// AnonymousRefused is set when a connect without any credential was
	// refused, as it must be unless auth is "none".
	AnonymousRefused *bool `json:"anonymousRefused,omitempty"`
}

// Prober reaches the running gateway for --deep.
type Prober interface {
	Gateway
	// ConnectAnonymous connects with no token, password or device
	// identity; nil means the gateway let it in.
	ConnectAnonymous(ctx context.Context) error
}

// AuditOptions are one audit's inputs. Install is required.
type AuditOptions struct {
	Install *Install
	// Deep probes the running gateway through Probe.
	Deep  bool
	Probe Prober
	Now   func() time.Time
}

// audit is one audit's shared view of the install.
type audit struct {
	in   *Install
	cfg  *config.Config // nil when the config did not load
	tree map[string]any
	// bind is gateway.bind ("loopback" when unset); loopback whether the
	// gateway listens on a loopback address only.
	bind     string
	loopback bool
	// token and password are the gateway's shared secrets, from the config
	// or the environment the gateway would read them from.
	token, password string
	// openPaths are the config paths of open DM and group policies.
	openPaths []string
}

// collector is one family of checks.
type collector func(a *audit) []AuditFinding

var collectors = []collector{
	auditGatewayAuth,
	auditGatewayExposure,
	auditDangerousFlags,
	auditPlaintextSecrets,
	auditHooks,
	auditChannels,
	auditExec,
	auditFilesystem,
}

// Audit runs the security audit.
func Audit(ctx context.Context, o AuditOptions) *AuditReport {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	a := newAudit(o.Install)
	rep := &AuditReport{TS: now().UnixMilli(), Findings: []AuditFinding{}, SecretDiagnostics: []string{}}
	for _, is := range a.unresolvedSecrets() {
		rep.SecretDiagnostics = append(rep.SecretDiagnostics, is)
	}
	for _, c := range collectors {
		rep.Findings = append(rep.Findings, c(a)...)
	}
	if o.Deep {
		var deep []AuditFinding
		rep.Deep, deep = auditDeep(ctx, a, o.Probe)
		rep.Deep.Gateway.Error = newScrubber(o.Install).str(rep.Deep.Gateway.Error)
		rep.Findings = append(rep.Findings, deep...)
	}
	rep.Findings = append([]AuditFinding{attackSurface(a)}, rep.Findings...)
	if a.cfg == nil && o.Install.Snap != nil && o.Install.Snap.Exists {
		rep.Findings = append(rep.Findings, AuditFinding{
			CheckID: "config.invalid", Severity: SeverityWarn, Title: "Config does not load",
			Detail:      "The config has errors, so only the checks that read its raw keys and the file modes ran.",
			Remediation: "Run `openclaw doctor` or `openclaw config validate` to see the errors.",
		})
	}
	scrub := newScrubber(o.Install)
	for i, f := range rep.Findings {
		rep.Findings[i] = scrub.finding(f)
		switch f.Severity {
		case SeverityCritical:
			rep.Summary.Critical++
		case SeverityWarn:
			rep.Summary.Warn++
		default:
			rep.Summary.Info++
		}
	}
	return rep
}

func newAudit(in *Install) *audit {
	a := &audit{in: in, cfg: in.Config(), tree: in.Tree(), bind: "loopback", loopback: true}
	if a.cfg != nil {
		g := a.cfg.Gateway
		a.bind = g.Bind
		switch g.Bind {
		case "", "loopback", "tailnet":
			// tailnet falls back to loopback without Tailscale here.
			a.loopback = true
		case "custom":
			ip, err := netip.ParseAddr(g.CustomBindHost)
			a.loopback = err == nil && ip.IsLoopback()
		default:
			a.loopback = false
		}
		a.token = g.Auth.Token.Value
		if a.token == "" && g.Auth.Token.Ref == nil {
			a.token = in.Getenv("OPENCLAW_GATEWAY_TOKEN")
		}
		a.password = g.Auth.Password.Value
		if a.password == "" && g.Auth.Password.Ref == nil {
			a.password = in.Getenv("OPENCLAW_GATEWAY_PASSWORD")
		}
	} else if b, ok := lookupString(a.tree, "gateway", "bind"); ok {
		a.bind = b
		a.loopback = b == "loopback" || b == "tailnet"
	}
	a.openPaths = openPolicyPaths(a.tree)
	return a
}

func (a *audit) unresolvedSecrets() []string {
	if a.in.Snap == nil {
		return nil
	}
	var out []string
	for _, is := range a.in.Snap.UnresolvedSecrets {
		out = append(out, is.Path+": "+is.Message)
	}
	return out
}

func (a *audit) authMode() string {
	if a.cfg == nil {
		m, _ := lookupString(a.tree, "gateway", "auth", "mode")
		return m
	}
	return a.cfg.Gateway.Auth.Mode
}

func lookupString(tree map[string]any, path ...string) (string, bool) {
	v, ok := config.Lookup(tree, path...)
	s, isStr := v.(string)
	return s, ok && isStr
}

func lookupBool(tree map[string]any, path ...string) (bool, bool) {
	v, ok := config.Lookup(tree, path...)
	b, isBool := v.(bool)
	return b, ok && isBool
}

// exposedSeverity is critical when the gateway listens beyond loopback.
func (a *audit) exposedSeverity() Severity {
	if a.loopback {
		return SeverityWarn
	}
	return SeverityCritical
}

// secretProblem checks a shared secret: a placeholder (blank, "undefined",
// "null"), fewer than 24 characters, or too few distinct characters to be
// random. It names the length, never the value.
func secretProblem(kind, value string) *AuditFinding {
	v := strings.TrimSpace(value)
	switch {
	case v == "" || v == "undefined" || v == "null":
		return &AuditFinding{
			CheckID: "gateway." + kind + "_placeholder_value", Severity: SeverityCritical,
			Title:       "Gateway " + kind + " is a blank or undefined/null placeholder",
			Detail:      "The selected gateway " + kind + " is a known non-secret value.",
			Remediation: "Generate a real secret (for example `openssl rand -hex 32`) and set gateway.auth." + kind + ", then restart the gateway.",
		}
	case len(v) < 24:
		return &AuditFinding{
			CheckID: "gateway." + kind + "_too_short", Severity: SeverityWarn,
			Title:       "Gateway " + kind + " looks short",
			Detail:      fmt.Sprintf("gateway auth %s is %d chars; prefer a long random %s.", kind, len(v), kind),
			Remediation: "Generate one with `openssl rand -hex 32` and set gateway.auth." + kind + ".",
		}
	case distinctRunes(v) < 8:
		return &AuditFinding{
			CheckID: "gateway." + kind + "_weak", Severity: SeverityWarn,
			Title:       "Gateway " + kind + " looks weak",
			Detail:      fmt.Sprintf("gateway auth %s has only %d distinct characters; it is not a random value.", kind, distinctRunes(v)),
			Remediation: "Generate one with `openssl rand -hex 32` and set gateway.auth." + kind + ".",
		}
	}
	return nil
}

func distinctRunes(s string) int {
	seen := map[rune]bool{}
	for _, r := range s {
		seen[r] = true
	}
	return len(seen)
}

// auditGatewayAuth: the gateway's own auth mode and secrets.
func auditGatewayAuth(a *audit) []AuditFinding {
	var out []AuditFinding
	mode := a.authMode()
	hasSecret := (mode == "token" || mode == "") && a.token != "" || mode == "password" && a.password != ""
	if a.cfg != nil {
		hasSecret = hasSecret || mode == "token" && a.cfg.Gateway.Auth.Token.Ref != nil || mode == "password" && a.cfg.Gateway.Auth.Password.Ref != nil
	}
	switch {
	case mode == "trusted-proxy":
	case !a.loopback && (mode == "none" || !hasSecret):
		out = append(out, AuditFinding{
			CheckID: "gateway.bind_no_auth", Severity: SeverityCritical,
			Title:       "Gateway binds beyond loopback without auth",
			Detail:      fmt.Sprintf("gateway.bind=%q but gateway.auth.mode is %q with no shared secret; this gateway refuses to start so, and anyone on the network could drive it if it did.", a.bind, orDefault(mode, "token")),
			Remediation: "Set gateway.auth (token recommended) or bind to loopback.",
		})
	case a.loopback && mode == "none":
		out = append(out, AuditFinding{
			CheckID: "gateway.loopback_no_auth", Severity: SeverityCritical,
			Title:       "Gateway auth missing on loopback",
			Detail:      "gateway.auth.mode is \"none\": every local process and user, and anything a reverse proxy forwards, can drive the gateway.",
			Remediation: "Set gateway.auth.mode \"token\" with a long random gateway.auth.token.",
		})
	}
	if a.cfg != nil {
		switch mode {
		case "token", "":
			if a.cfg.Gateway.Auth.Token.Ref == nil || a.token != "" {
				if f := secretProblem("token", a.token); f != nil && (a.token != "" || a.cfg.Gateway.Auth.Token.Ref != nil) {
					out = append(out, *f)
				}
			}
		case "password":
			if f := secretProblem("password", a.password); f != nil {
				out = append(out, *f)
			}
		case "trusted-proxy":
			out = append(out, trustedProxyFindings(a.cfg)...)
		}
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func trustedProxyFindings(cfg *config.Config) []AuditFinding {
	g := cfg.Gateway
	tp := g.Auth.TrustedProxy
	out := []AuditFinding{{
		CheckID: "gateway.trusted_proxy_auth", Severity: SeverityCritical,
		Title:       "Trusted-proxy auth mode enabled",
		Detail:      "gateway.auth.mode=\"trusted-proxy\" hands authentication to a reverse proxy: the user header it sends is believed from the gateway.trustedProxies addresses.",
		Remediation: "Make sure the proxy terminates TLS and authenticates users, gateway.trustedProxies names only it, and the gateway's port is not reachable around it.",
	}}
	if len(g.TrustedProxies) == 0 {
		out = append(out, AuditFinding{CheckID: "gateway.trusted_proxy_no_proxies", Severity: SeverityCritical,
			Title: "Trusted-proxy auth enabled but no trusted proxies configured", Detail: "gateway.trustedProxies is empty: every connect is refused.",
			Remediation: "Set gateway.trustedProxies to the proxy's address."})
	}
	if strings.TrimSpace(tp.UserHeader) == "" {
		out = append(out, AuditFinding{CheckID: "gateway.trusted_proxy_no_user_header", Severity: SeverityCritical,
			Title: "Trusted-proxy auth missing userHeader config", Detail: "gateway.auth.trustedProxy.userHeader is not set.",
			Remediation: "Set gateway.auth.trustedProxy.userHeader to the header the proxy puts the user in."})
	}
	if tp.AllowLoopback {
		out = append(out, AuditFinding{CheckID: "gateway.trusted_proxy_allow_loopback", Severity: SeverityWarn,
			Title: "Trusted-proxy auth allows loopback proxy sources", Detail: "gateway.auth.trustedProxy.allowLoopback=true: every process on this host can claim any user.",
			Remediation: "Enable it only when a proxy on this host is the one way in."})
	}
	if len(tp.AllowUsers) == 0 {
		out = append(out, AuditFinding{CheckID: "gateway.trusted_proxy_no_allowlist", Severity: SeverityWarn,
			Title: "Trusted-proxy auth allows all authenticated users", Detail: "gateway.auth.trustedProxy.allowUsers is empty, so anyone the proxy authenticates gets in.",
			Remediation: "Set gateway.auth.trustedProxy.allowUsers to the users meant to operate the gateway."})
	}
	if tp.DeviceAutoApprove.Enabled {
		out = append(out, AuditFinding{CheckID: "gateway.trusted_proxy_device_auto_approve", Severity: SeverityWarn,
			Title: "Trusted-proxy operator device auto-approval enabled", Detail: "gateway.auth.trustedProxy.deviceAutoApprove.enabled=true pairs new browser devices on the proxy's word alone.",
			Remediation: "Enable it only when the proxy is the only way in and allowUsers is set."})
		if slices.Contains(tp.DeviceAutoApprove.Scopes, "operator.admin") {
			out = append(out, AuditFinding{CheckID: "gateway.trusted_proxy_device_auto_approve_admin", Severity: SeverityCritical,
				Title: "Trusted-proxy device auto-approval allows full admin", Detail: "gateway.auth.trustedProxy.deviceAutoApprove.scopes includes operator.admin.",
				Remediation: "Remove operator.admin and grant it per identity with gateway.auth.identityScopes."})
		}
	}
	return out
}

// auditGatewayExposure: plain-text listeners beyond loopback, browser
// origins, proxy header trust.
func auditGatewayExposure(a *audit) []AuditFinding {
	var out []AuditFinding
	var proxies []string
	if a.cfg != nil {
		proxies = a.cfg.Gateway.TrustedProxies
	}
	if !a.loopback && len(proxies) == 0 {
		detail := fmt.Sprintf("gateway.bind=%q serves HTTP and WebSocket in plain text on the network: the token and every message can be read on the way, and gateway.trustedProxies is empty, so no TLS proxy is in front.", a.bind)
		if _, set := config.Lookup(a.tree, "gateway", "tls"); set {
			detail += " gateway.tls is not in effect here: this gateway has no TLS listener of its own."
		}
		out = append(out, AuditFinding{
			CheckID: "gateway.bind_no_tls", Severity: SeverityWarn,
			Title:       "Gateway reachable beyond loopback without TLS",
			Detail:      detail,
			Remediation: "Keep gateway.bind loopback and reach it through an SSH tunnel or Tailscale, or put a TLS reverse proxy in front and list it in gateway.trustedProxies.",
		})
	}
	var origins []string
	if a.cfg != nil {
		origins = a.cfg.Gateway.ControlUI.AllowedOrigins
	}
	if slices.Contains(origins, "*") {
		out = append(out, AuditFinding{
			CheckID: "gateway.control_ui.allowed_origins_wildcard", Severity: a.exposedSeverity(),
			Title:       "Control UI allowed origins contains wildcard",
			Detail:      "gateway.controlUi.allowedOrigins includes \"*\": any web page a user visits may open the gateway's WebSocket.",
			Remediation: "List the exact origins (for example https://control.example.com).",
		})
	}
	if on, _ := lookupBool(a.tree, "gateway", "allowRealIpFallback"); on {
		out = append(out, AuditFinding{
			CheckID: "gateway.real_ip_fallback_enabled", Severity: a.exposedSeverity(),
			Title:       "X-Real-IP fallback is enabled",
			Detail:      "gateway.allowRealIpFallback=true trusts X-Real-IP when a proxy sends no X-Forwarded-For; a proxy that passes a client's X-Real-IP lets it spoof its address.",
			Remediation: "Keep gateway.allowRealIpFallback false.",
		})
	}
	switch m, _ := lookupString(a.tree, "gateway", "tailscale", "mode"); m {
	case "funnel":
		out = append(out, AuditFinding{CheckID: "gateway.tailscale_funnel", Severity: SeverityCritical,
			Title: "Tailscale Funnel exposure enabled", Detail: "gateway.tailscale.mode=\"funnel\" asks for public internet exposure.",
			Remediation: "Prefer gateway.tailscale.mode \"serve\" (tailnet only) or \"off\"."})
	case "serve":
		out = append(out, AuditFinding{CheckID: "gateway.tailscale_serve", Severity: SeverityInfo,
			Title: "Tailscale Serve exposure enabled", Detail: "gateway.tailscale.mode=\"serve\" exposes the gateway to the tailnet."})
	}
	return out
}

// auditDangerousFlags: every enabled break-glass switch, one finding each,
// as OpenClaw reports them (config.insecure_or_dangerous_flags).
func auditDangerousFlags(a *audit) []AuditFinding {
	var flags []string
	walkTree(a.tree, "", func(path, key string, v any) {
		k := strings.ToLower(key)
		switch b, isBool := v.(bool); {
		case isBool && b && (strings.HasPrefix(k, "dangerous") || k == "allowinsecureauth" || k == "allowunsafeexternalcontent"):
			flags = append(flags, path+"=true")
		case isBool && !b && path == "tools.exec.applyPatch.workspaceOnly":
			flags = append(flags, path+"=false")
		}
	})
	if n := suppressionCount(a.tree); n > 0 {
		flags = append(flags, fmt.Sprintf("security.audit.suppressions configured (%d)", n))
	}
	slices.Sort(flags)
	var out []AuditFinding
	for _, f := range flags {
		out = append(out, AuditFinding{
			CheckID: "config.insecure_or_dangerous_flags", Severity: SeverityWarn,
			Title:       "Insecure or dangerous config flag enabled",
			Detail:      "Detected enabled flag: " + f + ".",
			Remediation: "Disable this flag when not actively debugging, or keep the deployment on trusted, local-only networks.",
		})
	}
	return out
}

func suppressionCount(tree map[string]any) int {
	v, _ := config.Lookup(tree, "security", "audit", "suppressions")
	l, _ := v.([]any)
	return len(l)
}

// walkTree calls fn for every leaf (and every member) of the tree with its
// dotted path and key.
func walkTree(v any, path string, fn func(path, key string, v any)) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(mapsKeys(t)) {
			p := config.JoinPath(path, k)
			fn(p, k, t[k])
			walkTree(t[k], p, fn)
		}
	case []any:
		for i, e := range t {
			walkTree(e, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}
