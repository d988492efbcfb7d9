package main

import (
	"fmt"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/plugins/extproc"
)

func init() { registerCommand("", newPluginsCmd) }

// pluginRow is one plugin as `plugins list` shows it.
type pluginRow struct {
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Enabled     bool   `json:"enabled"`
	// Status says why: enabled, disabled (entries), blocked (allow/deny
	// or plugins.enabled false), or off (an optional built-in not turned on).
	Status string `json:"status"`
	Origin string `json:"origin"` // bundled or path
	Source string `json:"source,omitempty"`
	Format string `json:"format"`
}

// bundledPlugins are the optional plugins built into this binary.
var bundledPlugins = []pluginRow{
	{ID: "llm-task", Name: "LLM Task", Description: "a JSON-only model step for workflows (the llm-task tool)"},
}

// newPluginsCmd is `openclaw plugins list|enable|disable`: the plugins the
// config would run (the optional built-ins and the folders of
// plugins.load.paths) and the switch for each. Installing from a registry
// is not offered: a plugin here is a folder you put on plugins.load.paths.
func newPluginsCmd(a *app) *cobra.Command {
	root := &cobra.Command{Use: "plugins <command>", Short: "Manage OpenClaw plugins and extensions"}
	var onlyEnabled, verbose, asJSON, dev bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the plugins the config knows, with whether each runs and why",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows, errs, err := a.pluginRows(dev || a.dev)
			if err != nil {
				return err
			}
			if onlyEnabled {
				rows = slices.DeleteFunc(rows, func(r pluginRow) bool { return !r.Enabled })
			}
			if asJSON {
				msgs := make([]string, len(errs))
				for i, e := range errs {
					msgs[i] = e.Error()
				}
				return writeJSON(a.stdout, map[string]any{"plugins": rows, "diagnostics": msgs})
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tORIGIN\tNAME")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Status, r.Origin, orDash(r.Name))
				if verbose {
					fmt.Fprintf(tw, "\t\t\t%s\n", orDash(r.Description))
					if r.Source != "" {
						fmt.Fprintf(tw, "\t\t\tsource: %s\n", r.Source)
					}
				}
			}
			tw.Flush()
			for _, e := range errs {
				fmt.Fprintf(a.stderr, "warning: %v\n", e)
			}
			return nil
		},
	}
	lf := list.Flags()
	lf.BoolVar(&onlyEnabled, "enabled", false, "only the plugins that run")
	lf.BoolVarP(&verbose, "verbose", "v", false, "show descriptions and folders")
	lf.BoolVar(&asJSON, "json", false, "print JSON")
	lf.BoolVar(&dev, "dev", false, "use the dev profile (~/.openclaw-dev)")

	toggle := func(use, short string, on bool) *cobra.Command {
		var tdev bool
		c := &cobra.Command{
			Use:   use + " <id>...",
			Short: short,
			Args:  cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, ids []string) error {
				rows, _, err := a.pluginRows(tdev || a.dev)
				if err != nil {
					return err
				}
				for _, id := range ids {
					if !slices.ContainsFunc(rows, func(r pluginRow) bool { return r.ID == id }) {
						return fmt.Errorf("no plugin %q: `openclaw plugins list` shows the ones the config knows", id)
					}
				}
				var cfg *config.Config
				var path string
				for _, id := range ids {
					key := config.JoinPath(config.JoinPath("plugins.entries", id), "enabled")
					cfg, path, err = a.editLocal(tdev || a.dev, key, func(e *configEdit) ([]byte, error) {
						return config.Set(e.src, key, on)
					})
					if err != nil {
						return err
					}
				}
				a.printUpdated(cfg, path)
				if on && cfg != nil {
					for _, id := range ids {
						if !cfg.Plugins.Permits(id) {
							fmt.Fprintf(a.stderr, "warning: %s stays blocked by plugins.enabled, plugins.allow or plugins.deny\n", id)
						}
					}
				}
				return nil
			},
		}
		c.Flags().BoolVar(&tdev, "dev", false, "use the dev profile (~/.openclaw-dev)")
		return c
	}
	root.AddCommand(list, toggle("enable", "Turn plugins on (plugins.entries.<id>.enabled)", true),
		toggle("disable", "Turn plugins off (plugins.entries.<id>.enabled)", false))
	return root
}

// pluginRows reads the local config and the plugin folders it names.
func (a *app) pluginRows(dev bool) ([]pluginRow, []error, error) {
	paths, err := cliPaths(dev)
	if err != nil {
		return nil, nil, err
	}
	snap, err := config.Load(paths.ConfigPath, config.LoadOptions{Getenv: os.Getenv, IncludeRoots: paths.IncludeRoots})
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w (`openclaw config validate` lists the problems)", paths.ConfigPath, err)
	}
	p := snap.Config.Plugins
	status := func(id string, defaultOn bool) (bool, string) {
		entry, has := p.Entries[id]
		switch {
		case !p.Permits(id):
			return false, "blocked"
		case has && entry.Enabled != nil && !*entry.Enabled:
			return false, "disabled"
		case has && entry.Enabled != nil && *entry.Enabled, defaultOn:
			return true, "enabled"
		default:
			return false, "off"
		}
	}
	var rows []pluginRow
	for _, b := range bundledPlugins {
		b.Enabled, b.Status = status(b.ID, false)
		b.Origin, b.Format = "bundled", "openclaw"
		rows = append(rows, b)
	}
	manifests, errs := extproc.Discover(p.Load.Paths)
	for _, m := range manifests {
		r := pluginRow{ID: m.ID, Name: m.Name, Description: m.Description, Origin: "path", Source: m.Dir, Format: "openclaw"}
		r.Enabled, r.Status = status(m.ID, true)
		rows = append(rows, r)
	}
	return rows, errs, nil
}
