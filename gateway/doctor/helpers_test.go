package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// testToken is a long random-looking gateway token; tests assert it never
// appears in any output.
const testToken = "tok-3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e"

// newInstall writes cfg (JSON5) as the config of a fresh state directory
// (0700, config 0600) and loads it.
func newInstall(t *testing.T, cfg string) *Install {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	paths := config.Paths{Home: filepath.Dir(state), StateDir: state, ConfigPath: filepath.Join(state, "openclaw.json")}
	if cfg != "" {
		if err := os.WriteFile(paths.ConfigPath, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Load(paths, envOf(nil))
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// runOne runs one check against in.
func runOne(t *testing.T, c checkFunc, o Options) Check {
	t.Helper()
	o = withDefaults(o)
	return c(context.Background(), &run{Options: o, in: o.Install})
}

func withDefaults(o Options) Options {
	// Run fills these; a single check needs them too.
	if o.DiskFree == nil {
		o.DiskFree = func(string) (uint64, error) { return 1 << 40, nil }
	}
	if o.HTTP == nil {
		o.HTTP = defaultProbeClient(o.ProbeTimeout)
	}
	return o
}

// fakeGateway answers methods from a table; a missing method fails.
type fakeGateway struct {
	answers map[string]string
	err     error
	anonErr error
}

func (f *fakeGateway) Call(_ context.Context, method string, _ any) (json.RawMessage, error) {
	if f.err != nil {
		return nil, f.err
	}
	a, ok := f.answers[method]
	if !ok {
		return nil, errors.New("unknown method " + method)
	}
	return json.RawMessage(a), nil
}

func (f *fakeGateway) ConnectAnonymous(context.Context) error { return f.anonErr }

// noSecret fails when s holds the secret.
func noSecret(t *testing.T, s, secret string) {
	t.Helper()
	if secret != "" && strings.Contains(s, secret) {
		t.Fatalf("output holds the secret %q:\n%s", secret, s)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
