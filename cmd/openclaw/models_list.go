package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// modelRow is one `models list --json` row, in OpenClaw's shape.
type modelRow struct {
	Key           string   `json:"key"`
	Name          string   `json:"name"`
	Input         string   `json:"input"`
	ContextWindow *int     `json:"contextWindow"`
	Local         *bool    `json:"local"`
	Available     *bool    `json:"available"`
	Tags          []string `json:"tags"`
}

// gatewayModel is one models.list row as the gateway sends it.
type gatewayModel struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Provider      string   `json:"provider"`
	Alias         string   `json:"alias"`
	Tags          []string `json:"tags"`
	Available     *bool    `json:"available"`
	ContextWindow int      `json:"contextWindow"`
	Input         []string `json:"input"`
	Local         *bool    `json:"local"`
}

func newModelsListCmd(a *app) *cobra.Command {
	var all, local, refresh, plain bool
	var provider, agent string
	var g *gatewayFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List models (configured by default)",
		Long: "Lists the models the gateway offers (models.list). With no gateway running and no\n" +
			"gateway named (--url, OPENCLAW_GATEWAY_URL, gateway.mode remote), it lists the\n" +
			"models the local config offers instead, and says so on stderr.",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			provider = strings.TrimSpace(provider)
			if strings.ContainsFunc(provider, func(r rune) bool { return r == ' ' || r == '\t' }) {
				return usageErrorf("invalid provider filter %q: use a provider id such as \"openai\", not a display label", provider)
			}
			if refresh {
				fmt.Fprintln(a.stderr, "warning: --refresh: this gateway has no provider discovery; the list is the configured models")
			}
			params := map[string]any{"view": "default"}
			if all || provider != "" {
				params["view"] = "all"
			}
			if agent = strings.TrimSpace(agent); agent != "" {
				params["agentId"] = agent
			}
			var out struct {
				Models []gatewayModel `json:"models"`
			}
			var rows []modelRow
			err := a.callOnce(cmd.Context(), g, "models.list", scopesFor("models.list"), params, &out, false)
			var terr *transportError
			switch {
			case err == nil:
				for _, m := range out.Models {
					rows = append(rows, gatewayRow(m))
				}
			case errors.As(err, &terr) && terr.unreachable && !explicitTarget(g):
				paths, snap, lerr := a.loadConfig(g.dev)
				if lerr != nil {
					return lerr
				}
				fmt.Fprintf(a.stderr, "note: no gateway at %s; showing the models configured in %s\n", terr.target, paths.ConfigPath)
				rows = localModelRows(snap.Config)
			default:
				return err
			}
			rows = slices.DeleteFunc(rows, func(r modelRow) bool {
				p, _, _ := strings.Cut(r.Key, "/")
				return (provider != "" && !strings.EqualFold(p, provider)) || (local && (r.Local == nil || !*r.Local))
			})
			if rows == nil {
				rows = []modelRow{}
			}
			switch {
			case g.json:
				return writeJSON(a.stdout, map[string]any{"count": len(rows), "models": rows})
			case plain:
				for _, r := range rows {
					fmt.Fprintln(a.stdout, r.Key)
				}
				return nil
			}
			printModelRows(a, rows)
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&all, "all", false, "show the full model catalog")
	f.BoolVar(&local, "local", false, "only local models")
	f.BoolVar(&refresh, "refresh", false, "refresh provider discovery before listing (not available: the list is the configured models)")
	f.BoolVar(&plain, "plain", false, "plain output: one model a line")
	f.StringVar(&provider, "provider", "", "only this provider `id`")
	f.StringVar(&agent, "agent", "", "the models this agent `id` may use")
	g = addGatewayFlags(f, a)
	return c
}

// explicitTarget reports whether the user named a gateway, so failing to
// reach it is an error rather than a reason to read the local config.
func explicitTarget(g *gatewayFlags) bool {
	if g.url != "" || os.Getenv(envGatewayURL) != "" {
		return true
	}
	local, err := localCredentials(g.dev)
	return err == nil && local.Remote
}

func gatewayRow(m gatewayModel) modelRow {
	r := modelRow{Key: m.Provider + "/" + m.ID, Name: m.Name, Input: strings.Join(m.Input, "+"), Local: m.Local, Available: m.Available}
	if r.Input == "" {
		r.Input = "-"
	}
	if m.ContextWindow > 0 {
		r.ContextWindow = &m.ContextWindow
	}
	r.Tags = append([]string{}, m.Tags...)
	if m.Alias != "" && !slices.Contains(r.Tags, "alias:"+m.Alias) {
		r.Tags = append(r.Tags, "alias:"+m.Alias)
	}
	return r
}

// localModelRows are the rows the gateway's models.list would give for
// cfg: every model under models.providers the allowlist admits, marked
// available when its provider has a key or is a local server.
func localModelRows(cfg *config.Config) []modelRow {
	allow := cfg.ModelAllowlist()
	var rows []modelRow
	for _, name := range keys(cfg.Models.Providers) {
		pc := cfg.Models.Providers[name]
		isLocal := isLoopbackURL(pc.BaseURL)
		for _, m := range pc.Models {
			ref := name + "/" + m.ID
			if len(allow) > 0 && cfg.ModelAllowed("", ref) != nil {
				continue
			}
			available := pc.APIKey.Value != "" || isLocal
			r := modelRow{Key: ref, Name: cmp.Or(m.Name, m.ID), Input: strings.Join(m.Input, "+"), Local: &isLocal, Available: &available, Tags: []string{}}
			if r.Input == "" {
				r.Input = "-"
			}
			if m.ContextWindow > 0 {
				cw := m.ContextWindow
				r.ContextWindow = &cw
			}
			r.Tags = append(r.Tags, chainTags(cfg, ref)...)
			if alias := cfg.Agents.Defaults.Models[ref].Alias; alias != "" {
				r.Tags = append(r.Tags, "alias:"+alias)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// chainTags mark the models the defaults' chains name.
func chainTags(cfg *config.Config, ref string) []string {
	var tags []string
	d := cfg.Agents.Defaults
	if d.Model.Primary == ref {
		tags = append(tags, "default")
	}
	for i, f := range d.Model.Fallbacks {
		if f == ref {
			tags = append(tags, "fallback#"+strconv.Itoa(i+1))
		}
	}
	if d.ImageModel.Primary == ref {
		tags = append(tags, "image")
	}
	return tags
}

func isLoopbackURL(u string) bool {
	for _, p := range []string{"://127.", "://localhost", "://[::1]"} {
		if strings.Contains(u, p) {
			return true
		}
	}
	return false
}

func printModelRows(a *app, rows []modelRow) {
	tri := func(b *bool) string {
		switch {
		case b == nil:
			return "-"
		case *b:
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(a.stdout, "%-44s %-11s %-11s %-5s %-5s %s\n", "Model", "Input", "Ctx", "Local", "Auth", "Tags")
	for _, r := range rows {
		ctx := "-"
		if r.ContextWindow != nil {
			ctx = strconv.Itoa(*r.ContextWindow/1000) + "k"
		}
		fmt.Fprintf(a.stdout, "%-44s %-11s %-11s %-5s %-5s %s\n", sanitizeCell(r.Key), sanitizeCell(r.Input), ctx,
			tri(r.Local), tri(r.Available), sanitizeCell(strings.Join(r.Tags, ",")))
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.stdout, "(no models: add them under models.providers.<name>.models)")
	}
}

// sanitizeCell keeps terminal control characters a gateway or config
// might carry out of the table.
func sanitizeCell(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}
