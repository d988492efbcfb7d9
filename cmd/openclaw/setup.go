package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/openclaw-go/openclaw/gateway/config"
)

func init() { registerCommand("", newSetupCmd) }

// setupOwnFlags are setup's flags that are not onboarding's.
var setupOwnFlags = map[string]bool{"message": true, "yes": true, "baseline": true, "wizard": true, "json": true, "workspace": true}

func newSetupCmd(a *app) *cobra.Command {
	var f *onboardFlags
	var message string
	var yes, baseline, wizard bool
	c := &cobra.Command{
		Use:   "setup",
		Short: "Initialise the config and workspace; onboard when setup is incomplete",
		Long: "On a fresh system, or with any onboarding flag, setup runs `openclaw onboard`.\n" +
			"--baseline only creates the state folder, a commented config (with a generated gateway\n" +
			"token) and the workspace, without questions. On a configured system bare setup shows\n" +
			"what is set up.",
		Example: "  openclaw setup\n  openclaw setup --baseline --workspace ~/agents/main\n  openclaw setup --non-interactive --accept-risk --auth-choice openai-api-key",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			onboarding := wizard
			fs.Visit(func(fl *flag.Flag) { onboarding = onboarding || !setupOwnFlags[fl.Name] })
			switch {
			case message != "" || yes:
				return usageErrorf("the OpenClaw system agent (setup -m/--yes) is not available here; ask an agent with openclaw agent --message, change settings with openclaw configure")
			case baseline && onboarding:
				return usageErrorf("--baseline only creates the config and workspace; it takes --workspace and --json, not onboarding flags (run openclaw onboard for those)")
			case baseline:
				return a.runSetupBaseline(f.workspace, f.jsonOut)
			case onboarding:
				if err := checkOnboardFlags(fs, f); err != nil {
					return err
				}
				return a.runOnboard(cmd.Context(), f)
			}
			return a.runSetupBare(cmd.Context(), f)
		},
	}
	fs := c.Flags()
	f = addOnboardFlags(fs)
	fs.StringVarP(&message, "message", "m", "", "run one request through the system agent (not available here)")
	fs.BoolVar(&yes, "yes", false, "approve config writes of one --message request (not available here)")
	fs.BoolVar(&baseline, "baseline", false, "create the config, workspace and state folders without onboarding")
	fs.BoolVar(&wizard, "wizard", false, "run interactive onboarding")
	return c
}

// runSetupBaseline creates what a gateway needs to start, keeping all
// that exists: an invalid config is left for doctor --fix, never rewritten.
func (a *app) runSetupBaseline(workspace string, asJSON bool) error {
	paths, err := cliPaths(a.dev)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(paths.StateDir, 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	res := map[string]any{"ok": true, "configPath": paths.ConfigPath, "stateDir": paths.StateDir}
	src, err := os.ReadFile(paths.ConfigPath)
	created := false
	switch {
	case errors.Is(err, fs.ErrNotExist):
		tok, err := newGatewayToken()
		if err != nil {
			return err
		}
		if err := writePrivateFile(paths.ConfigPath, config.DefaultFile(tok)); err != nil {
			return err
		}
		created = true
	case err != nil:
		return fmt.Errorf("read config: %w", err)
	default:
		if _, err := config.Parse(paths.ConfigPath, src, config.LoadOptions{IncludeRoots: paths.IncludeRoots}); err != nil {
			var lerr *config.LoadError
			if errors.As(err, &lerr) {
				return fmt.Errorf("%s has errors and was left as it is; run openclaw doctor --fix, then setup again:\n%s", paths.ConfigPath, lerr.Issues)
			}
			return err
		}
	}
	res["configCreated"] = created
	tree, err := currentTree(paths)
	if err != nil {
		return err
	}
	cur := treeString(tree, "agents", "defaults", "workspace")
	ws := cmp.Or(cur, filepath.Join(paths.StateDir, "workspace"))
	if workspace != "" {
		home, _ := os.UserHomeDir()
		want, err := filepath.Abs(expandTilde(workspace, home))
		if err != nil {
			return fmt.Errorf("--workspace: %w", err)
		}
		switch {
		case cur != "" && cur != want:
			fmt.Fprintf(a.stderr, "warning: the config already names the workspace %s; kept it (change it with openclaw configure --section workspace)\n", cur)
		case cur == "":
			if _, err := editConfig(a, a.dev, "agents.defaults.workspace", func(src []byte) ([]byte, error) {
				return config.Set(src, "agents.defaults.workspace", want)
			}); err != nil {
				return err
			}
			ws = want
		}
	}
	home, _ := os.UserHomeDir()
	ws = expandTilde(ws, home)
	if err := os.MkdirAll(ws, 0o700); err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	res["workspace"] = ws
	if asJSON {
		return writeJSON(a.stdout, res)
	}
	if created {
		fmt.Fprintf(a.stdout, "Wrote %s (with a generated gateway token)\n", paths.ConfigPath)
	} else {
		fmt.Fprintf(a.stdout, "Kept %s\n", paths.ConfigPath)
	}
	fmt.Fprintf(a.stdout, "Workspace: %s\n", ws)
	fmt.Fprintln(a.stdout, "Next: openclaw onboard (model and channels), openclaw configure, or openclaw channels add.")
	return nil
}

// runSetupBare onboards a fresh system and describes a configured one.
func (a *app) runSetupBare(ctx context.Context, f *onboardFlags) error {
	paths, err := cliPaths(a.dev)
	if err != nil {
		return err
	}
	snap, err := config.Load(paths.ConfigPath, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
	if snap != nil && !snap.Exists {
		return a.runOnboard(ctx, f)
	}
	if err != nil {
		return fmt.Errorf("%s has errors; run openclaw doctor --fix (or openclaw onboard --reset): %w", paths.ConfigPath, err)
	}
	c := snap.Config
	ws := cmp.Or(c.Agents.Defaults.Workspace, filepath.Join(paths.StateDir, "workspace"))
	overview := map[string]any{"ok": true, "configured": true, "configPath": paths.ConfigPath, "workspace": ws,
		"gateway": map[string]any{"mode": c.Gateway.Mode, "port": c.Gateway.Port, "bind": c.Gateway.Bind},
		"model":   c.Agents.Defaults.Model.Primary}
	if f.jsonOut {
		return writeJSON(a.stdout, overview)
	}
	fmt.Fprintf(a.stdout, "Config:    %s\nWorkspace: %s\nGateway:   %s, port %d, bind %s\nModel:     %s\n",
		paths.ConfigPath, ws, cmp.Or(c.Gateway.Mode, "local"), c.Gateway.Port, cmp.Or(c.Gateway.Bind, "loopback"),
		cmp.Or(c.Agents.Defaults.Model.Primary, "(none: run openclaw configure --section model)"))
	fmt.Fprintln(a.stdout, "Change it with openclaw configure, or start over with openclaw onboard --reset.")
	return nil
}
