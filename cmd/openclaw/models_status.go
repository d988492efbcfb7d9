package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/config"
)

type statusOpts struct {
	agent       string
	json, plain bool
	check       bool
	dev         bool
}

func newModelsStatusCmd(a *app) *cobra.Command {
	var st statusOpts
	var probe bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Show configured model state",
		Long: "The default model, fallbacks, image model, aliases and allowlist from the local\n" +
			"config, and for each provider whether it has a key and where the key comes from\n" +
			"(never the key). --check exits 1 when a provider in use has no key.",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if probe {
				return usageErrorf("--probe is not available: status reads the config and environment only, it makes no model calls")
			}
			return a.runModelsStatus(st)
		},
	}
	f := c.Flags()
	f.StringVar(&st.agent, "agent", "", "agent `id` to inspect")
	f.BoolVar(&st.json, "json", false, "output JSON")
	f.BoolVar(&st.plain, "plain", false, "plain output: the resolved default model")
	f.BoolVar(&st.check, "check", false, "exit 1 when a provider in use has no key")
	f.BoolVar(&probe, "probe", false, "probe provider auth with live calls (not available)")
	f.BoolVar(&st.dev, "dev", a.dev, "use the dev profile (~/.openclaw-dev)")
	return c
}

// providerAuth is one provider's key: whether there is one and where it
// comes from, never the key itself.
type providerAuth struct {
	Provider  string     `json:"provider"`
	Effective authSource `json:"effective"`
	Status    string     `json:"status"` // ok, missing, unverified, not-needed
	InUse     bool       `json:"inUse"`
}

type authSource struct {
	Kind   string `json:"kind"`   // env, config, secretref, none
	Detail string `json:"detail"` // a variable name, a config key, a ref; never a secret
}

func (a *app) runModelsStatus(st statusOpts) error {
	paths, snap, err := a.loadConfig(st.dev)
	if err != nil {
		return err
	}
	cfg := snap.Config
	raw := map[string]any{}
	if len(snap.Raw) > 0 {
		if raw, err = config.ParseObject(snap.Raw); err != nil {
			raw = map[string]any{}
		}
	}
	chain := cfg.Agents.Defaults.Model
	rawKey := "agents.defaults.model"
	defaultSource := "defaults"
	var agentID string
	if st.agent != "" {
		id, ok := strictAgentID(st.agent)
		if _, exists := cfg.Agent(id); !ok || !exists {
			return fmt.Errorf("agent %q not found; run `openclaw agents list` to see the configured agents", st.agent)
		}
		agentID = id
		if e, _ := cfg.Agent(id); e.Model.IsSet() {
			chain, defaultSource = e.Model, "agent"
			rawKey = config.JoinPath(config.JoinPath("agents.entries", id), "model")
		}
	}
	rawPrimary, _, _, _ := rawChain(raw, rawKey)
	image := cfg.Agents.Defaults.ImageModel.ModelRef

	inUse := map[string]bool{}
	for _, ref := range append(chain.Chain(), image.Chain()...) {
		if p, _, ok := strings.Cut(ref, "/"); ok {
			inUse[p] = true
		}
	}
	names := map[string]bool{}
	for p := range inUse {
		names[p] = true
	}
	for p := range cfg.Models.Providers {
		names[p] = true
	}
	auths := []providerAuth{}
	missing := []string{}
	for _, p := range keys(names) {
		pa := authOf(cfg, raw, p)
		pa.InUse = inUse[p]
		if pa.InUse && pa.Status == "missing" {
			missing = append(missing, p)
		}
		auths = append(auths, pa)
	}
	fallbacks := append([]string{}, chain.Fallbacks...)
	imageFallbacks := append([]string{}, image.Fallbacks...)
	aliases := aliasMap(cfg)
	allowed := append([]string{}, cfg.ModelAllowlist()...)

	switch {
	case st.json:
		out := map[string]any{
			"configPath": paths.ConfigPath, "defaultModel": nullIfEmpty(rawPrimary), "resolvedDefault": nullIfEmpty(chain.Primary),
			"fallbacks": fallbacks, "imageModel": nullIfEmpty(image.Primary), "imageFallbacks": imageFallbacks,
			"aliases": aliases, "allowed": allowed,
			"auth": map[string]any{"providers": auths, "missingProvidersInUse": missing},
		}
		if agentID != "" {
			out["agentId"] = agentID
			out["modelConfig"] = map[string]any{"defaultSource": defaultSource}
		}
		if err := writeJSON(a.stdout, out); err != nil {
			return err
		}
	case st.plain:
		fmt.Fprintln(a.stdout, chain.Primary)
	default:
		w := a.stdout
		dash := func(s string) string { return cmp.Or(s, "-") }
		list := func(l []string) string { return dash(strings.Join(l, ", ")) }
		fmt.Fprintf(w, "%-22s: %s\n", "Config", paths.ConfigPath)
		label := "Default"
		if agentID != "" {
			label += " (" + defaultSource + ")"
		}
		def := dash(chain.Primary)
		if rawPrimary != "" && rawPrimary != chain.Primary {
			def += " (from " + rawPrimary + ")"
		}
		fmt.Fprintf(w, "%-22s: %s\n", label, def)
		fmt.Fprintf(w, "%-22s: %s\n", fmt.Sprintf("Fallbacks (%d)", len(fallbacks)), list(fallbacks))
		fmt.Fprintf(w, "%-22s: %s\n", "Image model", dash(image.Primary))
		fmt.Fprintf(w, "%-22s: %s\n", fmt.Sprintf("Image fallbacks (%d)", len(imageFallbacks)), list(imageFallbacks))
		var al []string
		for _, n := range keys(aliases) {
			al = append(al, n+" -> "+aliases[n])
		}
		fmt.Fprintf(w, "%-22s: %s\n", fmt.Sprintf("Aliases (%d)", len(al)), list(al))
		allowText := "all"
		if len(allowed) > 0 {
			allowText = strings.Join(allowed, ", ")
		}
		fmt.Fprintf(w, "%-22s: %s\n", fmt.Sprintf("Allowed models (%d)", len(allowed)), allowText)
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Auth overview")
		if len(auths) == 0 {
			fmt.Fprintln(w, "- none: no model is configured (openclaw models set <provider/model>)")
		}
		for _, pa := range auths {
			use := ""
			if pa.InUse {
				use = " | in use"
			}
			fmt.Fprintf(w, "- %s effective=%s:%s | status=%s%s\n", pa.Provider, pa.Effective.Kind, pa.Effective.Detail, pa.Status, use)
		}
		if len(missing) > 0 {
			fmt.Fprintf(w, "\nMissing auth for providers in use: %s\n", strings.Join(missing, ", "))
		}
	}
	if st.check && len(missing) > 0 {
		return reported(errors.New("models status --check: a provider in use has no key"))
	}
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

var envRefRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)\}`) })

// authOf works out where provider's key comes from, reading the file's
// raw text for the source (the resolved config only has the value).
func authOf(cfg *config.Config, raw map[string]any, provider string) providerAuth {
	pa := providerAuth{Provider: provider}
	keyPath := config.JoinPath(config.JoinPath("models.providers", provider), "apiKey")
	pc, configured := cfg.Models.Providers[provider]
	if !configured {
		env, builtin := builtinModelProviders[provider]
		switch {
		case !builtin || cfg.Models.Mode == "replace":
			pa.Effective = authSource{Kind: "none", Detail: "no models.providers." + provider}
			pa.Status = "missing"
		case env == "":
			pa.Effective = authSource{Kind: "none", Detail: "local server"}
			pa.Status = "not-needed"
		default:
			pa.Effective = authSource{Kind: "env", Detail: env}
			pa.Status = presence(os.Getenv(env) != "")
		}
		return pa
	}
	segs, _ := config.ParsePath(keyPath)
	v, _ := lookupPath(raw, segs)
	switch x := v.(type) {
	case string:
		if m := envRefRE().FindAllStringSubmatch(x, -1); len(m) > 0 {
			var vars []string
			for _, g := range m {
				vars = append(vars, g[1])
			}
			pa.Effective = authSource{Kind: "env", Detail: strings.Join(vars, ",")}
			pa.Status = presence(pc.APIKey.Value != "" && len(pc.APIKey.Unresolved) == 0)
		} else {
			pa.Effective = authSource{Kind: "config", Detail: keyPath}
			pa.Status = presence(x != "")
		}
	case map[string]any:
		src, _ := x["source"].(string)
		id, _ := x["id"].(string)
		pa.Effective = authSource{Kind: "secretref", Detail: src + ":" + id}
		switch {
		case src == "env":
			pa.Status = presence(os.Getenv(id) != "")
		case pc.APIKey.Problem != "":
			pa.Status = "missing"
		default:
			// file and exec refs are resolved by the gateway, not here.
			pa.Status = "unverified"
		}
	default:
		if isLoopbackURL(pc.BaseURL) || (provider == "ollama" && pc.BaseURL == "") {
			pa.Effective = authSource{Kind: "none", Detail: "local server"}
			pa.Status = "not-needed"
		} else {
			pa.Effective = authSource{Kind: "none", Detail: keyPath + " is not set"}
			pa.Status = "missing"
		}
	}
	return pa
}

func presence(ok bool) string {
	if ok {
		return "ok"
	}
	return "missing"
}
