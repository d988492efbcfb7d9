package config

import (
	"net/url"
	"regexp"
	"sort"
	"sync"
)

// browserProfileName is what OpenClaw allows as a profile name.
var browserProfileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]{1,64}$`) })

// Browser profile ports are taken from this range, as OpenClaw does.
const (
	BrowserPortMin = 18800
	BrowserPortMax = 18899
)

// validateBrowser checks browser.*: profile names, ports and URLs.
func (d *decoder) validateBrowser(c *Config) {
	b := c.Browser
	if b.DefaultProfile != "" && !browserProfileName().MatchString(b.DefaultProfile) {
		n, p := d.where("browser.defaultProfile", "browser")
		d.errorAtPath(n, p, "profile name %q must be lowercase letters, digits and hyphens, at most 64", b.DefaultProfile)
	}
	names := make([]string, 0, len(b.Profiles))
	for name := range b.Profiles {
		names = append(names, name)
	}
	sort.Strings(names)
	ports := map[int]string{}
	for _, name := range names {
		pr := b.Profiles[name]
		path := "browser.profiles." + name
		if !browserProfileName().MatchString(name) {
			n, p := d.where(path, "browser.profiles")
			d.errorAtPath(n, p, "profile name %q must be lowercase letters, digits and hyphens, at most 64", name)
		}
		if pr.CDPPort != 0 {
			if pr.CDPPort < BrowserPortMin || pr.CDPPort > BrowserPortMax {
				n, p := d.where(path+".cdpPort", path)
				d.errorAtPath(n, p, "cdpPort %d is outside %d–%d", pr.CDPPort, BrowserPortMin, BrowserPortMax)
			} else if other, dup := ports[pr.CDPPort]; dup {
				n, p := d.where(path+".cdpPort", path)
				d.errorAtPath(n, p, "cdpPort %d is also profile %s's", pr.CDPPort, other)
			}
			ports[pr.CDPPort] = name
		}
		if pr.CDPURL != "" {
			u, err := url.Parse(pr.CDPURL)
			if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") {
				n, p := d.where(path+".cdpUrl", path)
				d.errorAtPath(n, p, "cdpUrl %q is not an http(s) or ws(s) URL of a browser's DevTools endpoint", pr.CDPURL)
			}
			if pr.CDPPort != 0 {
				n, p := d.where(path+".cdpPort", path)
				d.warnAtPath(n, p, "ignored: a profile with cdpUrl attaches to that browser")
			}
		}
	}
	cs := c.Tools.ContentStudio
	if cs.XhsCreatorURL != "" {
		// The page gets the user's logged-in cookies for wherever it is, so
		// only an https page will do.
		if u, err := url.Parse(cs.XhsCreatorURL); err != nil || u.Scheme != "https" || u.Host == "" {
			n, p := d.where("tools.contentStudio.xhsCreatorUrl", "tools.contentStudio")
			d.errorAtPath(n, p, "xhsCreatorUrl %q is not an https URL", cs.XhsCreatorURL)
		}
	}
	if cs.XhsProfile != "" && !browserProfileName().MatchString(cs.XhsProfile) {
		n, p := d.where("tools.contentStudio.xhsProfile", "tools.contentStudio")
		d.errorAtPath(n, p, "profile name %q must be lowercase letters, digits and hyphens, at most 64", cs.XhsProfile)
	}
	if b.SSRFPolicy.DangerouslyAllowPrivateNetwork {
		n, p := d.where("browser.ssrfPolicy.dangerouslyAllowPrivateNetwork", "browser.ssrfPolicy")
		d.warnAtPath(n, p, "pages the agent opens may reach this machine and your private network")
	}
}
