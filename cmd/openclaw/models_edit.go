package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// The models and agents commands edit the local config file the way
// `openclaw config set` does (editConfig: comments kept, an edit that
// would make the file invalid refused, a concurrent writer detected). A
// running gateway watches the file and applies the change itself, unless
// gateway.reload.mode is "off".

// configEdit is what an edit function sees: the file's text, the raw
// tree it parses to (${VAR} left as written, so nothing secret is in it)
// and the config it loads as (aliases resolved, defaults applied).
type configEdit struct {
	src  []byte
	tree map[string]any
	cfg  *config.Config
	path string // the config file
}

// editLocal runs fn over the current config file and writes what it
// returns. A file with errors is refused before fn runs: an edit should
// not be judged against a config the gateway would not load. It returns
// the loaded config the edit started from and the file's path.
func (a *app) editLocal(dev bool, key string, fn func(e *configEdit) ([]byte, error)) (*config.Config, string, error) {
	paths, err := cliPaths(dev)
	if err != nil {
		return nil, "", err
	}
	var before *config.Config
	path, err := editConfig(a, dev, key, func(src []byte) ([]byte, error) {
		e := &configEdit{src: src, tree: map[string]any{}, path: paths.ConfigPath}
		snap, err := config.Parse(paths.ConfigPath, src, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
		if len(bytes.TrimSpace(src)) == 0 {
			snap, err = &config.Snapshot{Config: config.Defaults()}, nil
		}
		var lerr *config.LoadError
		if errors.As(err, &lerr) {
			return nil, fmt.Errorf("%s has %s, so it is not edited; fix it first (`openclaw config validate` lists them):\n%s",
				paths.ConfigPath, plural(len(lerr.Issues), "error"), lerr.Issues)
		}
		if err != nil {
			return nil, err
		}
		e.cfg = snap.Config
		if len(bytes.TrimSpace(src)) > 0 {
			if e.tree, err = config.ParseObject(src); err != nil {
				return nil, fmt.Errorf("read %s: %w", paths.ConfigPath, err)
			}
		}
		before = e.cfg
		out, err := fn(e)
		if err == nil && bytes.Equal(out, src) {
			// Nothing changes: leave the file (and a missing file) alone.
			return nil, errUnchanged
		}
		return out, err
	})
	if errors.Is(err, errUnchanged) {
		return before, paths.ConfigPath, nil
	}
	if err != nil {
		return nil, "", err
	}
	return before, path, nil
}

// errUnchanged stops editConfig when an edit would write what is there.
var errUnchanged = errors.New("config unchanged")

// reloadNote says how the change reaches a running gateway.
func reloadNote(cfg *config.Config) string {
	if cfg != nil && cfg.Gateway.Reload.Mode == "off" {
		return "gateway.reload.mode is \"off\": restart the gateway (`openclaw gateway restart`) to apply this"
	}
	return "a running gateway applies this when it sees the file change (gateway.reload)"
}

// printUpdated is the line every edit prints, as OpenClaw's "Updated
// <config>", with the reload note on stderr so stdout stays the result.
func (a *app) printUpdated(cfg *config.Config, path string) {
	fmt.Fprintf(a.stdout, "Updated %s\n", path)
	fmt.Fprintf(a.stderr, "note: %s\n", reloadNote(cfg))
}

// builtinModelProviders are the providers a model may name without a
// models.providers entry, and the variable each takes its key from (the
// agents service's built-ins; "" is a local server that needs none).
var builtinModelProviders = map[string]string{
	"openai":    "OPENAI_API_KEY",
	"anthropic": "ANTHROPIC_API_KEY",
	"ollama":    "",
}

// knownProvider reports whether a model may name provider: a
// models.providers entry, or a built-in unless models.mode is "replace".
func knownProvider(cfg *config.Config, provider string) bool {
	if _, ok := cfg.Models.Providers[provider]; ok {
		return true
	}
	_, builtin := builtinModelProviders[provider]
	return builtin && cfg.Models.Mode != "replace"
}

// resolveModelArg turns a command-line model (an alias or
// "provider/model") into its "provider/model", refusing a malformed ref
// and a provider nothing configures. warn is set when the provider
// lists its models and this one is not among them: a new or self-hosted
// model may simply not be listed yet, so it is saved anyway.
func resolveModelArg(cfg *config.Config, raw string) (ref, warn string, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", "", usageErrorf("a model is required: \"provider/model\" or an alias from agents.defaults.models")
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return "", "", usageErrorf("model %q: a model reference has no spaces or control characters; write \"provider/model\", e.g. \"openai/gpt-4o\"", raw)
	}
	ref = cfg.ResolveModel(s)
	provider, model, ok := strings.Cut(ref, "/")
	switch {
	case !ok:
		return "", "", usageErrorf("model %q is not a model reference nor an alias in agents.defaults.models; write \"provider/model\", e.g. \"openai/gpt-4o\"", raw)
	case provider == "" || model == "" || strings.HasSuffix(model, "/"):
		return "", "", usageErrorf("model %q: both parts of \"provider/model\" are needed, e.g. \"openai/gpt-4o\"", raw)
	case !knownProvider(cfg, provider):
		return "", "", fmt.Errorf("model %q: unknown provider %q; configure models.providers.%s {baseUrl, apiKey, api}, or use one of: %s",
			raw, provider, provider, strings.Join(providerNames(cfg), ", "))
	}
	if pc, ok := cfg.Models.Providers[provider]; ok && len(pc.Models) > 0 {
		if _, listed := cfg.ModelDefinition(ref); !listed {
			warn = fmt.Sprintf("%s is not among models.providers.%s.models; saved anyway", ref, provider)
		}
	}
	return ref, warn, nil
}

// providerNames are the providers a model may name, sorted.
func providerNames(cfg *config.Config) []string {
	seen := map[string]bool{}
	for name := range cfg.Models.Providers {
		seen[name] = true
	}
	if cfg.Models.Mode != "replace" {
		for name := range builtinModelProviders {
			seen[name] = true
		}
	}
	return keys(seen)
}

// modelKeyFor is the config key of a model chain: agents.defaults.model
// or agents.defaults.imageModel.
type modelSlot struct {
	key   string // agents.defaults.model
	label string // "Default model"
}

var (
	textSlot  = modelSlot{key: "agents.defaults.model", label: "Default model"}
	imageSlot = modelSlot{key: "agents.defaults.imageModel", label: "Image model"}
)

// rawChain reads a model chain as the file writes it: a string (the
// primary alone) or {primary, fallbacks}. present is false when the key
// is absent.
func rawChain(tree map[string]any, key string) (primary string, fallbacks []string, isString, present bool) {
	segs, _ := config.ParsePath(key)
	v, ok := lookupPath(tree, segs)
	if !ok {
		return "", nil, false, false
	}
	switch x := v.(type) {
	case string:
		return x, nil, true, true
	case map[string]any:
		primary, _ = x["primary"].(string)
		list, _ := x["fallbacks"].([]any)
		for _, f := range list {
			if s, ok := f.(string); ok {
				fallbacks = append(fallbacks, s)
			}
		}
		return primary, fallbacks, false, true
	}
	return "", nil, false, true
}

// setChain writes a model chain's primary (when primary is non-nil) and
// fallbacks (when fallbacks is non-nil), keeping the string form of a
// chain that stays a lone primary and only touching the keys that change.
func setChain(e *configEdit, key string, primary *string, fallbacks []string) ([]byte, error) {
	oldPrimary, _, isString, _ := rawChain(e.tree, key)
	src := e.src
	var err error
	switch {
	case isString && fallbacks == nil:
		return config.Set(src, key, *primary)
	case isString:
		// {primary, fallbacks} replaces the string, primary first.
		p := oldPrimary
		if primary != nil {
			p = *primary
		}
		if src, err = config.Set(src, key, map[string]any{"primary": p}); err != nil {
			return nil, err
		}
		return config.Set(src, key+".fallbacks", fallbacks)
	}
	if primary != nil {
		if src, err = config.Set(src, key+".primary", *primary); err != nil {
			return nil, err
		}
	}
	if fallbacks != nil {
		if src, err = config.Set(src, key+".fallbacks", fallbacks); err != nil {
			return nil, err
		}
	}
	return src, nil
}
