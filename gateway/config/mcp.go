package config

import (
	"net/url"
	"regexp"
	"sort"
	"sync"
)

// mcpServerName keeps MCP server names usable in tool names
// (<server>__<tool>).
var mcpServerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`) })

// validateMCP checks mcp.servers: a name fit for tool names, exactly one
// of command and url, and a transport that matches.
func (d *decoder) validateMCP(c *Config) {
	names := make([]string, 0, len(c.MCP.Servers))
	for n := range c.MCP.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		s := c.MCP.Servers[name]
		path := "mcp.servers." + name
		if !mcpServerName().MatchString(name) {
			n, p := d.where(path, "mcp.servers")
			d.errorAtPath(n, p, "server name %q must be letters, digits, _ or -, at most 32 (it prefixes its tools' names)", name)
		}
		switch {
		case s.Command == "" && s.URL == "":
			n, p := d.where(path)
			d.errorAtPath(n, p, "set command (a stdio server) or url (a streamable HTTP server)")
		case s.Command != "" && s.URL != "":
			n, p := d.where(path+".url", path)
			d.errorAtPath(n, p, "set command or url, not both")
		case s.URL != "":
			u, err := url.Parse(s.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				n, p := d.where(path+".url", path)
				d.errorAtPath(n, p, "url %q is not an http(s) URL", s.URL)
			}
			if s.Transport == "stdio" {
				n, p := d.where(path+".transport", path)
				d.errorAtPath(n, p, "transport stdio needs command, not url")
			}
		case s.Transport != "" && s.Transport != "stdio":
			n, p := d.where(path+".transport", path)
			d.errorAtPath(n, p, "transport %s needs url, not command", s.Transport)
		}
	}
}

// ValidMCPServerName reports whether name can name an MCP server.
func ValidMCPServerName(name string) bool { return mcpServerName().MatchString(name) }
