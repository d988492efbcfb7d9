package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

const modelsConfig = `// operator's notes
{
  gateway: { port: PORT }, // hand-picked
  agents: {
    defaults: {
      model: "openai/gpt-4o", // the everyday model
    },
  },
  models: {
    providers: {
      // a llama.cpp box
      local: { baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "qwen" }, { id: "llava", input: ["text", "image"] }] },
      paid: { baseUrl: "https://api.example.com/v1", apiKey: "sk-INLINE-SECRET", models: [{ id: "big", contextWindow: 200000 }] },
      envkey: { baseUrl: "https://api.example.org/v1", apiKey: "${MODELS_TEST_KEY}", models: [{ id: "e1" }] },
    },
  },
}
`

// modelsStep is one command of a walk over a config file: what it prints
// or refuses, and what the file holds afterwards.
type modelsStep struct {
	name       string
	args       []string
	wantOut    string   // exact stdout, when set
	outHas     []string // substrings of stdout
	wantErr    string   // substring of stderr; the run must fail
	fileHas    []string
	fileHasNot []string
}

func runSteps(t *testing.T, path string, steps []modelsStep) {
	t.Helper()
	for _, st := range steps {
		before, _ := os.ReadFile(path)
		stdout, stderr, err := runCLI(t, st.args...)
		if st.wantErr != "" {
			if err == nil || !strings.Contains(stderr, st.wantErr) {
				t.Errorf("%s: err %v stderr %q, want %q", st.name, err, stderr, st.wantErr)
			}
			// A refused edit leaves the file as it was.
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("%s: refused, yet the file changed:\n%s", st.name, after)
			}
		} else if err != nil {
			t.Errorf("%s: %v\n%s", st.name, err, stderr)
		}
		if st.wantOut != "" && stdout != st.wantOut {
			t.Errorf("%s: stdout\n%s\nwant\n%s", st.name, stdout, st.wantOut)
		}
		for _, s := range st.outHas {
			if !strings.Contains(stdout, s) {
				t.Errorf("%s: stdout lacks %q:\n%s", st.name, s, stdout)
			}
		}
		data, _ := os.ReadFile(path)
		for _, s := range st.fileHas {
			if !strings.Contains(string(data), s) {
				t.Errorf("%s: file lacks %q:\n%s", st.name, s, data)
			}
		}
		for _, s := range st.fileHasNot {
			if strings.Contains(string(data), s) {
				t.Errorf("%s: file still has %q:\n%s", st.name, s, data)
			}
		}
	}
}

func writeModelsConfig(t *testing.T) string {
	t.Helper()
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	writeConfig(t, path, strings.Replace(modelsConfig, "PORT", strconv.Itoa(freePort(t)), 1))
	return path
}

// TestModelsEdit walks set, fallbacks, set-image and aliases over a
// commented file: the comments stay, bad refs are refused, and the file
// reads back as written.
func TestModelsEdit(t *testing.T) {
	path := writeModelsConfig(t)
	runSteps(t, path, []modelsStep{
		{name: "set keeps the string form and comments", args: []string{"models", "set", "paid/big"},
			wantOut: "Updated " + path + "\nDefault model: paid/big\n",
			fileHas: []string{"// operator's notes", `model: "paid/big", // the everyday model`, "// a llama.cpp box", "port: "}},
		{name: "no provider part", args: []string{"models", "set", "gpt-4o"},
			wantErr: `model "gpt-4o" is not a model reference nor an alias`},
		{name: "empty model part", args: []string{"models", "set", "openai/"}, wantErr: `both parts of "provider/model" are needed`},
		{name: "spaces", args: []string{"models", "set", "openai/gpt 4o"}, wantErr: "no spaces or control characters"},
		{name: "newline injection", args: []string{"models", "set", "openai/x\n  gateway: {}"}, wantErr: "no spaces or control characters"},
		{name: "unknown provider", args: []string{"models", "set", "nosuch/m"},
			wantErr: `unknown provider "nosuch"; configure models.providers.nosuch`},
		{name: "missing argument", args: []string{"models", "set"}, wantErr: "missing <model>"},
		{name: "unlisted model of a listing provider is saved with a warning", args: []string{"models", "set", "local/new-one"},
			fileHas: []string{`model: "local/new-one"`}},
		{name: "fallback add turns the string into primary+fallbacks", args: []string{"models", "fallbacks", "add", "local/qwen"},
			wantOut: "Updated " + path + "\nFallbacks: local/qwen\n",
			fileHas: []string{`"primary": "local/new-one"`, `"local/qwen"`, "// the everyday model"}},
		{name: "fallback add of a built-in", args: []string{"models", "fallbacks", "add", "anthropic/claude-sonnet-4-5"},
			wantOut: "Updated " + path + "\nFallbacks: local/qwen, anthropic/claude-sonnet-4-5\n"},
		{name: "fallback add twice is a no-op", args: []string{"models", "fallbacks", "add", "local/qwen"},
			wantOut: "Updated " + path + "\nFallbacks: local/qwen, anthropic/claude-sonnet-4-5\n"},
		{name: "fallback add malformed", args: []string{"models", "fallbacks", "add", "qwen"}, wantErr: "not a model reference"},
		{name: "fallbacks list json", args: []string{"models", "fallbacks", "list", "--json"},
			wantOut: "{\n  \"fallbacks\": [\n    \"local/qwen\",\n    \"anthropic/claude-sonnet-4-5\"\n  ]\n}\n"},
		{name: "fallbacks list plain", args: []string{"models", "fallbacks", "list", "--plain"},
			wantOut: "local/qwen\nanthropic/claude-sonnet-4-5\n"},
		{name: "fallback remove", args: []string{"models", "fallbacks", "remove", "local/qwen"},
			wantOut: "Updated " + path + "\nFallbacks: anthropic/claude-sonnet-4-5\n", fileHasNot: []string{`"local/qwen"`}},
		{name: "fallback remove absent", args: []string{"models", "fallbacks", "remove", "local/qwen"},
			wantErr: "Fallback not found: local/qwen"},
		{name: "fallbacks clear", args: []string{"models", "fallbacks", "clear"},
			wantOut: "Updated " + path + "\nFallbacks cleared.\n", fileHasNot: []string{"anthropic/claude"}},
		{name: "fallbacks list empty", args: []string{"models", "fallbacks", "list"}, wantOut: "Fallbacks (0):\n- none\n"},
		{name: "set-image", args: []string{"models", "set-image", "local/llava"},
			wantOut: "Updated " + path + "\nImage model: local/llava\n", fileHas: []string{"imageModel", `"local/llava"`}},
		{name: "image fallbacks add", args: []string{"models", "image-fallbacks", "add", "openai/gpt-4o"},
			wantOut: "Updated " + path + "\nImage fallbacks: openai/gpt-4o\n"},
		{name: "alias add", args: []string{"models", "aliases", "add", "Big", "paid/big"},
			wantOut: "Updated " + path + "\nAlias Big -> paid/big\n", fileHas: []string{`"paid/big": {`, `alias: "Big"`}},
		{name: "alias with a slash", args: []string{"models", "aliases", "add", "a/b", "paid/big"}, wantErr: "an alias is one word"},
		{name: "alias taken by another model", args: []string{"models", "aliases", "add", "big", "local/qwen"},
			wantErr: "alias big already points to paid/big"},
		{name: "set by alias writes the model it stands for", args: []string{"models", "set", "big"},
			wantOut: "Updated " + path + "\nDefault model: paid/big\n"},
		{name: "aliases list json", args: []string{"models", "aliases", "list", "--json"},
			wantOut: "{\n  \"aliases\": {\n    \"Big\": \"paid/big\"\n  }\n}\n"},
		{name: "alias remove", args: []string{"models", "aliases", "remove", "BIG"},
			wantOut: "Updated " + path + "\nRemoved alias BIG\n", fileHasNot: []string{`"alias"`}},
		{name: "alias remove absent", args: []string{"models", "aliases", "remove", "big"}, wantErr: "alias not found: big"},
		{name: "comments survive the walk", args: []string{"models", "fallbacks", "list"},
			fileHas: []string{"// operator's notes", "// hand-picked", "// a llama.cpp box", "// the everyday model"}},
	})
}

// TestModelsEditRefusesBrokenFile: an edit is not made to a file that does
// not load, so a typo elsewhere is not compounded.
func TestModelsEditRefusesBrokenFile(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	writeConfig(t, path, "{ gateway: { port: 'many' } }\n")
	runSteps(t, path, []modelsStep{
		{name: "set on an invalid file", args: []string{"models", "set", "openai/gpt-4o"}, wantErr: "so it is not edited"},
		{name: "agents add on an invalid file", args: []string{"agents", "add", "w", "--workspace", filepath.Join(home, "w")}, wantErr: "so it is not edited"},
	})
	if _, err := os.Stat(filepath.Join(home, "w")); err == nil {
		t.Error("a refused agents add left its workspace directory behind")
	}
}

// TestModelsSetNewFile: with no config file, set writes a new one (0600).
func TestModelsSetNewFile(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	if _, stderr, err := runCLI(t, "models", "set", "openai/gpt-4o"); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("new config mode %v, want 0600", fi.Mode().Perm())
	}
	out, _, _ := runCLI(t, "models", "status", "--plain")
	if out != "openai/gpt-4o\n" {
		t.Errorf("status --plain = %q", out)
	}
}

// TestModelsStatus: the auth overview names where each key comes from and
// whether it is there, and never prints a key.
func TestModelsStatus(t *testing.T) {
	path := writeModelsConfig(t)
	t.Setenv("MODELS_TEST_KEY", "env-SECRET-value")
	t.Setenv("OPENAI_API_KEY", "")
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr bool
		check   func(t *testing.T, out map[string]any)
	}{
		{name: "json", args: []string{"models", "status", "--json"}, check: func(t *testing.T, out map[string]any) {
			if out["configPath"] != path || out["resolvedDefault"] != "openai/gpt-4o" {
				t.Errorf("configPath/resolvedDefault = %v/%v", out["configPath"], out["resolvedDefault"])
			}
			auth := out["auth"].(map[string]any)
			want := map[string]string{
				"openai": "env:OPENAI_API_KEY:missing", "paid": "config:models.providers.paid.apiKey:ok",
				"envkey": "env:MODELS_TEST_KEY:ok", "local": "none:local server:not-needed",
			}
			got := map[string]string{}
			for _, p := range auth["providers"].([]any) {
				pm := p.(map[string]any)
				eff := pm["effective"].(map[string]any)
				got[pm["provider"].(string)] = eff["kind"].(string) + ":" + eff["detail"].(string) + ":" + pm["status"].(string)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("provider %s = %q, want %q", k, got[k], v)
				}
			}
			if m, _ := json.Marshal(auth["missingProvidersInUse"]); string(m) != `["openai"]` {
				t.Errorf("missingProvidersInUse = %s", m)
			}
		}},
		{name: "bare models --json is status", args: []string{"models", "--json"}, check: func(t *testing.T, out map[string]any) {
			if out["resolvedDefault"] != "openai/gpt-4o" {
				t.Errorf("resolvedDefault = %v", out["resolvedDefault"])
			}
		}},
		{name: "check fails when a provider in use has no key", args: []string{"models", "status", "--check"}, wantErr: true},
		{name: "check passes once the key is set", args: []string{"models", "status", "--check"}, env: map[string]string{"OPENAI_API_KEY": "sk-env"}},
		{name: "probe refused", args: []string{"models", "status", "--probe"}, wantErr: true},
		{name: "unknown agent", args: []string{"models", "status", "--agent", "nobody"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			stdout, stderr, err := runCLI(t, tc.args...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v\n%s", err, tc.wantErr, stderr)
			}
			for _, secret := range []string{"sk-INLINE-SECRET", "env-SECRET-value", "sk-env"} {
				if strings.Contains(stdout+stderr, secret) {
					t.Errorf("output shows the key %q:\n%s", secret, stdout)
				}
			}
			if tc.check != nil {
				var out map[string]any
				if err := json.Unmarshal([]byte(stdout), &out); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, stdout)
				}
				tc.check(t, out)
			}
		})
	}
	// The text form carries the same facts.
	stdout, _, _ := runCLI(t, "models", "status")
	for _, s := range []string{"Default               : openai/gpt-4o", "- paid effective=config:models.providers.paid.apiKey | status=ok",
		"- openai effective=env:OPENAI_API_KEY | status=missing | in use", "Missing auth for providers in use: openai"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("status lacks %q:\n%s", s, stdout)
		}
	}
}

// TestModelsList reads models.list from the gateway, falls back to the
// local config only when no gateway runs and none was named, and filters.
func TestModelsList(t *testing.T) {
	writeModelsConfig(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Reply("models.list", map[string]any{"models": []any{
		map[string]any{"id": "gpt-4o", "name": "GPT-4o", "provider": "openai", "available": true, "contextWindow": 128000, "input": []string{"text", "image"}, "alias": "four"},
		map[string]any{"id": "qwen", "name": "qwen", "provider": "local", "available": false, "unavailableReason": "missing-auth"},
	}})
	gw := []string{"--url", srv.URL(), "--token", testToken}
	tests := []struct {
		name       string
		args       []string
		wantOut    string
		wantErr    string
		wantStderr string
	}{
		{name: "gateway json", args: append([]string{"models", "list", "--json"}, gw...),
			wantOut: `{"count":2,"models":[{"key":"openai/gpt-4o","name":"GPT-4o","input":"text+image","contextWindow":128000,"local":null,"available":true,"tags":["alias:four"]},` +
				`{"key":"local/qwen","name":"qwen","input":"-","contextWindow":null,"local":null,"available":false,"tags":[]}]}`},
		{name: "gateway provider filter plain", args: append([]string{"models", "list", "--plain", "--provider", "OPENAI"}, gw...),
			wantOut: "openai/gpt-4o\n"},
		{name: "display label refused", args: append([]string{"models", "list", "--provider", "Open AI"}, gw...),
			wantErr: "use a provider id"},
		{name: "no gateway: the local config, said so", args: []string{"models", "list", "--json"},
			wantStderr: "showing the models configured in",
			wantOut: `{"count":4,"models":[` +
				`{"key":"envkey/e1","name":"e1","input":"-","contextWindow":null,"local":false,"available":false,"tags":[]},` +
				`{"key":"local/qwen","name":"qwen","input":"-","contextWindow":null,"local":true,"available":true,"tags":[]},` +
				`{"key":"local/llava","name":"llava","input":"text+image","contextWindow":null,"local":true,"available":true,"tags":[]},` +
				`{"key":"paid/big","name":"big","input":"-","contextWindow":200000,"local":false,"available":true,"tags":[]}]}`},
		{name: "no gateway, local only", args: []string{"models", "list", "--plain", "--local"},
			wantOut: "local/qwen\nlocal/llava\n"},
		{name: "a named gateway that is down is an error, not the local list",
			args:    []string{"models", "list", "--url", "ws://127.0.0.1:" + strconv.Itoa(freePort(t)), "--token", testToken},
			wantErr: "127.0.0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, err := runCLI(t, tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tc.wantErr) {
					t.Fatalf("err %v stderr %q, want %q", err, stderr, tc.wantErr)
				}
				if strings.Contains(stderr, "showing the models configured") {
					t.Errorf("fell back to the local config: %s", stderr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if strings.HasPrefix(tc.wantOut, "{") {
				var compact bytes.Buffer
				if err := json.Compact(&compact, []byte(stdout)); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, stdout)
				}
				stdout = compact.String()
			}
			if stdout != tc.wantOut {
				t.Errorf("stdout\n%s\nwant\n%s", stdout, tc.wantOut)
			}
			if !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.wantStderr)
			}
		})
	}
	var sawView bool
	for _, r := range srv.Requests() {
		if r.Method == "models.list" {
			var p map[string]any
			json.Unmarshal(r.Params, &p)
			sawView = sawView || p["view"] == "all"
		}
	}
	if !sawView {
		t.Error("--provider did not ask the gateway for the full view")
	}
}

// TestModelsReloadNote: an edit says how it reaches a running gateway,
// and that a restart is needed when the gateway does not reload.
func TestModelsReloadNote(t *testing.T) {
	tests := []struct{ config, want string }{
		{"{}\n", "a running gateway applies this when it sees the file change"},
		{"{ gateway: { reload: { mode: 'off' } } }\n", "gateway.reload.mode is \"off\": restart the gateway"},
	}
	for _, tc := range tests {
		home := isolate(t)
		writeConfig(t, filepath.Join(home, ".openclaw", "openclaw.json"), tc.config)
		_, stderr, err := runCLI(t, "models", "set", "openai/gpt-4o")
		if err != nil || !strings.Contains(stderr, tc.want) {
			t.Errorf("config %q: err %v stderr %q, want %q", tc.config, err, stderr, tc.want)
		}
	}
}

// TestModelsStatusAgent: --agent shows that agent's own model and says
// where it comes from.
func TestModelsStatusAgent(t *testing.T) {
	home := isolate(t)
	writeConfig(t, filepath.Join(home, ".openclaw", "openclaw.json"),
		`{ agents: { defaults: { model: "openai/gpt-4o" }, entries: { main: {}, ops: { model: "anthropic/claude-sonnet-4-5" } } } }`)
	stdout, stderr, err := runCLI(t, "models", "status", "--agent", "OPS", "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	var out map[string]any
	json.Unmarshal([]byte(stdout), &out)
	mc, _ := out["modelConfig"].(map[string]any)
	if out["agentId"] != "ops" || out["resolvedDefault"] != "anthropic/claude-sonnet-4-5" || mc["defaultSource"] != "agent" {
		t.Errorf("status --agent ops = %s", stdout)
	}
}
