package main

import (
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailscale/hujson"
)

const fixedGatewayToken = "FIXED-test-gateway-token-0123456789abcdefghij"

// withFixedToken makes the generated gateway token predictable for
// golden files.
func withFixedToken(t *testing.T) {
	t.Helper()
	old, oldClock := newGatewayToken, setupClock
	newGatewayToken = func() (string, error) { return fixedGatewayToken, nil }
	setupClock = func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { newGatewayToken, setupClock = old, oldClock })
}

// closedPort is a local port nothing listens on, so the health probe at
// the end of onboarding finds no gateway instead of someone else's.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// fakeProvider answers a model list to the key want, 401 to any other,
// and counts the requests.
func fakeProvider(t *testing.T, want string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path != "/v1/models" || r.URL.RawQuery != "" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+want {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// normalize puts placeholders for the run's own paths and port.
func normalize(s, home string, port int) string {
	s = strings.ReplaceAll(s, home, "/HOME")
	if port != 0 {
		s = strings.ReplaceAll(s, strconv.Itoa(port), "PORT")
	}
	return s
}

func TestOnboard(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		interactive bool
		stdin       string // answers, one per line
		existing    string // config there before
		providerKey string // the fake provider accepts this key
		golden      string // testdata/<golden>.golden is the config written
		wantErr     string // onboarding fails with this, writing nothing
		wantSecret  string // the secrets file holds it; no other file or output does
		check       func(t *testing.T, cfg, home string)
		env         map[string]string // set for the run
	}{
		{name: "non-interactive openai", golden: "onboard_openai",
			args:       []string{"--non-interactive", "--accept-risk", "--auth-choice", "openai-api-key", "--openai-api-key", "sk-flag-key-1", "--skip-health", "--gateway-port", "18800", "--gateway-bind", "lan"},
			wantSecret: "sk-flag-key-1"},
		{name: "non-interactive key checked", providerKey: "ck-good",
			args:       []string{"--non-interactive", "--accept-risk", "--auth-choice", "custom-api-key", "--custom-base-url", "PROVIDER/v1", "--custom-model-id", "m1", "--custom-api-key", "ck-good", "--gateway-port", "GPORT", "--json"},
			wantSecret: "ck-good",
			check: func(t *testing.T, cfg, home string) {
				if !strings.Contains(cfg, `"model": "custom/m1"`) {
					t.Errorf("config:\n%s", cfg)
				}
			}},
		{name: "non-interactive key refused", providerKey: "ck-good",
			args:    []string{"--non-interactive", "--accept-risk", "--custom-base-url", "PROVIDER/v1", "--custom-model-id", "m1", "--custom-api-key", "ck-bad"},
			wantErr: "refused the key (HTTP 401)"},
		{name: "ref mode keeps the key in the environment",
			args: []string{"--non-interactive", "--accept-risk", "--auth-choice", "apiKey", "--secret-input-mode", "ref", "--skip-health", "--agent-name", "robby"},
			check: func(t *testing.T, cfg, home string) {
				for _, s := range []string{`"apiKey": { "id": "ANTHROPIC_API_KEY", "provider": "default", "source": "env" }`, `"robby": {`, `"model": "anthropic/claude-sonnet-4-5"`} {
					if !strings.Contains(cfg, s) {
						t.Errorf("config lacks %s:\n%s", s, cfg)
					}
				}
				if _, err := os.Stat(filepath.Join(home, ".openclaw", secretsFileName)); err == nil {
					t.Error("ref mode wrote a secrets file")
				}
			}},
		{name: "interactive with channel", interactive: true, golden: "onboard_interactive", providerKey: "typed-key",
			args: []string{"--custom-base-url", "PROVIDER/v1"},
			// risk, model id, key, channel telegram, its token, name, port, bind, workspace, service
			stdin:      "y\nlocal-model\ntyped-key\n1\n42:tg\"quote\\back\n\nGPORT\n\n\n\n",
			wantSecret: "typed-key",
			check: func(t *testing.T, cfg, home string) {
				snap := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), nil)
				if got := snap.Config.Channels.Telegram.BotToken.Value; got != "42:tg\"quote\\back" {
					t.Errorf("telegram token read back as %q", got)
				}
			}},
		{name: "interactive bad key then retry", interactive: true, providerKey: "good",
			args:  []string{"--custom-base-url", "PROVIDER/v1", "--custom-model-id", "m", "--skip-channels", "--gateway-port", "GPORT", "--gateway-bind", "loopback", "--workspace", "/tmp/ws-onboard-test", "--no-install-daemon"},
			stdin: "y\nwrong\n1\ngood\n", wantSecret: "good"},
		{name: "interactive, acknowledged before: the risk is not asked again", interactive: true, providerKey: "good",
			existing: `{wizard: {securityAcknowledgedAt: "2026-01-02T03:04:05.000Z"}}`,
			args:     []string{"--reset", "--custom-base-url", "PROVIDER/v1", "--custom-model-id", "m", "--skip-channels", "--gateway-port", "GPORT", "--gateway-bind", "loopback", "--workspace", "/tmp/ws-onboard-test", "--no-install-daemon"},
			stdin:    "good\n", wantSecret: "good",
			check: func(t *testing.T, cfg, home string) {
				if !strings.Contains(cfg, `"securityAcknowledgedAt": "2026-01-02T03:04:05.000Z"`) {
					t.Errorf("the acknowledgement was not kept:\n%s", cfg)
				}
			}},
		{name: "ollama needs no key, in ref mode too",
			args: []string{"--non-interactive", "--accept-risk", "--auth-choice", "ollama", "--secret-input-mode", "ref", "--skip-health", "--custom-model-id", "qwen3:8b"},
			check: func(t *testing.T, cfg, home string) {
				c := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), nil).Config
				if p := c.Models.Providers["ollama"]; p.API != "ollama" || p.BaseURL != "http://127.0.0.1:11434" || p.APIKey.Ref != nil || c.Agents.Defaults.Model.Primary != "ollama/qwen3:8b" {
					t.Errorf("ollama provider %+v model %q", p, c.Agents.Defaults.Model.Primary)
				}
			}},
		{name: "custom provider id names the secret", providerKey: "k2",
			args:       []string{"--non-interactive", "--accept-risk", "--custom-base-url", "PROVIDER/v1", "--custom-model-id", "m", "--custom-api-key", "k2", "--custom-provider-id", "lab", "--gateway-port", "GPORT"},
			wantSecret: "k2",
			check: func(t *testing.T, cfg, home string) {
				if !strings.Contains(cfg, `"id": "/models/lab/apiKey"`) || !strings.Contains(cfg, `"model": "lab/m"`) {
					t.Errorf("config:\n%s", cfg)
				}
			}},
		{name: "remote mode", args: []string{"--non-interactive", "--accept-risk", "--mode", "remote", "--remote-url", "wss://gw.example:18789", "--remote-token", "r${HOME}\"t"},
			check: func(t *testing.T, cfg, home string) {
				c := loadConfigWith(t, filepath.Join(home, ".openclaw", "openclaw.json"), map[string]string{"HOME": "/x"}).Config
				if c.Gateway.Mode != "remote" || c.Gateway.Remote.URL != "wss://gw.example:18789" || c.Gateway.Remote.Token.Value != "r${HOME}\"t" {
					t.Errorf("remote %q %q %q", c.Gateway.Mode, c.Gateway.Remote.URL, c.Gateway.Remote.Token.Value)
				}
			}},
		{name: "remote URL with credentials", args: []string{"--non-interactive", "--accept-risk", "--mode", "remote", "--remote-url", "wss://gw.example/?token=abc"},
			wantErr: "not in the URL"},
		{name: "remote with a local gateway token", args: []string{"--non-interactive", "--accept-risk", "--mode", "remote", "--remote-url", "wss://gw.example", "--gateway-token", "x"},
			wantErr: "configure a local gateway"},
		{name: "risk declined", interactive: true, stdin: "n\n", wantErr: "the risk was not accepted"},
		{name: "existing kept without reset", existing: "{gateway: {port: 1234}}\n",
			args:    []string{"--non-interactive", "--accept-risk", "--auth-choice", "skip", "--skip-health"},
			wantErr: "already exists; pass --reset"},
		{name: "existing kept when declined", interactive: true, existing: "{gateway: {port: 1234}}\n",
			stdin: "y\nn\n", wantErr: "kept the existing config"},
		{name: "existing replaced with reset", existing: "{gateway: {port: 1234}}\n",
			args: []string{"--non-interactive", "--accept-risk", "--auth-choice", "skip", "--skip-health", "--reset"},
			check: func(t *testing.T, cfg, home string) {
				bak, err := os.ReadFile(filepath.Join(home, ".openclaw", "openclaw.json.bak"))
				if err != nil || string(bak) != "{gateway: {port: 1234}}\n" {
					t.Errorf("backup %q %v", bak, err)
				}
			}},
		{name: "no accept risk", args: []string{"--non-interactive"}, wantErr: "--non-interactive needs --accept-risk"},
		{name: "not a terminal", args: []string{"--auth-choice", "skip"}, wantErr: "stdin is not a terminal"},
		{name: "unsupported auth choice", args: []string{"--non-interactive", "--accept-risk", "--auth-choice", "github-copilot"},
			wantErr: `--auth-choice "github-copilot" is not supported`},
		{name: "unsupported key flag", args: []string{"--non-interactive", "--accept-risk", "--mistral-api-key", "x"},
			wantErr: "--mistral-api-key: this provider is not set up by onboarding here"},
		{name: "classic refused", args: []string{"--classic"}, wantErr: "--classic is not supported"},
		{name: "tailscale serve refused", args: []string{"--non-interactive", "--accept-risk", "--tailscale", "serve"},
			wantErr: "--tailscale serve is not supported"},
		{name: "key flag of another provider", args: []string{"--non-interactive", "--accept-risk", "--auth-choice", "apiKey", "--openai-api-key", "x"},
			wantErr: "--openai-api-key does not go with --auth-choice apiKey"},
		{name: "ref mode without the variable", args: []string{"--non-interactive", "--accept-risk", "--auth-choice", "openai-api-key", "--secret-input-mode", "ref", "--openai-api-key", "x"},
			wantErr: "reference to OPENAI_API_KEY, which is not set"},
		{name: "the environment key is taken under access mode full", env: map[string]string{"OPENAI_API_KEY": "sk-env-key"},
			existing: `{wizard: {accessMode: "full"}}`,
			args:     []string{"--non-interactive", "--accept-risk", "--reset", "--auth-choice", "openai-api-key", "--secret-input-mode", "ref", "--skip-health"},
			check: func(t *testing.T, cfg, home string) {
				if !strings.Contains(cfg, `"id": "OPENAI_API_KEY"`) {
					t.Errorf("the key from the environment was not taken:\n%s", cfg)
				}
			}},
		{name: "guarded access mode takes no key from the environment", env: map[string]string{"OPENAI_API_KEY": "sk-env-key"},
			existing: `{wizard: {accessMode: "guarded"}}`,
			args:     []string{"--non-interactive", "--accept-risk", "--reset", "--auth-choice", "openai-api-key", "--secret-input-mode", "ref", "--skip-health"},
			wantErr:  `wizard.accessMode is "guarded": onboarding does not take OPENAI_API_KEY from the environment without asking; pass --openai-api-key`},
		{name: "onboarding again keeps the access mode and the acknowledgement, and records its run",
			existing: `{wizard: {accessMode: "guarded", securityAcknowledgedAt: "2026-01-02T03:04:05.000Z", lastRunCommand: "configure", lastRunVersion: "2026.3.1"}}`,
			args:     []string{"--non-interactive", "--accept-risk", "--reset", "--auth-choice", "openai-api-key", "--openai-api-key", "sk-flag-key-2", "--skip-health"},
			check: func(t *testing.T, cfg, home string) {
				for _, s := range []string{`"accessMode": "guarded"`, `"securityAcknowledgedAt": "2026-01-02T03:04:05.000Z"`, `"lastRunCommand": "onboard"`,
					`"lastRunVersion": "` + version + `"`, `"lastRunAt": "2026-11-30T12:00:00.000Z"`, `"lastRunMode": "local"`} {
					if !strings.Contains(cfg, s) {
						t.Errorf("config lacks %s:\n%s", s, cfg)
					}
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			withFixedToken(t)
			for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CUSTOM_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"} {
				t.Setenv(k, "")
			}
			if strings.HasPrefix(tc.name, "ref mode keeps") {
				t.Setenv("ANTHROPIC_API_KEY", "sk-ant-env")
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.interactive {
				withInteractiveStdin(t)
			}
			gport := closedPort(t)
			var provider string
			if tc.providerKey != "" {
				srv, _ := fakeProvider(t, tc.providerKey)
				provider = srv.URL
			}
			args := []string{"onboard"}
			for _, a := range tc.args {
				a = strings.ReplaceAll(a, "PROVIDER", provider)
				args = append(args, strings.ReplaceAll(a, "GPORT", strconv.Itoa(gport)))
			}
			path := filepath.Join(home, ".openclaw", "openclaw.json")
			if tc.existing != "" {
				writeConfig(t, path, tc.existing)
			}
			stdout, stderr, err := runCLIStdin(t, strings.ReplaceAll(tc.stdin, "GPORT", strconv.Itoa(gport)), args...)
			data, _ := os.ReadFile(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tc.wantErr) {
					t.Fatalf("err %v stderr %q, want %q", err, stderr, tc.wantErr)
				}
				if strings.Contains(stderr, "ck-bad") {
					t.Errorf("the error shows the key: %s", stderr)
				}
				if tc.existing != "" && string(data) != tc.existing {
					t.Errorf("the existing config changed:\n%s", data)
				}
				if tc.existing == "" && data != nil {
					t.Errorf("a failed onboarding wrote the config:\n%s", data)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\nstdout %s\nstderr %s", err, stdout, stderr)
			}
			if _, err := hujson.Parse(data); err != nil {
				t.Fatalf("config is not JSON5: %v\n%s", err, data)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("config mode %v, want 0600", fi.Mode().Perm())
			}
			if strings.Contains(stdout+stderr, fixedGatewayToken) {
				t.Errorf("output shows the gateway token:\n%s%s", stdout, stderr)
			}
			if tc.wantSecret != "" {
				for what, s := range map[string]string{"config": string(data), "output": stdout + stderr} {
					if strings.Contains(s, tc.wantSecret) {
						t.Errorf("the %s holds the model key:\n%s", what, s)
					}
				}
				sp := filepath.Join(home, ".openclaw", secretsFileName)
				sec, err := os.ReadFile(sp)
				if err != nil || !strings.Contains(string(sec), tc.wantSecret) {
					t.Errorf("secrets file %q %v", sec, err)
				}
				if fi, err := os.Stat(sp); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("secrets file mode %v %v, want 0600", fi, err)
				}
			}
			if slices.Contains(tc.args, "--json") {
				var sum struct {
					OK              bool
					ModelKeyChecked bool
				}
				if err := json.Unmarshal([]byte(stdout), &sum); err != nil || !sum.OK || sum.ModelKeyChecked != (tc.providerKey != "") {
					t.Errorf("summary %s (%v)", stdout, err)
				}
			}
			// It loads as the gateway loads it, errors and all.
			loadConfigWith(t, path, map[string]string{"ANTHROPIC_API_KEY": "x"})
			if tc.golden != "" {
				got := normalize(string(data), home, gport)
				if provider != "" {
					got = strings.ReplaceAll(got, provider, "http://PROVIDER")
				}
				checkGolden(t, tc.golden, got)
			}
			if tc.check != nil {
				tc.check(t, string(data), home)
			}
		})
	}
}

// TestGatewayTokenStrength: the generated token is 32 random bytes, a
// new one each time.
func TestGatewayTokenStrength(t *testing.T) {
	seen := map[string]bool{}
	for range 8 {
		tok, err := newGatewayToken()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || len(raw) < 32 {
			t.Fatalf("token %q decodes to %d bytes (%v), want at least 32", tok, len(raw), err)
		}
		if seen[tok] {
			t.Fatal("the same token twice")
		}
		seen[tok] = true
	}
}

// TestOnboardSecretsFileForcedPrivate: an older secrets file left
// world-readable is rewritten 0600, and its other entries are kept.
func TestOnboardSecretsFileForcedPrivate(t *testing.T) {
	dir := t.TempDir()
	sp := filepath.Join(dir, secretsFileName)
	if err := os.WriteFile(sp, []byte(`{"other":{"k":"v"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := storeSecrets(dir, []pendingSecret{{pointer: []string{"models", "a/b~c", "apiKey"}, value: "s"}}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(sp)
	data, _ := os.ReadFile(sp)
	if fi.Mode().Perm() != 0o600 || !strings.Contains(string(data), `"other"`) || !strings.Contains(string(data), `"a/b~c"`) {
		t.Errorf("mode %v content %s", fi.Mode().Perm(), data)
	}
	if got := secretPointer([]string{"models", "a/b~c", "apiKey"}); got != "/models/a~1b~0c/apiKey" {
		t.Errorf("pointer %q", got)
	}
}

// TestOnboardHelp: the real CLI's flags this gateway acts on are listed;
// the ones it refuses are accepted by the parser but kept out of help.
func TestOnboardHelp(t *testing.T) {
	isolate(t)
	stdout, _, err := runCLI(t, "onboard", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"--non-interactive", "--accept-risk", "--auth-choice", "--openai-api-key", "--anthropic-api-key",
		"--gateway-port", "--gateway-bind", "--gateway-token", "--install-daemon", "--secret-input-mode", "--reset", "--skip-health"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("help lacks %s", s)
		}
	}
	for _, s := range []string{"--mistral-api-key", "--classic", "--daemon-runtime"} {
		if strings.Contains(stdout, s) {
			t.Errorf("help lists the unsupported %s", s)
		}
	}
}
