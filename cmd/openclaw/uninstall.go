package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/service"
	"github.com/openclaw-go/openclaw/gateway/config"
)

func init() { registerCommand("", newUninstallCmd) }

// uninstallScopes are the components `openclaw uninstall` removes.
type uninstallScopes struct{ service, state, workspace, app bool }

func (s uninstallScopes) any() bool { return s.service || s.state || s.workspace || s.app }

func newUninstallCmd(a *app) *cobra.Command {
	var sc uninstallScopes
	var all, yes, nonInteractive, dryRun bool
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Uninstall the gateway service + local data",
		Long: "Removes the gateway service (through systemd or launchd), the state directory and\n" +
			"config (--state), the agents' workspaces (--workspace). --dry-run lists what would go.\n" +
			"The CLI binary itself stays; delete it by hand.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ran = true
			if all {
				sc = uninstallScopes{true, true, true, true}
			}
			if nonInteractive && !sc.any() {
				return errors.New("Non-interactive uninstall requires explicit scopes. Use --all, or choose scopes such as --service --state.")
			}
			if nonInteractive && !yes && !dryRun {
				return errors.New("Non-interactive uninstall requires --yes. Preview first with openclaw uninstall --dry-run --all.")
			}
			if !sc.any() {
				if dryRun {
					sc.service = true
				} else {
					s, err := a.promptUninstallScopes()
					if err != nil {
						return err
					}
					sc = s
				}
			}
			paths, err := cliPaths(a.dev)
			if err != nil {
				return err
			}
			return a.uninstall(cmd.Context(), paths, sc, yes, dryRun)
		},
	}
	f := c.Flags()
	f.BoolVar(&sc.service, "service", false, "Remove the gateway service")
	f.BoolVar(&sc.state, "state", false, "Remove state + config")
	f.BoolVar(&sc.workspace, "workspace", false, "Remove workspace dirs")
	f.BoolVar(&sc.app, "app", false, "Remove the macOS app")
	f.BoolVar(&all, "all", false, "Remove service + state + workspace + app")
	f.BoolVar(&yes, "yes", false, "Skip confirmation prompts")
	f.BoolVar(&nonInteractive, "non-interactive", false, "Disable prompts (requires --yes)")
	f.BoolVar(&dryRun, "dry-run", false, "Print actions without removing files")
	return c
}

// promptUninstallScopes asks which components to remove; an empty answer
// is the service only, as OpenClaw's prompt defaults.
func (a *app) promptUninstallScopes() (uninstallScopes, error) {
	fmt.Fprint(a.stderr, "Remove which components? (comma-separated: service,state,workspace,app) [service]: ")
	answer, err := readAnswer(a.stdin)
	if err != nil {
		fmt.Fprintln(a.stderr)
		return uninstallScopes{}, usageErrorf("no components chosen (pass --service, --state, --workspace or --all)")
	}
	var sc uninstallScopes
	if strings.TrimSpace(answer) == "" {
		sc.service = true
		return sc, nil
	}
	for _, w := range strings.Split(answer, ",") {
		switch strings.TrimSpace(w) {
		case "service":
			sc.service = true
		case "state":
			sc.state = true
		case "workspace":
			sc.workspace = true
		case "app":
			sc.app = true
		case "all":
			sc = uninstallScopes{true, true, true, true}
		default:
			return uninstallScopes{}, usageErrorf("unknown component %q: want service, state, workspace or app", w)
		}
	}
	return sc, nil
}

func (a *app) uninstall(ctx context.Context, paths config.Paths, sc uninstallScopes, yes, dryRun bool) error {
	home, _ := os.UserHomeDir()
	show := func(p string) string { return tildePath(p, home) }
	state := paths.StateDir
	_, configInside := insideDir(state, paths.ConfigPath)
	workspaces := configuredWorkspaces(paths)
	var insideWS, outsideWS []string
	for _, ws := range workspaces {
		if _, ok := insideDir(state, ws); ok {
			insideWS = append(insideWS, ws)
		} else {
			outsideWS = append(outsideWS, ws)
		}
	}
	fmt.Fprintln(a.stdout, "Recommended first: openclaw backup create")
	if dryRun {
		if sc.service {
			fmt.Fprintln(a.stdout, "[dry-run] remove gateway service")
		}
		if sc.state {
			line := "[dry-run] remove " + show(state)
			if !sc.workspace && len(insideWS) > 0 {
				var kept []string
				for _, ws := range insideWS {
					kept = append(kept, show(ws))
				}
				line += " preserving " + strings.Join(kept, ", ")
			}
			fmt.Fprintln(a.stdout, line)
			if !configInside {
				fmt.Fprintf(a.stdout, "[dry-run] remove %s\n", show(paths.ConfigPath))
			}
		}
		if sc.workspace {
			for _, ws := range workspaces {
				if _, ok := insideDir(state, ws); ok && sc.state {
					// Goes with the state directory; OpenClaw still lists it.
					fmt.Fprintf(a.stdout, "[dry-run] remove %s\n", show(ws))
					continue
				}
				if err := safeWorkspace(ws, home, state); err != nil {
					fmt.Fprintf(a.stdout, "[dry-run] %v\n", err)
					continue
				}
				fmt.Fprintf(a.stdout, "[dry-run] remove %s\n", show(ws))
			}
		}
		a.uninstallFooter(sc)
		return nil
	}
	if err := a.confirm(yes, "Uninstall the selected components?"); err != nil {
		return err
	}
	var failures []string
	serviceOK := true
	if sc.service {
		r, err := a.uninstallService(ctx, service.Gateway)
		switch {
		case err != nil:
			serviceOK = false
			failures = append(failures, "gateway service: "+err.Error())
		default:
			fmt.Fprintln(a.stdout, r.Message)
		}
	}
	if (sc.state || sc.workspace) && !serviceOK {
		failures = append(failures, "state and workspaces kept: the gateway service could not be removed")
	}
	if (sc.state || sc.workspace) && serviceOK {
		if err := gatewayHoldsState(state); err != nil {
			failures = append(failures, err.Error())
		} else {
			if sc.state {
				var keep []string
				if !sc.workspace {
					keep = insideWS
				}
				if err := removeInState(state, state, keep); err != nil {
					failures = append(failures, err.Error())
				} else {
					fmt.Fprintf(a.stdout, "Removed %s\n", show(state))
				}
				if !configInside {
					if err := removeConfigFile(paths.ConfigPath); err != nil {
						failures = append(failures, err.Error())
					} else {
						fmt.Fprintf(a.stdout, "Removed %s\n", show(paths.ConfigPath))
					}
				}
			}
			if sc.workspace {
				for _, ws := range insideWS {
					if sc.state {
						continue
					}
					if err := removeInState(state, ws, nil); err != nil {
						failures = append(failures, err.Error())
					} else {
						fmt.Fprintf(a.stdout, "Removed %s\n", show(ws))
					}
				}
				for _, ws := range outsideWS {
					if err := removeWorkspaceOutside(ws, home, state); err != nil {
						failures = append(failures, err.Error())
					} else {
						fmt.Fprintf(a.stdout, "Removed %s\n", show(ws))
					}
				}
			}
		}
	}
	a.uninstallFooter(sc)
	if len(failures) > 0 {
		err := fmt.Errorf("uninstall incomplete:\n  %s", strings.Join(failures, "\n  "))
		fmt.Fprintln(a.stderr, err)
		return reported(err)
	}
	return nil
}

func (a *app) uninstallFooter(sc uninstallScopes) {
	if sc.app {
		if runtime.GOOS == "darwin" {
			fmt.Fprintln(a.stdout, "macOS app cleanup is not applicable: this build has no macOS app.")
		} else {
			fmt.Fprintln(a.stdout, "macOS app cleanup is not applicable on this platform.")
		}
	}
	fmt.Fprintln(a.stdout, "The CLI stays installed; delete the openclaw binary to remove it.")
	if sc.state && !sc.workspace {
		fmt.Fprintln(a.stdout, "Tip: workspaces were preserved. Re-run with --workspace to remove them.")
	}
}
