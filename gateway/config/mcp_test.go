package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestMCPConfig(t *testing.T) {
	src := `{mcp: {servers: {
  files: { command: "mcp-files", args: ["--root", "/srv"], env: { GITHUB_TOKEN: "x" }, cwd: "/srv", requestTimeoutMs: 5000,
    toolFilter: { include: ["read_*"], exclude: ["read_secret"] } },
  remote: { url: "https://mcp.example/mcp", headers: { Authorization: "Bearer abc" }, transport: "streamable-http", enabled: false },
}}}`
	snap, errs, warns := parseTest(t, src, nil)
	if len(errs) > 0 || len(warns) > 0 {
		t.Fatalf("errors %q warnings %q", errs, warns)
	}
	no := false
	want := map[string]MCPServer{
		"files": {Command: "mcp-files", Args: []string{"--root", "/srv"}, Env: map[string]string{"GITHUB_TOKEN": "x"}, Cwd: "/srv",
			RequestTimeoutMs: 5000, ToolFilter: MCPToolFilter{Include: []string{"read_*"}, Exclude: []string{"read_secret"}}},
		"remote": {URL: "https://mcp.example/mcp", Headers: map[string]string{"Authorization": "Bearer abc"}, Transport: "streamable-http", Enabled: &no},
	}
	got := snap.Config.MCP.Servers
	for name, w := range want {
		g := got[name]
		if w.Env == nil {
			w.Env = g.Env
		}
		if w.Headers == nil {
			w.Headers = g.Headers
		}
		if w.Args == nil {
			w.Args = g.Args
		}
		if w.ToolFilter.Include == nil {
			w.ToolFilter = g.ToolFilter
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s = %+v, want %+v", name, g, w)
		}
	}
	if got["remote"].IsEnabled() || !got["files"].IsEnabled() {
		t.Error("enabled defaults")
	}
	red := Redact(snap.Tree)
	servers := red["mcp"].(map[string]any)["servers"].(map[string]any)
	if h := servers["remote"].(map[string]any)["headers"].(map[string]any)["Authorization"]; h != RedactedSentinel {
		t.Errorf("Authorization header shown: %v", h)
	}
	if e := servers["files"].(map[string]any)["env"].(map[string]any)["GITHUB_TOKEN"]; e != RedactedSentinel {
		t.Errorf("token in env shown: %v", e)
	}

	for _, tc := range []struct{ src, want string }{
		{`{mcp: {servers: {x: {}}}}`, "set command"},
		{`{mcp: {servers: {x: {command: "a", url: "http://b"}}}}`, "not both"},
		{`{mcp: {servers: {x: {url: "ftp://b"}}}}`, "not an http(s) URL"},
		{`{mcp: {servers: {x: {url: "http://b", transport: "stdio"}}}}`, "needs command"},
		{`{mcp: {servers: {x: {command: "a", transport: "streamable-http"}}}}`, "needs url"},
		{`{mcp: {servers: {"bad name": {command: "a"}}}}`, "server name"},
	} {
		_, errs, _ := parseTest(t, tc.src, nil)
		if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
			t.Errorf("%s: errors %q, want %q", tc.src, errs, tc.want)
		}
	}
}
