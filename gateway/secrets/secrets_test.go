//go:build unix

package secrets

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

const secretValue = "sk-live-DO-NOT-LEAK-42"

// load parses a config the way the gateway does, then resolves it.
func load(t *testing.T, src string, env map[string]string) (*config.Snapshot, string) {
	t.Helper()
	getenv := func(k string) string { return env[k] }
	snap, err := config.Parse(filepath.Join(t.TempDir(), "openclaw.json"), []byte(src), config.LoadOptions{Getenv: getenv})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var logs bytes.Buffer
	Resolve(context.Background(), snap, Options{Getenv: getenv, Home: t.TempDir(), Log: slog.New(slog.NewTextHandler(&logs, nil))})
	return snap, logs.String()
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func apiKey(snap *config.Snapshot) config.SecretInput {
	return snap.Config.Models.Providers["p"].APIKey
}

// noLeak fails if the secret shows anywhere the user or a client may see.
func noLeak(t *testing.T, snap *config.Snapshot, logs string) {
	t.Helper()
	var seen []string
	seen = append(seen, logs, apiKey(snap).String(), apiKey(snap).Problem)
	for _, is := range append(snap.UnresolvedSecrets, snap.Warnings...) {
		seen = append(seen, is.String())
	}
	red, _ := json.Marshal(config.Redact(snap.Tree))
	seen = append(seen, string(red))
	cfgJSON, _ := json.Marshal(snap.Config)
	seen = append(seen, string(cfgJSON))
	for _, s := range seen {
		if strings.Contains(s, secretValue) {
			t.Fatalf("the secret leaked: %s", s)
		}
	}
}

func fileConfig(path, mode, id string) string {
	return `{secrets: {providers: {f: {source: "file", path: "` + path + `", mode: "` + mode + `"}}},
	  models: {providers: {p: {apiKey: {source: "file", provider: "f", id: "` + id + `"}}}}}`
}

func TestFileProvider(t *testing.T) {
	dir := t.TempDir()
	jsonDoc := `{"providers": {"openai": {"apiKey": "` + secretValue + `"}, "a/b": {"n": 1}}}`
	good := writeFile(t, filepath.Join(dir, "secrets.json"), jsonDoc, 0o600)
	single := writeFile(t, filepath.Join(dir, "key.txt"), secretValue+"\n", 0o600)
	groupReadable := writeFile(t, filepath.Join(dir, "open.json"), jsonDoc, 0o640)
	worldWritable := writeFile(t, filepath.Join(dir, "ww.json"), jsonDoc, 0o602)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	hard := writeFile(t, filepath.Join(dir, "hard.json"), jsonDoc, 0o600)
	if err := os.Link(hard, filepath.Join(dir, "hard2.json")); err != nil {
		t.Fatal(err)
	}
	notJSON := writeFile(t, filepath.Join(dir, "bad.json"), secretValue, 0o600)
	big := writeFile(t, filepath.Join(dir, "big.json"), `{"x": "`+strings.Repeat("a", 2<<20)+`"}`, 0o600)
	tests := []struct {
		name, src, value, problem string
	}{
		{"json pointer", fileConfig(good, "json", "/providers/openai/apiKey"), secretValue, ""},
		{"escaped pointer segment", fileConfig(good, "json", "/providers/a~1b/n"), "", "is not a string"},
		{"missing pointer", fileConfig(good, "json", "/providers/none"), "", "has nothing at /providers/none"},
		{"singleValue drops the newline", fileConfig(single, "singleValue", "value"), secretValue, ""},
		{"group readable refused", fileConfig(groupReadable, "json", "/providers/openai/apiKey"), "", "permissions are too open"},
		{"world writable refused", fileConfig(worldWritable, "json", "/providers/openai/apiKey"), "", "permissions are too open"},
		{"symlink refused", fileConfig(link, "json", "/providers/openai/apiKey"), "", "must not be a symlink"},
		{"hardlink refused", fileConfig(hard, "json", "/providers/openai/apiKey"), "", "must not be hardlinked"},
		{"directory refused", fileConfig(dir, "json", "/x"), "", "must be a regular file"},
		{"missing file", fileConfig(filepath.Join(dir, "none"), "json", "/x"), "", "is not readable"},
		{"invalid JSON, contents not quoted", fileConfig(notJSON, "json", "/x"), "", "is not valid JSON"},
		{"over maxBytes", fileConfig(big, "json", "/x"), "", "larger than maxBytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap, logs := load(t, tc.src, nil)
			key := apiKey(snap)
			if key.Value != tc.value || !strings.Contains(key.Problem, tc.problem) || (tc.problem == "") != (key.Problem == "") {
				t.Fatalf("value %q problem %q; want value %q problem %q", key.Value, key.Problem, tc.value, tc.problem)
			}
			if tc.problem != "" {
				if len(snap.UnresolvedSecrets) != 1 || snap.UnresolvedSecrets[0].Path != "models.providers.p.apiKey" {
					t.Errorf("unresolved = %v", snap.UnresolvedSecrets)
				}
				noLeak(t, snap, logs)
			} else if len(snap.UnresolvedSecrets) > 0 {
				t.Errorf("unresolved = %v", snap.UnresolvedSecrets)
			}
			// What clients are shown of a resolved secret is its ref.
			b, _ := json.Marshal(snap.Config)
			if strings.Contains(string(b), secretValue) || strings.Contains(logs, secretValue) {
				t.Error("the resolved value is shown")
			}
		})
	}
}

// script writes an executable resolver; sh runs it through its #! line,
// as the kernel does for any program, not because we use a shell.
func script(t *testing.T, dir, name, body string, mode os.FileMode) string {
	t.Helper()
	return writeFile(t, filepath.Join(dir, name), "#!/bin/sh\n"+body, mode)
}

func execConfig(command, extra, id string) string {
	return `{secrets: {providers: {v: {source: "exec", command: "` + command + `"` + extra + `}}},
	  models: {providers: {p: {apiKey: {source: "exec", provider: "v", id: "` + id + `"}}}}}`
}

func TestExecProviderProtocol(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "seen")
	answer := `{"protocolVersion":1,"values":{"openai/apiKey":"` + secretValue + `"},"errors":{"gone":{"code":"NOT_FOUND","message":"` + secretValue + `"},"odd":{"code":"LEAKY ` + secretValue + `"}}}`
	// The resolver records its stdin, argv, environment and folder.
	proto := script(t, dir, "resolver", `cat > "`+out+`.stdin"
printf '%s\n' "$@" > "`+out+`.args"
env > "`+out+`.env"
pwd > "`+out+`.cwd"
printf '%s' '`+answer+`'
`, 0o700)
	src := `{secrets: {providers: {v: {source: "exec", command: "` + proto + `",
	    args: ["--profile", "prod; touch ` + out + `.pwned", "$(touch ` + out + `.pwned2)"],
	    passEnv: ["VAULT_ADDR", "UNSET_ONE"], env: {MODE: "strict"}}}},
	  models: {providers: {
	    p: {apiKey: {source: "exec", provider: "v", id: "openai/apiKey"}},
	    q: {apiKey: {source: "exec", provider: "v", id: "gone"}},
	    r: {apiKey: {source: "exec", provider: "v", id: "odd"}},
	    s: {apiKey: {source: "exec", provider: "v", id: "openai/apiKey"}}}}}`
	snap, logs := load(t, src, map[string]string{"VAULT_ADDR": "https://vault", "HOME": "/home/x", "OPENAI_API_KEY": "gateway-only"})
	if got := apiKey(snap).Value; got != secretValue {
		t.Fatalf("value = %q, problem %q", got, apiKey(snap).Problem)
	}
	if got := snap.Config.Models.Providers["s"].APIKey.Value; got != secretValue {
		t.Errorf("the second ref to the same id = %q", got)
	}
	// One run for all ids, each id once.
	var req execRequest
	b, _ := os.ReadFile(out + ".stdin")
	if err := json.Unmarshal(b, &req); err != nil || req.ProtocolVersion != 1 || req.Provider != "v" || strings.Join(req.IDs, ",") != "gone,odd,openai/apiKey" {
		t.Errorf("request = %s (%v)", b, err)
	}
	// argv as written: no shell saw it.
	args, _ := os.ReadFile(out + ".args")
	if want := "--profile\nprod; touch " + out + ".pwned\n$(touch " + out + ".pwned2)\n"; string(args) != want {
		t.Errorf("argv = %q, want %q", args, want)
	}
	for _, p := range []string{out + ".pwned", out + ".pwned2"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: an argument ran as a command", p)
		}
	}
	// Only passEnv (when set) and env reach the program.
	env, _ := os.ReadFile(out + ".env")
	for _, want := range []string{"VAULT_ADDR=https://vault", "MODE=strict"} {
		if !strings.Contains(string(env), want) {
			t.Errorf("env lacks %s:\n%s", want, env)
		}
	}
	for _, not := range []string{"OPENAI_API_KEY", "UNSET_ONE", "HOME=/home/x"} {
		if strings.Contains(string(env), not) {
			t.Errorf("env has %s:\n%s", not, env)
		}
	}
	if cwd, _ := os.ReadFile(out + ".cwd"); strings.TrimSpace(string(cwd)) != dir {
		if real, _ := filepath.EvalSymlinks(dir); strings.TrimSpace(string(cwd)) != real {
			t.Errorf("cwd = %q, want %q", cwd, dir)
		}
	}
	// Per-id errors: a known code is shown, other text never.
	if got := snap.Config.Models.Providers["q"].APIKey.Problem; !strings.Contains(got, `failed for id "gone" (NOT_FOUND)`) {
		t.Errorf("q problem = %q", got)
	}
	if got := snap.Config.Models.Providers["r"].APIKey.Problem; strings.Contains(got, "LEAKY") || !strings.Contains(got, `failed for id "odd"`) {
		t.Errorf("r problem = %q", got)
	}
	noLeak(t, snap, logs)
}

func TestExecProviderRefusals(t *testing.T) {
	dir := t.TempDir()
	ok := `printf '{"protocolVersion":1,"values":{"k":"` + secretValue + `"}}'`
	good := script(t, dir, "good", ok, 0o700)
	groupWritable := script(t, dir, "gw", ok, 0o770)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	outside := script(t, other, "outside", ok, 0o700)
	tests := []struct {
		name, src, value, problem string
	}{
		{"runs", execConfig(good, "", "k"), secretValue, ""},
		{"a command line is not a path", execConfig("/bin/sh -c id", "", "k"), "", "is not readable"},
		{"group writable refused", execConfig(groupWritable, "", "k"), "", "permissions are too open"},
		{"symlink refused", execConfig(link, "", "k"), "", "must not be a symlink"},
		{"outside trustedDirs", execConfig(outside, `, trustedDirs: ["`+dir+`"]`, "k"), "", "outside trustedDirs"},
		{"inside trustedDirs", execConfig(good, `, trustedDirs: ["`+dir+`"]`, "k"), secretValue, ""},
		{"missing id", execConfig(good, "", "other"), "", `has no id "other"`},
		{"non-zero exit, stderr not shown", execConfig(script(t, dir, "fail", `echo `+secretValue+` >&2; exit 3`, 0o700), "", "k"), "", "exited with code 3"},
		{"stdout not shown when not JSON", execConfig(script(t, dir, "plain", `printf '`+secretValue+`'`, 0o700), "", "k"), "", "returned invalid JSON"},
		{"plain text with jsonOnly false", execConfig(script(t, dir, "plain2", `printf '`+secretValue+`\n'`, 0o700), ", jsonOnly: false", "k"), secretValue, ""},
		{"wrong protocol", execConfig(script(t, dir, "v2", `printf '{"protocolVersion":2,"values":{}}'`, 0o700), "", "k"), "", "protocolVersion must be 1"},
		{"too much output", execConfig(script(t, dir, "big", `head -c 4096 /dev/zero`, 0o700), ", maxOutputBytes: 100", "k"), "", "exceeded maxOutputBytes"},
		{"timeout", execConfig(script(t, dir, "slow", `exec sleep 30`, 0o700), ", timeoutMs: 50, noOutputTimeoutMs: 60000", "k"), "", "timed out"},
		{"silence", execConfig(script(t, dir, "quiet", `exec sleep 30`, 0o700), ", noOutputTimeoutMs: 50", "k"), "", "no output"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap, logs := load(t, tc.src, nil)
			key := apiKey(snap)
			if key.Value != tc.value || !strings.Contains(key.Problem, tc.problem) || (tc.problem == "") != (key.Problem == "") {
				t.Fatalf("value %q problem %q; want value %q problem %q", key.Value, key.Problem, tc.value, tc.problem)
			}
			if tc.problem != "" {
				noLeak(t, snap, logs)
			}
		})
	}
}

func TestResolveTwiceRunsOnce(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	cmd := script(t, dir, "r", `echo x >> "`+count+`"; printf '{"protocolVersion":1,"values":{"k":"v"}}'`, 0o700)
	snap, _ := load(t, execConfig(cmd, "", "k"), nil)
	Resolve(context.Background(), snap, Options{})
	if b, _ := os.ReadFile(count); strings.Count(string(b), "x") != 1 {
		t.Errorf("ran %d times", strings.Count(string(b), "x"))
	}
}

// Loading a config, as config.get, a dry run or a validation do, never
// runs an exec provider or reads a secrets file: only Resolve does.
func TestParseRunsNothing(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	cmd := script(t, dir, "r", `touch "`+ran+`"; printf '{"protocolVersion":1,"values":{"k":"v"}}'`, 0o700)
	snap, err := config.Parse(filepath.Join(dir, "openclaw.json"), []byte(execConfig(cmd, "", "k")), config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("parsing ran the exec provider")
	}
	if v := apiKey(snap).Value; v != "" {
		t.Fatalf("value = %q before Resolve", v)
	}
}
