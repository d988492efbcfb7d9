package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/service"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// `openclaw gateway install|uninstall|start|stop|restart`, the same under
// `openclaw daemon` (OpenClaw's older name for them), and `openclaw node
// install|...` for the node host service.

func init() {
	for _, parent := range []string{"gateway", "daemon"} {
		registerCommand(parent, func(a *app) *cobra.Command { return newServiceInstallCmd(a, service.Gateway) })
		registerCommand(parent, func(a *app) *cobra.Command { return newServiceUninstallCmd(a, service.Gateway) })
		registerCommand(parent, func(a *app) *cobra.Command { return newServiceStartCmd(a, service.Gateway) })
		registerCommand(parent, func(a *app) *cobra.Command { return newServiceStopCmd(a, service.Gateway) })
		registerCommand(parent, func(a *app) *cobra.Command { return newServiceRestartCmd(a, service.Gateway) })
	}
	registerCommand("daemon", newGatewayStatusCmd)
	registerCommand("", newDaemonCmd)
	registerCommand("node", func(a *app) *cobra.Command { return newServiceInstallCmd(a, service.Node) })
	registerCommand("node", func(a *app) *cobra.Command { return newServiceUninstallCmd(a, service.Node) })
	registerCommand("node", func(a *app) *cobra.Command { return newServiceStartCmd(a, service.Node) })
	registerCommand("node", func(a *app) *cobra.Command { return newServiceStopCmd(a, service.Node) })
	registerCommand("node", func(a *app) *cobra.Command { return newServiceRestartCmd(a, service.Node) })
	registerCommand("node", newNodeStatusCmd)
}

func newDaemonCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "daemon <command>",
		Short: "Manage the Gateway service (launchd/systemd); the older name of the gateway service commands",
	}
}

// serviceManager is this machine's service manager; tests replace it
// with one whose Runner records the commands.
var serviceManager = func(home string) (service.Manager, error) {
	return service.For(runtime.GOOS, home, os.Getuid(), service.ExecRunner{})
}

// serviceNoun names the service in messages.
func serviceNoun(kind service.Kind) string {
	if kind == service.Node {
		return "Node host service"
	}
	return "Gateway service"
}

func installHint(kind service.Kind) string {
	return "openclaw " + string(kind) + " install"
}

// serviceProfile is the OpenClaw profile the service belongs to: --dev
// is the "dev" profile, as in OpenClaw.
func (a *app) serviceProfile() string {
	if p := strings.TrimSpace(os.Getenv(envProfile)); p != "" && p != "default" {
		return p
	}
	if a.dev {
		return "dev"
	}
	return ""
}

// serviceTarget is the manager and the paths a service command works on.
type serviceTarget struct {
	m     service.Manager
	paths config.Paths
	home  string
}

func (a *app) serviceTarget() (*serviceTarget, error) {
	paths, err := cliPaths(a.dev)
	if err != nil {
		return nil, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("find home directory: %w", err)
	}
	m, err := serviceManager(home)
	if err != nil {
		return nil, err
	}
	return &serviceTarget{m: m, paths: paths, home: home}, nil
}

// baseSpec is the part of a service definition both kinds share: the
// environment that points the service at this shell's state, in
// OpenClaw's variable names (its doctor and status read them back).
func (a *app) baseSpec(t *serviceTarget, kind service.Kind, args []string, wrapper string) (service.Spec, error) {
	exe, err := os.Executable()
	if err != nil {
		return service.Spec{}, fmt.Errorf("find the openclaw executable: %w", err)
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	profile := a.serviceProfile()
	if kind == service.Node {
		profile = "" // one node host per machine, as in OpenClaw
	}
	s := service.Spec{Kind: kind, Profile: profile, Program: append([]string{exe}, args...)}
	if wrapper != "" {
		s.Program = append([]string{wrapper}, s.Program[1:]...)
	}
	env := []service.Var{
		{Key: "HOME", Value: t.home},
		{Key: "PATH", Value: servicePath(filepath.Dir(exe))},
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, service.Var{Key: "TMPDIR", Value: tmp})
	}
	if p := a.serviceProfile(); p != "" {
		env = append(env, service.Var{Key: envProfile, Value: p})
	}
	env = append(env,
		service.Var{Key: envStateDir, Value: t.paths.StateDir},
		service.Var{Key: envConfigPath, Value: t.paths.ConfigPath},
	)
	if wrapper != "" {
		env = append(env, service.Var{Key: "OPENCLAW_WRAPPER", Value: wrapper})
	}
	s.Env = env
	s.EnvFile = filepath.Join(t.paths.StateDir, service.EnvFileName(kind))
	if t.m.Name() == "launchd" {
		s.WorkingDir = t.paths.StateDir
		s.LogPath = filepath.Join(t.paths.StateDir, "logs", string(kind)+"-service.log")
	}
	return s, nil
}

// identityEnv are the variables that name the service to itself.
func identityEnv(t *serviceTarget, s service.Spec) []service.Var {
	out := []service.Var{}
	if t.m.Name() == "launchd" {
		out = append(out, service.Var{Key: "OPENCLAW_LAUNCHD_LABEL", Value: service.Label(s.Kind, s.Profile)})
	} else {
		out = append(out, service.Var{Key: "OPENCLAW_SYSTEMD_UNIT", Value: service.UnitName(s.Kind, s.Profile) + ".service"})
	}
	out = append(out,
		service.Var{Key: "OPENCLAW_SERVICE_MARKER", Value: "openclaw"},
		service.Var{Key: "OPENCLAW_SERVICE_KIND", Value: string(s.Kind)},
		service.Var{Key: "OPENCLAW_SERVICE_VERSION", Value: version},
	)
	return out
}

// servicePath is a small fixed PATH: the service must not depend on the
// installing shell's PATH, which may name directories of another user.
func servicePath(exeDir string) string {
	dirs := []string{exeDir, "/usr/local/bin", "/usr/bin", "/bin"}
	if runtime.GOOS == "darwin" {
		dirs = append([]string{exeDir, "/opt/homebrew/bin"}, dirs[1:]...)
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return strings.Join(out, ":")
}

// checkWrapper validates --wrapper (or OPENCLAW_WRAPPER): an absolute
// path to an executable regular file.
func checkWrapper(path string) (string, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return "", nil
	}
	if !filepath.IsAbs(path) {
		return "", usageErrorf("--wrapper %q: the path must be absolute", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", usageErrorf("--wrapper %q: %v", path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", usageErrorf("--wrapper %q is not an executable file", path)
	}
	return path, nil
}

// lifecycleResult is a service command's --json answer, in OpenClaw's
// field names.
type lifecycleResult struct {
	Action   string           `json:"action"`
	OK       bool             `json:"ok"`
	Result   string           `json:"result,omitempty"`
	Message  string           `json:"message,omitempty"`
	Error    string           `json:"error,omitempty"`
	DryRun   bool             `json:"dryRun,omitempty"`
	Service  *serviceSnapshot `json:"service,omitempty"`
	Unit     string           `json:"definition,omitempty"`
	EnvFile  *envFileSummary  `json:"envFile,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
	Hints    []string         `json:"hints,omitempty"`
}

type serviceSnapshot struct {
	Label         string `json:"label"`
	Manager       string `json:"manager"`
	Path          string `json:"path"`
	Installed     bool   `json:"installed"`
	Loaded        bool   `json:"loaded"`
	Active        bool   `json:"active"`
	State         string `json:"state,omitempty"`
	PID           int    `json:"pid,omitempty"`
	LoadedText    string `json:"loadedText"`
	NotLoadedText string `json:"notLoadedText"`
}

// envFileSummary names the secrets file without its values.
type envFileSummary struct {
	Path string   `json:"path"`
	Keys []string `json:"keys"`
	Mode string   `json:"mode"`
}

func snapshot(st service.Status) *serviceSnapshot {
	return &serviceSnapshot{
		Label: st.Name, Manager: st.Manager, Path: st.Path, Installed: st.Installed, Loaded: st.Loaded,
		Active: st.Active, State: st.State, PID: st.PID, LoadedText: "enabled", NotLoadedText: "disabled",
	}
}

// emit prints r (JSON or its message) and turns a failed r into exit 1.
func (a *app) emit(asJSON bool, r lifecycleResult) error {
	if asJSON {
		if err := writeJSON(a.stdout, r); err != nil {
			return err
		}
	} else {
		w := a.stdout
		if !r.OK {
			w = a.stderr
		}
		if r.Message != "" {
			fmt.Fprintln(w, r.Message)
		}
		if r.Error != "" {
			fmt.Fprintln(w, r.Error)
		}
		for _, x := range r.Warnings {
			fmt.Fprintln(a.stderr, "Warning: "+x)
		}
		for _, h := range r.Hints {
			fmt.Fprintln(w, "  "+h)
		}
	}
	if !r.OK {
		return reported(errors.New(cmpStr(r.Error, r.Message)))
	}
	return nil
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fail is a failed lifecycle action.
func (a *app) fail(asJSON bool, action string, err error, hints ...string) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	return a.emit(asJSON, lifecycleResult{Action: action, OK: false, Error: err.Error(), Hints: hints})
}

// installFlags are `gateway install` / `node install` flags.
type installFlags struct {
	port                      int
	token                     string
	force, asJSON, dryRun     bool
	allowUnconfigured         bool
	wrapper                   string
	host, tlsFingerprint      string
	tls, noTLS                bool
	displayName, nodeID, cmds string
}

func newServiceInstallCmd(a *app, kind service.Kind) *cobra.Command {
	f := &installFlags{}
	short := "Install and start the Gateway service (launchd/systemd)"
	if kind == service.Node {
		short = "Install the node host service (launchd/systemd)"
	}
	c := &cobra.Command{
		Use: "install", Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runServiceInstall(cmd.Context(), kind, f)
		},
	}
	fs := c.Flags()
	fs.IntVar(&f.port, "port", 0, "gateway `port` (default gateway.port, 18789; 19001 with --dev)")
	fs.BoolVar(&f.force, "force", false, "reinstall if already installed (may restart a running service)")
	fs.BoolVar(&f.asJSON, "json", false, "print machine-readable JSON")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the service definition without writing it or starting anything")
	if kind == service.Gateway {
		fs.StringVar(&f.token, "token", "", "gateway `token` for the service (kept in an owner-only env file, never in the unit)")
		fs.BoolVar(&f.allowUnconfigured, "allow-unconfigured", false, "allow the service to start without a config file")
		fs.StringVar(&f.wrapper, "wrapper", os.Getenv("OPENCLAW_WRAPPER"), "executable `path` the service starts instead, with the gateway's arguments")
	} else {
		fs.StringVar(&f.host, "host", "127.0.0.1", "gateway `host`")
		fs.BoolVar(&f.tls, "tls", false, "use TLS for the gateway connection")
		fs.BoolVar(&f.noTLS, "no-tls", false, "disable TLS for the gateway connection")
		fs.StringVar(&f.tlsFingerprint, "tls-fingerprint", "", "expected TLS certificate `sha256` fingerprint")
		fs.StringVar(&f.displayName, "display-name", "", "override the node display `name`")
		fs.StringVar(&f.nodeID, "node-id", "", "override the generated node instance `id`")
		fs.StringVar(&f.cmds, "commands", "", "advertise only these command `ids` (comma-separated)")
	}
	return c
}

// serviceSpec is the full definition `install` writes.
func (a *app) serviceSpec(t *serviceTarget, kind service.Kind, f *installFlags) (service.Spec, []string, error) {
	var warnings []string
	local, err := localCredentials(a.dev)
	if err != nil {
		return service.Spec{}, nil, err
	}
	port := f.port
	if port == 0 {
		if port, err = gatewayPort(a.dev, local.Port); err != nil {
			return service.Spec{}, nil, err
		}
	}
	if port < 1 || port > 65535 {
		return service.Spec{}, nil, usageErrorf("invalid --port %d", f.port)
	}
	var args []string
	var secrets []service.Var
	wrapper := ""
	if kind == service.Gateway {
		args = []string{"gateway", "--port", strconv.Itoa(port)}
		if f.allowUnconfigured {
			args = append(args, "--allow-unconfigured")
		}
		if f.token != "" {
			secrets = append(secrets, service.Var{Key: envGatewayToken, Value: f.token})
		}
		if wrapper, err = checkWrapper(f.wrapper); err != nil {
			return service.Spec{}, nil, err
		}
		if _, err := os.Stat(t.paths.ConfigPath); err != nil && !f.allowUnconfigured {
			warnings = append(warnings, "no config at "+t.paths.ConfigPath+"; the gateway creates a default one at its first start")
		}
	} else {
		nf := &nodeRunFlags{host: f.host, port: port, tls: f.tls, noTLS: f.noTLS, tlsFingerprint: f.tlsFingerprint, dev: a.dev}
		if _, err := nf.url(); err != nil {
			return service.Spec{}, nil, err
		}
		args = []string{"node", "run", "--host", f.host, "--port", strconv.Itoa(port)}
		switch {
		case f.tls || f.tlsFingerprint != "":
			args = append(args, "--tls")
		case f.noTLS:
			args = append(args, "--no-tls")
		}
		for _, kv := range [][2]string{{"--tls-fingerprint", f.tlsFingerprint}, {"--node-id", f.nodeID}, {"--display-name", f.displayName}, {"--commands", f.cmds}} {
			if kv[1] != "" {
				args = append(args, kv[0], kv[1])
			}
		}
		// The node host authenticates with what this shell has, as
		// OpenClaw's node install takes them.
		for _, k := range []string{envGatewayToken, envGatewayPassword} {
			if v := strings.TrimSpace(os.Getenv(k)); v != "" {
				secrets = append(secrets, service.Var{Key: k, Value: v})
			}
		}
	}
	if a.dev {
		args = append([]string{"--dev"}, args...)
	}
	s, err := a.baseSpec(t, kind, args, wrapper)
	if err != nil {
		return service.Spec{}, nil, err
	}
	if kind == service.Gateway {
		s.Env = append(s.Env, service.Var{Key: envGatewayPort, Value: strconv.Itoa(port)})
	}
	s.Env = append(s.Env, identityEnv(t, s)...)
	s.Secrets = secrets
	return s, warnings, nil
}

func (a *app) runServiceInstall(ctx context.Context, kind service.Kind, f *installFlags) error {
	const action = "install"
	t, err := a.serviceTarget()
	if err != nil {
		return a.fail(f.asJSON, action, err)
	}
	s, warnings, err := a.serviceSpec(t, kind, f)
	if err != nil {
		return a.fail(f.asJSON, action, err)
	}
	def, err := t.m.Render(s)
	if err != nil {
		return a.fail(f.asJSON, action, err)
	}
	if _, err := t.m.RenderEnvFile(s); err != nil {
		return a.fail(f.asJSON, action, err)
	}
	var env *envFileSummary
	if len(s.Secrets) > 0 {
		env = &envFileSummary{Path: s.EnvFile, Mode: "0600"}
		for _, v := range s.Secrets {
			env.Keys = append(env.Keys, v.Key)
		}
	}
	if f.dryRun {
		if f.asJSON {
			return a.emit(true, lifecycleResult{Action: action, OK: true, Result: "dry-run", DryRun: true,
				Message: "Would write " + t.m.Path(s), Unit: def, EnvFile: env, Warnings: warnings})
		}
		fmt.Fprintf(a.stdout, "# %s (%s), not written: --dry-run\n%s", t.m.Path(s), t.m.Name(), def)
		if env != nil {
			fmt.Fprintf(a.stdout, "# %s (mode 0600): %s=<redacted>\n", env.Path, strings.Join(env.Keys, "=<redacted>, "))
		}
		return nil
	}
	st, err := t.m.Status(ctx, s)
	if err != nil && !st.Installed {
		warnings = append(warnings, "could not read the service state: "+err.Error())
	}
	if st.Installed && !f.force {
		r := lifecycleResult{Action: action, OK: true, Result: "already-installed", Service: snapshot(st),
			Message: serviceNoun(kind) + " already installed (" + st.Path + ").", Warnings: warnings}
		if !f.asJSON {
			r.Hints = []string{"Reinstall with: openclaw " + string(kind) + " install --force"}
		}
		return a.emit(f.asJSON, r)
	}
	if err := t.m.Install(ctx, s); err != nil {
		return a.fail(f.asJSON, action, err)
	}
	st, _ = t.m.Status(ctx, s)
	msg := serviceNoun(kind) + " installed: " + t.m.Path(s) + "."
	if kind == service.Gateway {
		msg += " Check it with `openclaw gateway status` and `openclaw health`."
	}
	return a.emit(f.asJSON, lifecycleResult{Action: action, OK: true, Result: "installed", Message: msg,
		Service: snapshot(st), EnvFile: env, Warnings: warnings})
}

// lifecycleSpec is the definition the other lifecycle commands address:
// names and paths only, so they work whatever the installed unit says.
func (a *app) lifecycleSpec(t *serviceTarget, kind service.Kind) service.Spec {
	profile := a.serviceProfile()
	if kind == service.Node {
		profile = ""
	}
	return service.Spec{Kind: kind, Profile: profile, EnvFile: filepath.Join(t.paths.StateDir, service.EnvFileName(kind))}
}

func newServiceUninstallCmd(a *app, kind service.Kind) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use: "uninstall", Short: "Uninstall the " + serviceNoun(kind) + " (launchd/systemd)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.uninstallService(cmd.Context(), kind)
			if err != nil {
				return a.fail(asJSON, "uninstall", err)
			}
			return a.emit(asJSON, r)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	return c
}

// uninstallService stops the service and removes its files; an absent
// service is a success.
func (a *app) uninstallService(ctx context.Context, kind service.Kind) (lifecycleResult, error) {
	t, err := a.serviceTarget()
	if err != nil {
		return lifecycleResult{}, err
	}
	s := a.lifecycleSpec(t, kind)
	st, _ := t.m.Status(ctx, s)
	if !st.Installed && !st.Loaded {
		return lifecycleResult{Action: "uninstall", OK: true, Result: "not-installed", Service: snapshot(st),
			Message: serviceNoun(kind) + " not installed."}, nil
	}
	if err := t.m.Uninstall(ctx, s); err != nil {
		return lifecycleResult{}, err
	}
	st, _ = t.m.Status(ctx, s)
	return lifecycleResult{Action: "uninstall", OK: true, Result: "uninstalled", Service: snapshot(st),
		Message: serviceNoun(kind) + " uninstalled."}, nil
}

func newServiceStartCmd(a *app, kind service.Kind) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use: "start", Short: "Start the " + serviceNoun(kind) + " (launchd/systemd)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, err := a.serviceTarget()
			if err != nil {
				return a.fail(asJSON, "start", err)
			}
			s := a.lifecycleSpec(t, kind)
			st, _ := t.m.Status(ctx, s)
			if !st.Installed {
				return a.emit(asJSON, lifecycleResult{Action: "start", OK: false, Result: "not-installed", Service: snapshot(st),
					Error: serviceNoun(kind) + " not installed.", Hints: []string{"Install it with: " + installHint(kind)}})
			}
			if st.Active {
				return a.emit(asJSON, lifecycleResult{Action: "start", OK: true, Result: "already-running", Service: snapshot(st),
					Message: fmt.Sprintf("%s already running (pid %d).", serviceNoun(kind), st.PID)})
			}
			if err := t.m.Start(ctx, s); err != nil {
				return a.fail(asJSON, "start", err)
			}
			st, _ = t.m.Status(ctx, s)
			return a.emit(asJSON, lifecycleResult{Action: "start", OK: true, Result: "started", Service: snapshot(st),
				Message: serviceNoun(kind) + " started."})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	return c
}

// interactive reports whether a person sits at stdin.
func (a *app) interactive() bool {
	f, ok := a.stdin.(*os.File)
	return ok && isTerminal(f)
}

func newServiceStopCmd(a *app, kind service.Kind) *cobra.Command {
	var asJSON, force, disable bool
	c := &cobra.Command{
		Use: "stop", Short: "Stop the " + serviceNoun(kind) + " (launchd/systemd)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			// As OpenClaw: a script must say it means to stop the
			// operator's running service.
			if kind == service.Gateway && !force && !a.interactive() {
				return a.emit(asJSON, lifecycleResult{Action: "stop", OK: false,
					Error: "This stops the running gateway service. Re-run with --force from a script, or use an isolated gateway (openclaw gateway run --dev) for testing."})
			}
			t, err := a.serviceTarget()
			if err != nil {
				return a.fail(asJSON, "stop", err)
			}
			s := a.lifecycleSpec(t, kind)
			st, _ := t.m.Status(ctx, s)
			if !st.Installed && !st.Loaded {
				return a.emit(asJSON, lifecycleResult{Action: "stop", OK: true, Result: "not-installed", Service: snapshot(st),
					Message: serviceNoun(kind) + " not installed; nothing to stop."})
			}
			if err := t.m.Stop(ctx, s, disable); err != nil {
				return a.fail(asJSON, "stop", err)
			}
			st, _ = t.m.Status(ctx, s)
			return a.emit(asJSON, lifecycleResult{Action: "stop", OK: true, Result: "stopped", Service: snapshot(st),
				Message: serviceNoun(kind) + " stopped."})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	c.Flags().BoolVar(&force, "force", false, "allow stop from a non-interactive shell")
	c.Flags().BoolVar(&disable, "disable", false, "keep the service from starting again until the next start (launchd: disable; systemd: disable)")
	return c
}

func newServiceRestartCmd(a *app, kind service.Kind) *cobra.Command {
	var asJSON, force bool
	c := &cobra.Command{
		Use: "restart", Short: "Restart the " + serviceNoun(kind) + " (launchd/systemd)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, err := a.serviceTarget()
			if err != nil {
				return a.fail(asJSON, "restart", err)
			}
			s := a.lifecycleSpec(t, kind)
			st, _ := t.m.Status(ctx, s)
			if !st.Installed {
				return a.emit(asJSON, lifecycleResult{Action: "restart", OK: false, Result: "not-installed", Service: snapshot(st),
					Error: serviceNoun(kind) + " not installed.", Hints: []string{"Install it with: " + installHint(kind)}})
			}
			if err := t.m.Restart(ctx, s); err != nil {
				return a.fail(asJSON, "restart", err)
			}
			st, _ = t.m.Status(ctx, s)
			return a.emit(asJSON, lifecycleResult{Action: "restart", OK: true, Result: "restarted", Service: snapshot(st),
				Message: serviceNoun(kind) + " restarted."})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	c.Flags().BoolVar(&force, "force", false, "restart now (the service manager's restart is always immediate here)")
	return c
}

func newNodeStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use: "status", Short: "Show node host service status", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := a.serviceTarget()
			if err != nil {
				return a.fail(asJSON, "status", err)
			}
			st, err := t.m.Status(cmd.Context(), a.lifecycleSpec(t, service.Node))
			out := map[string]any{"service": snapshot(st)}
			if err != nil {
				out["service"].(*serviceSnapshot).State = "unknown"
				out["warning"] = err.Error()
			}
			if asJSON {
				return writeJSON(a.stdout, out)
			}
			fmt.Fprintf(a.stdout, "Service: %s %s (%s)\n", st.Manager, st.Name, installedWord(st))
			fmt.Fprintf(a.stdout, "File: %s\n", st.Path)
			if st.PID > 0 {
				fmt.Fprintf(a.stdout, "Runtime: %s, pid %d\n", st.State, st.PID)
			} else if st.State != "" {
				fmt.Fprintf(a.stdout, "Runtime: %s\n", st.State)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	return c
}

func installedWord(st service.Status) string {
	switch {
	case !st.Installed:
		return "not installed"
	case st.Active:
		return "enabled, running"
	case st.Loaded:
		return "enabled, not running"
	}
	return "installed, disabled"
}
