package config

import (
	"net/netip"
	"slices"
	"strings"
)

// validate checks rules that involve more than one key or a value's meaning.
// Problems are reported at the key the user would change, or the closest
// key the file has.
func (d *decoder) validate(c *Config) {
	d.validateMessages(c)
	d.validateCompaction(c)
	d.validateTailscale(c)
	d.validateInternalHooks(c)
	g := &c.Gateway
	if g.Auth.Mode == "none" && !g.isLoopbackBind() {
		n, path := d.where("gateway.auth.mode", "gateway.bind", "gateway.auth", "gateway")
		d.errorAtPath(n, path, "auth mode \"none\" is only allowed with a loopback bind, but gateway.bind is %q; use token or password auth", g.Bind)
	}
	if g.Bind == "custom" {
		if addr, err := netip.ParseAddr(g.CustomBindHost); err != nil || !addr.Is4() {
			n, path := d.where("gateway.customBindHost", "gateway.bind")
			d.errorAtPath(n, path, "bind \"custom\" needs customBindHost set to an IPv4 address, got %q", g.CustomBindHost)
		}
	} else if g.CustomBindHost != "" {
		n, path := d.where("gateway.customBindHost")
		d.warnAtPath(n, path, "ignored because gateway.bind is %q, not \"custom\"", g.Bind)
	}
	for i, p := range g.TrustedProxies {
		if !isIPOrPrefix(p) {
			path := indexPath("gateway.trustedProxies", i)
			n, _ := d.where(path, "gateway.trustedProxies")
			d.errorAtPath(n, path, "%q is not an IP address or CIDR range", p)
		}
	}
	for i, p := range g.Nodes.Pairing.AutoApproveCIDRs {
		if !isIPOrPrefix(p) {
			path := indexPath("gateway.nodes.pairing.autoApproveCidrs", i)
			n, _ := d.where(path, "gateway.nodes.pairing.autoApproveCidrs")
			d.errorAtPath(n, path, "%q is not a CIDR range", p)
		}
	}
	if bp := g.ControlUI.BasePath; bp != "" && !validBasePath(bp) {
		n, path := d.where("gateway.controlUi.basePath")
		d.errorAtPath(n, path, "basePath %q must be a URL path like \"/openclaw\": starting with /, of letters, digits, '-', '_', '.' and '/', without \"..\"", bp)
	}
	if da := g.Auth.TrustedProxy.DeviceAutoApprove; g.Auth.Mode == "trusted-proxy" && da.Enabled && slices.Contains(da.Scopes, "operator.admin") {
		n, path := d.where("gateway.auth.trustedProxy.deviceAutoApprove.scopes")
		d.warnAtPath(n, path, "includes operator.admin: every user the proxy lets in can pair a new browser device with full admin; grant admin to named users with gateway.auth.identityScopes instead")
	}
	for name, ag := range c.AccessGroups {
		if ag.Type == "discord.channelAudience" {
			n, path := d.where("accessGroups." + name)
			d.warnAtPath(n, path, `type "discord.channelAudience" is not in effect here: Discord channel membership is not looked up, so "accessGroup:%s" lets nobody in`, name)
		}
	}
	d.validateStore(c)
	d.resolveModelAliases(c)
	d.validateAgents(c)
	d.validateChannels(c)
	d.validateBrowser(c)
	d.validateMCP(c)
	d.validateTTS(c)
	d.validateMedia(&c.Tools.Media)
	d.validateHooks(&c.Hooks)
	d.validateApprovals(&c.Approvals)
	d.validateExec(&c.Tools.Exec)
	if p := c.Tools.Web.Search.Provider; !SearchProviderImplemented(p) {
		n, path := d.where("tools.web.search.provider")
		d.warnAtPath(n, path, "provider %q is not in effect here: web_search has brave, minimax, gemini, grok, kimi, perplexity, firecrawl, exa, tavily, serper, searxng, duckduckgo and ollama, and uses them in that order (ollama only when named) instead", p)
	}
	if g.Mode == "remote" && g.Remote.URL == "" && g.Remote.Transport != "ssh" {
		n, path := d.where("gateway.remote.url", "gateway.remote", "gateway.mode")
		d.warnAtPath(n, path, "gateway.mode is \"remote\" but gateway.remote.url is empty")
	}
}

// validBasePath accepts what can prefix a URL path unescaped.
func validBasePath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "..") || strings.Contains(p, "//") {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./", r)) {
			return false
		}
	}
	return true
}

// isLoopbackBind reports whether the gateway listens on loopback only.
func (g *Gateway) isLoopbackBind() bool {
	switch g.Bind {
	case "", "loopback":
		return true
	case "custom":
		addr, err := netip.ParseAddr(g.CustomBindHost)
		return err == nil && addr.IsLoopback()
	}
	return false
}

func isIPOrPrefix(s string) bool {
	if strings.Contains(s, "/") {
		_, err := netip.ParsePrefix(s)
		return err == nil
	}
	_, err := netip.ParseAddr(s)
	return err == nil
}

// where returns the node and path of the first of paths the file wrote.
// With none written, the node is nil and the path the first one given.
func (d *decoder) where(paths ...string) (*node, string) {
	for _, p := range paths {
		if n := d.at[p]; n != nil {
			return n, p
		}
	}
	return nil, paths[0]
}

func (d *decoder) errorAtPath(n *node, path, format string, args ...any) {
	if n == nil {
		d.issues.errorf(nil, -1, path, format, args...)
		return
	}
	d.issues.errorAt(n, false, path, format, args...)
}

func (d *decoder) warnAtPath(n *node, path, format string, args ...any) {
	if n == nil {
		d.issues.warnf(nil, -1, path, format, args...)
		return
	}
	d.issues.warnAt(n, false, path, format, args...)
}

// SearchProviderImplemented reports whether tools.web.search.provider
// names a provider web_search has ("" means the whole chain).
func SearchProviderImplemented(p string) bool {
	switch p {
	case "", "brave", "tavily", "serper", "searxng", "duckduckgo", "perplexity", "exa", "firecrawl", "ollama", "gemini", "grok", "kimi", "minimax":
		return true
	}
	return false
}

// validateTailscale warns that Serve and Funnel are not run here.
func (d *decoder) validateTailscale(c *Config) {
	if m := c.Gateway.Tailscale.Mode; m == "serve" || m == "funnel" {
		n, p := d.where("gateway.tailscale.mode")
		d.warnAtPath(n, p, "%q is not in effect here: the gateway does not run tailscale %s; run it yourself (tailscale %s %d)", m, m, m, c.Gateway.Port)
	}
}
