package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// modelChoice is one --auth-choice this gateway can set up: a provider
// of models.providers and how its key is given.
type modelChoice struct {
	choice  string // the --auth-choice value
	id      string // models.providers key
	label   string
	api     string
	baseURL string
	keyFlag string // e.g. "openai-api-key"; "" for a provider without a key
	env     string // the variable the key is read from when no flag gives it
	model   string // default model id
}

// modelChoices are the auth choices implemented here, in the order the
// wizard offers them. The real CLI has many more (OAuth sign-ins,
// vendor plans); they are refused by name, see refuseAuthChoice.
var modelChoices = []modelChoice{
	{choice: "openai-api-key", id: "openai", label: "OpenAI (API key)", api: "openai-completions",
		baseURL: "https://api.openai.com/v1", keyFlag: "openai-api-key", env: "OPENAI_API_KEY", model: "gpt-5.1"},
	{choice: "apiKey", id: "anthropic", label: "Anthropic (API key)", api: "anthropic-messages",
		baseURL: "https://api.anthropic.com", keyFlag: "anthropic-api-key", env: "ANTHROPIC_API_KEY", model: "claude-sonnet-4-5"},
	{choice: "gemini-api-key", id: "google", label: "Google Gemini (API key)", api: "google-generative-ai",
		baseURL: "https://generativelanguage.googleapis.com/v1beta", keyFlag: "gemini-api-key", env: "GEMINI_API_KEY", model: "gemini-2.5-flash"},
	{choice: "openrouter-api-key", id: "openrouter", label: "OpenRouter (API key)", api: "openai-completions",
		baseURL: "https://openrouter.ai/api/v1", keyFlag: "openrouter-api-key", env: "OPENROUTER_API_KEY", model: "openrouter/auto"},
	{choice: "ollama", id: "ollama", label: "Ollama (local, no key)", api: "ollama",
		baseURL: "http://127.0.0.1:11434", model: "llama3.2"},
	{choice: "custom-api-key", id: "custom", label: "Another OpenAI- or Anthropic-compatible server", api: "openai-completions",
		keyFlag: "custom-api-key", env: "CUSTOM_API_KEY"},
}

func findModelChoice(choice string) (modelChoice, bool) {
	for _, c := range modelChoices {
		if c.choice == choice {
			return c, true
		}
	}
	return modelChoice{}, false
}

// refuseAuthChoice explains an auth choice the real CLI has and this one
// does not.
func refuseAuthChoice(choice string) error {
	var have []string
	for _, c := range modelChoices {
		have = append(have, c.choice)
	}
	return usageErrorf("--auth-choice %q is not supported by this gateway (supported: %s, skip); configure other providers under models.providers with `openclaw config set`",
		choice, strings.Join(have, ", "))
}

// providerIDPattern keeps a custom provider id a plain key and a plain
// JSON pointer step.
var providerIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`) })

// secretsProviderName is the file secret provider onboarding writes the
// model key to.
const secretsProviderName = "onboard"

// secretsFileName is that provider's file in the state directory.
const secretsFileName = "secrets.json"

// pendingSecret is a secret to write to the secrets file once the whole
// setup is known to be good.
type pendingSecret struct {
	pointer []string
	value   string
}

// secretPointer is the JSON pointer of a secrets file entry, the id of
// the file SecretRef to it.
func secretPointer(pointer []string) string {
	var b strings.Builder
	for _, step := range pointer {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(step))
	}
	return b.String()
}

// storeSecrets puts each value at its pointer (e.g. models, openai,
// apiKey) in the owner-only secrets file and returns the file's path.
// The file is rewritten whole, atomically, always 0600, whatever mode an
// older copy had.
func storeSecrets(stateDir string, secrets []pendingSecret) (path string, err error) {
	path = filepath.Join(stateDir, secretsFileName)
	doc := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &doc); err != nil {
			return "", fmt.Errorf("secrets file %s is not a JSON object: %w", path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read secrets file: %w", err)
	}
	for _, s := range secrets {
		m := doc
		for _, step := range s.pointer[:len(s.pointer)-1] {
			next, ok := m[step].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[step] = next
			}
			m = next
		}
		m[s.pointer[len(s.pointer)-1]] = s.value
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	if err := writePrivateFile(path, append(out, '\n')); err != nil {
		return "", err
	}
	return path, nil
}

// writePrivateFile replaces path with data, readable by its owner alone.
func writePrivateFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, ".openclaw-secret-*.tmp") // created 0600
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// keyCheckClient is the client of the model key check; a var so that a
// test can count what it sends.
var keyCheckClient = &http.Client{Timeout: 15 * time.Second}

// checkModelKey asks the provider to list its models with the key: the
// cheapest request that proves both the address and the key. The key
// travels in a header, never in the URL, and never reaches the error.
func checkModelKey(ctx context.Context, api, baseURL, key string) error {
	base := strings.TrimRight(baseURL, "/")
	var url string
	hdr := http.Header{}
	switch api {
	case "anthropic-messages":
		url = base + "/v1/models"
		hdr.Set("x-api-key", key)
		hdr.Set("anthropic-version", "2023-06-01")
	case "google-generative-ai":
		url = base + "/models"
		hdr.Set("x-goog-api-key", key)
	case "ollama":
		url = base + "/api/tags"
	default:
		url = base + "/models"
		if key != "" {
			hdr.Set("Authorization", "Bearer "+key)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("model provider address %q: %w", baseURL, err)
	}
	req.Header = hdr
	resp, err := keyCheckClient.Do(req)
	if err != nil {
		var uerr interface{ Unwrap() error }
		if errors.As(err, &uerr) {
			err = uerr.Unwrap() // drop the URL the client repeats
		}
		return fmt.Errorf("could not reach %s: %v", base, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%s refused the key (HTTP %d)", base, resp.StatusCode)
	case resp.StatusCode >= 300:
		return fmt.Errorf("%s answered HTTP %d to a model list", base, resp.StatusCode)
	}
	return nil
}

// modelSetup is the model step's result: what the config gets.
type modelSetup struct {
	choice  modelChoice
	model   string // model id at the provider
	baseURL string
	// apiKey is the config value of models.providers.<id>.apiKey: a
	// SecretRef (file or env) or nil for a provider without a key.
	apiKey any
	// secret is the key to write to the secrets file, if any.
	secret  *pendingSecret
	checked bool
}

// modelRef is the agents' model, "<provider>/<model id>".
func (m modelSetup) modelRef() string { return m.choice.id + "/" + m.model }

// providerBlock is models.providers.<id> as the config gets it.
func (m modelSetup) providerBlock() map[string]any {
	b := map[string]any{"api": m.choice.api, "baseUrl": m.baseURL}
	if m.apiKey != nil {
		b["apiKey"] = m.apiKey
	}
	return b
}

// envSecretRef is an env SecretRef to name.
func envSecretRef(name string) map[string]any {
	return map[string]any{"source": "env", "provider": config.DefaultSecretAlias, "id": name}
}

// keyStorage turns a key as given into the config's apiKey: a value that
// is exactly "${VAR}" or mode "ref" becomes an env SecretRef (the key
// stays in the environment); anything else is to be written to the
// owner-only secrets file behind a file SecretRef, so the config itself
// holds no model key.
func keyStorage(c modelChoice, key, mode string) (ref any, secret *pendingSecret, err error) {
	if name, n := wholeEnvRef(key); n > 0 {
		return envSecretRef(name), nil, nil
	}
	if mode == "ref" {
		if c.env == "" {
			return nil, nil, usageErrorf("--secret-input-mode ref: %s has no key variable", c.choice)
		}
		if v := os.Getenv(c.env); v == "" {
			return nil, nil, usageErrorf("--secret-input-mode ref stores the key as a reference to %s, which is not set in this environment", c.env)
		} else if key != "" && key != v {
			return nil, nil, usageErrorf("--secret-input-mode ref: the key given differs from %s; set %s to it, or drop the key flag", c.env, c.env)
		}
		return envSecretRef(c.env), nil, nil
	}
	pointer := []string{"models", c.id, "apiKey"}
	return map[string]any{"source": "file", "provider": secretsProviderName, "id": secretPointer(pointer)},
		&pendingSecret{pointer: pointer, value: key}, nil
}
