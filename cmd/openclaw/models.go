package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/config"
)

func init() { registerCommand("", newModelsCmd) }

// newModelsCmd is `openclaw models`: the default model, its fallbacks and
// aliases in the local config, and the models the gateway offers. Bare
// `openclaw models` is `models status`, as in OpenClaw.
func newModelsCmd(a *app) *cobra.Command {
	var st statusOpts
	var statusJSON, statusPlain bool
	c := &cobra.Command{
		Use:   "models",
		Short: "Model discovery, scanning, and configuration",
		Long: "The default model and its fallbacks, the image model, aliases, and the models\n" +
			"the gateway offers. Edits go to the local config file (comments kept); a running\n" +
			"gateway reloads it.",
		Args: a.unknownCommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st.json = st.json || statusJSON
			st.plain = st.plain || statusPlain
			return a.runModelsStatus(st)
		},
	}
	f := c.Flags()
	f.StringVar(&st.agent, "agent", "", "agent `id` to inspect")
	f.BoolVar(&st.json, "json", false, "output JSON (alias for models status --json)")
	f.BoolVar(&statusJSON, "status-json", false, "output JSON (alias for models status --json)")
	f.BoolVar(&statusPlain, "status-plain", false, "plain output (alias for models status --plain)")
	f.BoolVar(&st.dev, "dev", a.dev, "use the dev profile (~/.openclaw-dev)")
	c.AddCommand(newModelsListCmd(a), newModelsStatusCmd(a),
		newModelsSetCmd(a, textSlot, "set", "Set the default model"),
		newModelsSetCmd(a, imageSlot, "set-image", "Set the image model"),
		newFallbacksCmd(a, textSlot, "fallbacks", "Manage model fallback list", "Fallbacks"),
		newFallbacksCmd(a, imageSlot, "image-fallbacks", "Manage image model fallback list", "Image fallbacks"),
		newAliasesCmd(a))
	return c
}

// devFlag adds --dev, defaulting to a --dev before the command.
func devFlag(c *cobra.Command, a *app) *bool {
	return c.Flags().Bool("dev", a.dev, "use the dev profile (~/.openclaw-dev)")
}

func newModelsSetCmd(a *app, slot modelSlot, name, short string) *cobra.Command {
	c := &cobra.Command{
		Use:   name + " <model>",
		Short: short,
		Long:  short + ": writes " + slot.key + ".primary. <model> is \"provider/model\" or an alias.",
		Args:  exactArgs(1, "<model>"),
	}
	dev := devFlag(c, a)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		var ref, warn string
		before, path, err := a.editLocal(*dev, slot.key, func(e *configEdit) ([]byte, error) {
			var err error
			if ref, warn, err = resolveModelArg(e.cfg, args[0]); err != nil {
				return nil, err
			}
			return setChain(e, slot.key, &ref, nil)
		})
		if err != nil {
			return err
		}
		if warn != "" {
			fmt.Fprintf(a.stderr, "warning: %s\n", warn)
		}
		a.printUpdated(before, path)
		_, err = fmt.Fprintf(a.stdout, "%s: %s\n", slot.label, ref)
		return err
	}
	return c
}

// exactArgs refuses a wrong number of arguments as a usage error naming
// what is wanted.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		if len(args) < n {
			return usageErrorf("%s: missing %s", c.CommandPath(), what)
		}
		return usageErrorf("%s: unexpected argument %q (wants %s)", c.CommandPath(), args[n], what)
	}
}

func newFallbacksCmd(a *app, slot modelSlot, name, short, label string) *cobra.Command {
	c := &cobra.Command{Use: name, Short: short}
	key := slot.key + ".fallbacks"

	list := &cobra.Command{Use: "list", Short: "List fallback models", Args: exactArgs(0, "no arguments")}
	listDev := devFlag(list, a)
	var asJSON, plain bool
	list.Flags().BoolVar(&asJSON, "json", false, "output JSON")
	list.Flags().BoolVar(&plain, "plain", false, "plain output: one model a line")
	list.RunE = func(cmd *cobra.Command, args []string) error {
		_, snap, err := a.loadConfig(*listDev)
		if err != nil {
			return err
		}
		fallbacks := chainOf(snap.Config, slot).Fallbacks
		if fallbacks == nil {
			fallbacks = []string{}
		}
		switch {
		case asJSON:
			return writeJSON(a.stdout, map[string]any{"fallbacks": fallbacks})
		case plain:
			for _, f := range fallbacks {
				fmt.Fprintln(a.stdout, f)
			}
			return nil
		}
		fmt.Fprintf(a.stdout, "%s (%d):\n", label, len(fallbacks))
		if len(fallbacks) == 0 {
			fmt.Fprintln(a.stdout, "- none")
		}
		for _, f := range fallbacks {
			fmt.Fprintf(a.stdout, "- %s\n", f)
		}
		return nil
	}

	add := &cobra.Command{Use: "add <model>", Short: "Add a fallback model", Args: exactArgs(1, "<model>")}
	addDev := devFlag(add, a)
	add.RunE = func(cmd *cobra.Command, args []string) error {
		var now []string
		var warn string
		before, path, err := a.editLocal(*addDev, key, func(e *configEdit) ([]byte, error) {
			ref, w, err := resolveModelArg(e.cfg, args[0])
			if err != nil {
				return nil, err
			}
			warn = w
			_, raw, _, _ := rawChain(e.tree, slot.key)
			for _, f := range raw {
				if e.cfg.ResolveModel(f) == ref {
					now = raw
					return e.src, nil // already there: nothing to write
				}
			}
			now = append(slices.Clip(raw), ref)
			return setChain(e, slot.key, nil, now)
		})
		if err != nil {
			return err
		}
		if warn != "" {
			fmt.Fprintf(a.stderr, "warning: %s\n", warn)
		}
		a.printUpdated(before, path)
		_, err = fmt.Fprintf(a.stdout, "%s: %s\n", label, strings.Join(now, ", "))
		return err
	}

	remove := &cobra.Command{Use: "remove <model>", Short: "Remove a fallback model", Args: exactArgs(1, "<model>")}
	removeDev := devFlag(remove, a)
	remove.RunE = func(cmd *cobra.Command, args []string) error {
		var now []string
		before, path, err := a.editLocal(*removeDev, key, func(e *configEdit) ([]byte, error) {
			target := e.cfg.ResolveModel(args[0])
			_, raw, _, _ := rawChain(e.tree, slot.key)
			now = []string{}
			for _, f := range raw {
				if e.cfg.ResolveModel(f) != target {
					now = append(now, f)
				}
			}
			if len(now) == len(raw) {
				return nil, fmt.Errorf("%s not found: %s. Run `openclaw models %s list` to see the configured fallbacks", strings.TrimSuffix(label, "s"), target, name)
			}
			return setChain(e, slot.key, nil, now)
		})
		if err != nil {
			return err
		}
		a.printUpdated(before, path)
		_, err = fmt.Fprintf(a.stdout, "%s: %s\n", label, strings.Join(now, ", "))
		return err
	}

	clear := &cobra.Command{Use: "clear", Short: "Clear all fallback models", Args: exactArgs(0, "no arguments")}
	clearDev := devFlag(clear, a)
	clear.RunE = func(cmd *cobra.Command, args []string) error {
		before, path, err := a.editLocal(*clearDev, key, func(e *configEdit) ([]byte, error) {
			if _, raw, _, _ := rawChain(e.tree, slot.key); len(raw) == 0 {
				return e.src, nil
			}
			return setChain(e, slot.key, nil, []string{})
		})
		if err != nil {
			return err
		}
		a.printUpdated(before, path)
		_, err = fmt.Fprintf(a.stdout, "%s cleared.\n", label)
		return err
	}
	c.AddCommand(list, add, remove, clear)
	return c
}

// chainOf is the resolved model chain a slot names.
func chainOf(cfg *config.Config, slot modelSlot) config.ModelRef {
	if slot == imageSlot {
		return cfg.Agents.Defaults.ImageModel.ModelRef
	}
	return cfg.Agents.Defaults.Model
}

func newAliasesCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "aliases", Short: "Manage model aliases"}

	list := &cobra.Command{Use: "list", Short: "List model aliases", Args: exactArgs(0, "no arguments")}
	listDev := devFlag(list, a)
	var asJSON, plain bool
	list.Flags().BoolVar(&asJSON, "json", false, "output JSON")
	list.Flags().BoolVar(&plain, "plain", false, "plain output: \"alias model\" a line")
	list.RunE = func(cmd *cobra.Command, args []string) error {
		_, snap, err := a.loadConfig(*listDev)
		if err != nil {
			return err
		}
		aliases := aliasMap(snap.Config)
		names := keys(aliases)
		switch {
		case asJSON:
			return writeJSON(a.stdout, map[string]any{"aliases": aliases})
		case plain:
			for _, n := range names {
				fmt.Fprintf(a.stdout, "%s %s\n", n, aliases[n])
			}
			return nil
		}
		fmt.Fprintf(a.stdout, "Aliases (%d):\n", len(names))
		if len(names) == 0 {
			fmt.Fprintln(a.stdout, "- none")
		}
		for _, n := range names {
			fmt.Fprintf(a.stdout, "- %s -> %s\n", n, aliases[n])
		}
		return nil
	}

	add := &cobra.Command{Use: "add <alias> <model>", Short: "Add or update a model alias", Args: exactArgs(2, "<alias> <model>")}
	addDev := devFlag(add, a)
	add.RunE = func(cmd *cobra.Command, args []string) error {
		alias := strings.TrimSpace(args[0])
		if alias == "" || strings.ContainsAny(alias, "/ \t\r\n") {
			return usageErrorf("alias %q: an alias is one word without \"/\" (it stands for a \"provider/model\")", args[0])
		}
		var ref string
		var wasEmpty bool
		before, path, err := a.editLocal(*addDev, "agents.defaults.models", func(e *configEdit) ([]byte, error) {
			r, _, err := resolveModelArg(e.cfg, args[1])
			if err != nil {
				return nil, err
			}
			ref = r
			models := e.cfg.Agents.Defaults.Models
			wasEmpty = len(models) == 0
			for key, m := range models {
				if strings.EqualFold(strings.TrimSpace(m.Alias), alias) && key != ref {
					return nil, fmt.Errorf("alias %s already points to %s; remove it first (`openclaw models aliases remove %s`)", alias, key, alias)
				}
			}
			return config.Set(e.src, config.JoinPath(config.JoinPath("agents.defaults.models", ref), "alias"), alias)
		})
		if err != nil {
			return err
		}
		a.printUpdated(before, path)
		if wasEmpty {
			fmt.Fprintf(a.stderr, "note: agents.defaults.models now lists %s; a non-empty agents.defaults.models is also the model allowlist\n", ref)
		}
		_, err = fmt.Fprintf(a.stdout, "Alias %s -> %s\n", alias, ref)
		return err
	}

	remove := &cobra.Command{Use: "remove <alias>", Short: "Remove a model alias", Args: exactArgs(1, "<alias>")}
	removeDev := devFlag(remove, a)
	remove.RunE = func(cmd *cobra.Command, args []string) error {
		alias := strings.TrimSpace(args[0])
		before, path, err := a.editLocal(*removeDev, "agents.defaults.models", func(e *configEdit) ([]byte, error) {
			src, found := e.src, false
			for _, key := range keys(e.cfg.Agents.Defaults.Models) {
				if strings.EqualFold(strings.TrimSpace(e.cfg.Agents.Defaults.Models[key].Alias), alias) {
					var err error
					// The entry stays: it may be on the allowlist.
					if src, err = config.Unset(src, config.JoinPath(config.JoinPath("agents.defaults.models", key), "alias")); err != nil {
						return nil, err
					}
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("alias not found: %s. Run `openclaw models aliases list` to see the configured aliases", alias)
			}
			return src, nil
		})
		if err != nil {
			return err
		}
		a.printUpdated(before, path)
		_, err = fmt.Fprintf(a.stdout, "Removed alias %s\n", alias)
		return err
	}
	c.AddCommand(list, add, remove)
	return c
}

// aliasMap is alias -> "provider/model" from agents.defaults.models.
func aliasMap(cfg *config.Config) map[string]string {
	out := map[string]string{}
	for key, m := range cfg.Agents.Defaults.Models {
		if a := strings.TrimSpace(m.Alias); a != "" {
			out[a] = key
		}
	}
	return out
}
