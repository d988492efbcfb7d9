package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetup(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		existing string
		wantErr  string
		wantOut  string
		check    func(t *testing.T, home, file string)
	}{
		{name: "baseline fresh", args: []string{"--baseline", "--workspace", "WS"}, wantOut: "with a generated gateway token",
			check: func(t *testing.T, home, file string) {
				snap := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), nil)
				if tok := snap.Config.Gateway.Auth.Token.Value; tok != fixedGatewayToken {
					t.Errorf("token %q", tok)
				}
				ws := snap.Config.Agents.Defaults.Workspace
				if fi, err := os.Stat(ws); err != nil || !fi.IsDir() || ws != filepath.Join(home, "ws") {
					t.Errorf("workspace %q: %v", ws, err)
				}
			}},
		{name: "baseline keeps a config", args: []string{"--baseline", "--json"}, existing: "// mine\n{gateway: {port: 18888}}\n",
			wantOut: `"configCreated": false`,
			check: func(t *testing.T, home, file string) {
				if file != "// mine\n{gateway: {port: 18888}}\n" {
					t.Errorf("config changed:\n%s", file)
				}
			}},
		{name: "baseline keeps the named workspace", args: []string{"--baseline", "--workspace", "WS"},
			existing: "{agents: {defaults: {workspace: \"/tmp/setup-test-other\"}}}\n",
			check: func(t *testing.T, home, file string) {
				if strings.Contains(file, filepath.Join(home, "ws")) {
					t.Errorf("workspace replaced:\n%s", file)
				}
			}},
		{name: "baseline leaves an invalid config", args: []string{"--baseline"}, existing: "{gateway: {port: \"x\"}}\n",
			wantErr: "run openclaw doctor --fix"},
		{name: "baseline refuses onboarding flags", args: []string{"--baseline", "--auth-choice", "skip"},
			wantErr: "--baseline only creates the config and workspace"},
		{name: "message refused", args: []string{"-m", "status"}, wantErr: "system agent"},
		{name: "onboarding flag runs onboarding", args: []string{"--non-interactive", "--accept-risk", "--auth-choice", "skip", "--skip-health", "--gateway-port", "18777"},
			wantOut: "Wrote ",
			check: func(t *testing.T, home, file string) {
				if !strings.Contains(file, `"port": 18777`) || !strings.Contains(file, "written by openclaw onboard") {
					t.Errorf("config:\n%s", file)
				}
			}},
		{name: "bare on a fresh system onboards", args: nil, wantErr: "stdin is not a terminal"},
		{name: "bare on a configured system", args: []string{"--json"}, existing: "{gateway: {port: 18555}, agents: {defaults: {model: \"openai/gpt-5.1\"}}}\n",
			check: func(t *testing.T, home, file string) {}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			withFixedToken(t)
			path := filepath.Join(home, ".openclaw", "openclaw.json")
			if tc.existing != "" {
				writeConfig(t, path, tc.existing)
			}
			args := []string{"setup"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "WS", filepath.Join(home, "ws")))
			}
			stdout, stderr, err := runCLI(t, args...)
			data, _ := os.ReadFile(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tc.wantErr) {
					t.Fatalf("err %v stderr %q, want %q", err, stderr, tc.wantErr)
				}
				if string(data) != tc.existing {
					t.Errorf("config changed:\n%s", data)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s%s", err, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.wantOut) {
				t.Errorf("stdout %q lacks %q", stdout, tc.wantOut)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("config mode %v %v", fi, err)
			}
			if tc.name == "bare on a configured system" {
				var o struct {
					Configured bool
					Model      string
					Gateway    struct{ Port int }
				}
				if err := json.Unmarshal([]byte(stdout), &o); err != nil || !o.Configured || o.Model != "openai/gpt-5.1" || o.Gateway.Port != 18555 {
					t.Errorf("overview %s (%v)", stdout, err)
				}
			}
			tc.check(t, home, string(data))
		})
	}
}
