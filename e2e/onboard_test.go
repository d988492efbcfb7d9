package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnboardNonInteractiveStartsGateway: `openclaw onboard
// --non-interactive` on a fresh HOME writes a config the gateway starts
// with, whose generated token the CLI then uses for `openclaw health`;
// the model key lands only in the owner-only secrets file.
func TestOnboardNonInteractiveStartsGateway(t *testing.T) {
	needOurGateway(t)
	const modelKey = "sk-e2e-onboard-model-key"
	dir := t.TempDir()
	env, stateDir, configPath := isolatedEnv(t, dir)
	r := runCmd(t, env, dir, needOurBin(t), "onboard", "--non-interactive", "--accept-risk",
		"--auth-choice", "openai-api-key", "--openai-api-key", modelKey,
		"--gateway-bind", "loopback", "--skip-health", "--no-install-daemon", "--json")
	r.mustSucceed(t)
	summary, _ := decodeJSON(t, r).(map[string]any)
	if summary["ok"] != true || summary["configPath"] != configPath {
		t.Fatalf("summary %v", summary)
	}
	if strings.Contains(r.Stdout+r.Stderr, modelKey) {
		t.Errorf("onboard printed the model key:\n%s", r)
	}
	cfg, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), modelKey) {
		t.Errorf("the config holds the model key:\n%s", cfg)
	}
	secrets := filepath.Join(stateDir, "secrets.json")
	for _, p := range []string{configPath, secrets} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", p, fi, err)
		}
	}
	if data, _ := os.ReadFile(secrets); !strings.Contains(string(data), modelKey) {
		t.Errorf("secrets file lacks the key")
	}

	// The gateway starts on that config, with no token of its own: the
	// generated one is what the CLI reads from the same file.
	g := startGateway(t, gatewayOpts{Config: string(cfg), NoToken: true})
	h := ourClient(t, g).run(t, "health", "--json")
	h.mustSucceed(t)
	if v, _ := decodeJSON(t, h).(map[string]any); v["ok"] != true {
		t.Errorf("health: %s", h.Stdout)
	}
	// Onboarding again without --reset keeps the file.
	again := runCmd(t, env, dir, needOurBin(t), "onboard", "--non-interactive", "--accept-risk", "--auth-choice", "skip", "--skip-health")
	if again.Code == 0 || !strings.Contains(again.Stderr, "--reset") {
		t.Errorf("second onboard without --reset:\n%s", again)
	}
	if now, _ := os.ReadFile(configPath); string(now) != string(cfg) {
		t.Error("second onboard changed the config")
	}
}
