package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

func TestMCPAddRemove(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	writeConfig(t, path, "{\n  // my gateway\n  gateway: { mode: \"local\" },\n}\n")
	steps := []struct {
		args    []string
		wantOut string
		wantErr string
		fileHas []string
		fileNot []string
	}{
		{args: []string{"mcp", "add", "files", "--command", "mcp-files", "--arg", "--root", "--arg", "/srv", "--env", "GITHUB_TOKEN=x"},
			wantOut: "Set mcp.servers.files in", fileHas: []string{"mcp-files", `"--root"`, "GITHUB_TOKEN", "// my gateway"}},
		{args: []string{"mcp", "add", "remote", "--url", "https://mcp.example/mcp", "--header", "Authorization=Bearer abc"},
			wantOut: "Set mcp.servers.remote in", fileHas: []string{"https://mcp.example/mcp", "Bearer abc"}},
		{args: []string{"mcp", "add", "both", "--command", "x", "--url", "http://y"}, wantErr: "--command or --url"},
		{args: []string{"mcp", "add", "bad", "--command", "x", "--env", "NOEQUALS"}, wantErr: "want KEY=VALUE"},
		{args: []string{"mcp", "add", "bad name", "--command", "x"}, wantErr: "server name"},
		{args: []string{"mcp", "remove", "files"}, wantOut: "Removed mcp.servers.files", fileNot: []string{"mcp-files"}, fileHas: []string{"remote"}},
		{args: []string{"mcp", "remove", "files"}, wantErr: "not in the config file"},
	}
	for _, s := range steps {
		stdout, stderr, err := runCLI(t, s.args...)
		if s.wantErr != "" {
			if err == nil || !strings.Contains(stderr, s.wantErr) {
				t.Fatalf("%v: err %v stderr %q, want %q", s.args, err, stderr, s.wantErr)
			}
			continue
		}
		if err != nil || !strings.Contains(stdout, s.wantOut) {
			t.Fatalf("%v: %v\nstdout %s\nstderr %s", s.args, err, stdout, stderr)
		}
		b, _ := os.ReadFile(path)
		for _, w := range s.fileHas {
			if !strings.Contains(string(b), w) {
				t.Errorf("%v: file lacks %q:\n%s", s.args, w, b)
			}
		}
		for _, w := range s.fileNot {
			if strings.Contains(string(b), w) {
				t.Errorf("%v: file still has %q:\n%s", s.args, w, b)
			}
		}
	}
}

func TestMCPListAndTools(t *testing.T) {
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Reply("mcp.status", map[string]any{"servers": []any{
		map[string]any{"name": "files", "transport": "stdio", "state": "ready", "tools": 3, "enabled": true},
		map[string]any{"name": "remote", "transport": "streamable-http", "state": "failed", "error": "connection refused", "enabled": true},
	}})
	out, stderr, err := runCLI(t, "mcp", "list", "--url", srv.URL(), "--token", testToken)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	for _, w := range []string{"files", "ready", "remote", "failed", "connection refused"} {
		if !strings.Contains(out, w) {
			t.Errorf("mcp list lacks %q:\n%s", w, out)
		}
	}
	srv.Reply("tools.schemas", map[string]any{"tools": []any{
		map[string]any{"name": "files__read", "description": "[mcp:files] read a file", "source": "mcp"},
		map[string]any{"name": "remote__ask", "description": "[mcp:remote] ask", "source": "mcp"},
		map[string]any{"name": "read", "description": "core read", "source": "core"},
	}})
	out, stderr, err = runCLI(t, "mcp", "tools", "files", "--url", srv.URL(), "--token", testToken)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if !strings.Contains(out, "files__read") || strings.Contains(out, "remote__ask") || strings.Contains(out, "core read") {
		t.Errorf("mcp tools files:\n%s", out)
	}
}
