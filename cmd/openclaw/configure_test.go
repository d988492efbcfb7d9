package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const configureStart = `// hand-written, keep me
{
  gateway: {
    port: 18789, // the usual
    auth: { mode: "token", token: "old-token-value" },
  },
  agents: { defaults: { model: "openai/gpt-5.1" } },
}
`

// TestConfigure drives configure's sections through stdin against a
// config with comments, checking what the gateway reads back and that
// the comments survive.
func TestConfigure(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		stdin       string
		noConfig    bool
		notTerminal bool
		wantErr     string
		check       func(t *testing.T, home, file string)
	}{
		{name: "gateway section", args: []string{"--section", "gateway"}, stdin: "18900\n2\n2\n",
			check: func(t *testing.T, home, file string) {
				c := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), nil).Config
				if c.Gateway.Port != 18900 || c.Gateway.Bind != "lan" || c.Gateway.Auth.Token.Value != fixedGatewayToken {
					t.Errorf("gateway %d %s %q", c.Gateway.Port, c.Gateway.Bind, c.Gateway.Auth.Token.Value)
				}
				// configure records its run, as OpenClaw's does.
				if w := c.Wizard; w.LastRunCommand != "configure" || w.LastRunVersion != version || w.LastRunMode != "local" || w.LastRunAt == "" {
					t.Errorf("wizard %+v", w)
				}
			}},
		{name: "gateway keeps the token", args: []string{"--section", "gateway"}, stdin: "\n\n\n",
			check: func(t *testing.T, home, file string) {
				if !strings.Contains(file, "old-token-value") {
					t.Errorf("token replaced:\n%s", file)
				}
			}},
		{name: "model section keeps the default unless asked", args: []string{"--section", "model"},
			// provider 6 (custom), base URL, model id, key, keep the default model
			stdin: "6\nPROVIDER/v1\nm2\nnew-key\nn\n",
			check: func(t *testing.T, home, file string) {
				c := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), nil).Config
				if c.Agents.Defaults.Model.Primary != "openai/gpt-5.1" || c.Models.Providers["custom"].BaseURL == "" {
					t.Errorf("model %q providers %v", c.Agents.Defaults.Model.Primary, c.Models.Providers)
				}
				if strings.Contains(file, "new-key") {
					t.Error("the config holds the key")
				}
				sec, err := os.ReadFile(filepath.Join(home, ".openclaw", secretsFileName))
				if fi, _ := os.Stat(filepath.Join(home, ".openclaw", secretsFileName)); err != nil || !strings.Contains(string(sec), "new-key") || fi.Mode().Perm() != 0o600 {
					t.Errorf("secrets file %q %v", sec, err)
				}
			}},
		{name: "model section switches the default", args: []string{"--section", "model"},
			stdin: "6\nPROVIDER/v1\nm2\nnew-key\ny\n",
			check: func(t *testing.T, home, file string) {
				c := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), nil).Config
				if c.Agents.Defaults.Model.Primary != "custom/m2" {
					t.Errorf("model %q", c.Agents.Defaults.Model.Primary)
				}
			}},
		{name: "channels section named slack account", args: []string{"--section", "channels"},
			stdin: "3\nwork\n\nxoxb-w\nxapp-w\nWork\ndone\n",
			check: func(t *testing.T, home, file string) {
				c := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), nil).Config
				w := c.Channels.Slack.Accounts["work"]
				if w.BotToken.Value != "xoxb-w" || w.AppToken.Value != "xapp-w" || w.Name != "Work" {
					t.Errorf("slack work account %+v", w)
				}
			}},
		{name: "workspace section", args: []string{"--section", "workspace"}, stdin: "WS\n",
			check: func(t *testing.T, home, file string) {
				c := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), nil).Config
				if fi, err := os.Stat(c.Agents.Defaults.Workspace); err != nil || !fi.IsDir() || !strings.HasPrefix(c.Agents.Defaults.Workspace, home) {
					t.Errorf("workspace %q: %v", c.Agents.Defaults.Workspace, err)
				}
			}},
		{name: "web refused", args: []string{"--section", "web"}, wantErr: "section web is not available here"},
		{name: "unknown section", args: []string{"--section", "bogus"}, wantErr: `--section "bogus": one of workspace`},
		{name: "not a terminal", notTerminal: true, wantErr: "openclaw config set <key> <value>"},
		{name: "no config", noConfig: true, wantErr: "run openclaw onboard first"},
		{name: "input ends", args: []string{"--section", "gateway"}, stdin: "18900\n", wantErr: "input ended"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			withFixedToken(t)
			if !tc.notTerminal {
				withInteractiveStdin(t)
			}
			srv, _ := fakeProvider(t, "new-key")
			path := filepath.Join(home, ".openclaw", "openclaw.json")
			if !tc.noConfig {
				writeConfig(t, path, configureStart)
			}
			stdin := strings.NewReplacer("PROVIDER", srv.URL, "WS", filepath.Join(home, "ws")).Replace(tc.stdin)
			stdout, stderr, err := runCLIStdin(t, stdin, append([]string{"configure"}, tc.args...)...)
			data, _ := os.ReadFile(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tc.wantErr) {
					t.Fatalf("err %v stderr %q, want %q", err, stderr, tc.wantErr)
				}
				if !tc.noConfig && string(data) != configureStart {
					t.Errorf("a failed configure changed the config:\n%s", data)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s%s", err, stdout, stderr)
			}
			for _, c := range []string{"// hand-written, keep me", "// the usual"} {
				if !strings.Contains(string(data), c) {
					t.Errorf("comment %q lost:\n%s", c, data)
				}
			}
			for _, s := range []string{"new-key", "xoxb-w", "xapp-w", fixedGatewayToken} {
				if strings.Contains(stdout+stderr, s) {
					t.Errorf("output shows a secret %q:\n%s%s", s, stdout, stderr)
				}
			}
			tc.check(t, home, string(data))
		})
	}
}
