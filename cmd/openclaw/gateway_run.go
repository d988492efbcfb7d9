package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/statelock"
)

// gatewayRunFlags are the flags of `openclaw gateway run`, named as in
// the real CLI.
type gatewayRunFlags struct {
	port    int
	bind    string
	token   string
	auth    string
	dev     bool
	verbose bool
	force   bool
}

// gatewayRunLongFlags are the long flags `gateway run` took with one dash
// when it parsed with the standard flag package (-port 18789); they are
// still read so scripts written then keep working.
var gatewayRunLongFlags = []string{"port", "bind", "token", "auth", "dev", "verbose", "force", "allow-unconfigured"}

// parseGatewayRun reads the command line of `openclaw gateway run`.
func parseGatewayRun(a *app, args []string) (gatewayRunFlags, error) {
	var f gatewayRunFlags
	fs := newFlagSet(a, "openclaw gateway run [flags]")
	fs.IntVar(&f.port, "port", 0, "`port` for the gateway WebSocket (default gateway.port, 18789; 19001 with --dev)")
	fs.StringVar(&f.bind, "bind", "", "bind `mode`: loopback, lan, tailnet, auto or custom (default gateway.bind, or loopback)")
	fs.StringVar(&f.token, "token", "", "shared `token` required in connect.params.auth.token (default gateway.auth.token or OPENCLAW_GATEWAY_TOKEN)")
	fs.StringVar(&f.auth, "auth", "", "gateway auth `mode`: token, password or none (default gateway.auth.mode)")
	fs.BoolVar(&f.dev, "dev", false, "use the dev profile (~/.openclaw-dev, port 19001); its config is created if missing")
	fs.BoolVar(&f.verbose, "verbose", false, "verbose logging (debug level) to stderr")
	fs.Bool("allow-unconfigured", false, "accepted for compatibility: a missing config is always created")
	fs.BoolVar(&f.force, "force", false, "accepted for compatibility: a second gateway on the same state is refused by its lock, never killed")
	if _, err := fs.parse(oneDashLong(args, gatewayRunLongFlags), 0, 0); err != nil {
		return f, err
	}
	switch f.auth {
	case "", "token", "password", "none":
	default:
		return f, usageErrorf("--auth must be token, password or none, not %q", f.auth)
	}
	switch f.bind {
	case "", "loopback", "lan", "tailnet", "auto", "custom":
	default:
		return f, usageErrorf("--bind must be loopback, lan, tailnet, auto or custom, not %q", f.bind)
	}
	// --port 0 meant "the configured port" before and still does.
	if f.port < 0 || f.port > 65535 {
		return f, usageErrorf("--port %d is not a port (1-65535, or 0 for the configured one)", f.port)
	}
	if f.token == "" {
		f.token = os.Getenv("OPENCLAW_GATEWAY_TOKEN")
	}
	if f.port == 0 {
		if v := os.Getenv("OPENCLAW_GATEWAY_PORT"); v != "" {
			if _, err := fmt.Sscan(v, &f.port); err != nil || f.port < 1 || f.port > 65535 {
				return f, usageErrorf("OPENCLAW_GATEWAY_PORT=%q is not a port", v)
			}
		}
	}
	return f, nil
}

// oneDashLong rewrites -name and -name=value to --name for the given long
// flag names, up to a "--".
func oneDashLong(args []string, names []string) []string {
	out := make([]string, 0, len(args))
	for i, arg := range args {
		if arg == "--" {
			return append(out, args[i:]...)
		}
		if len(arg) > 2 && arg[0] == '-' && arg[1] != '-' {
			name, _, _ := strings.Cut(arg[1:], "=")
			if slices.Contains(names, name) {
				arg = "-" + arg
			}
		}
		out = append(out, arg)
	}
	return out
}

// startupGCPercent is GOGC while the gateway starts.
const startupGCPercent = 400

// runGateway runs the gateway in the foreground until SIGINT or SIGTERM
// (through ctx). SIGUSR1 restarts it in process: listeners and stores are
// closed and built again from the config file.
func runGateway(ctx context.Context, a *app, args []string) error {
	f, err := parseGatewayRun(a, args)
	if err != nil {
		return err
	}
	stdout, stderr := a.stdout, a.stderr
	home, _ := os.UserHomeDir()
	paths := config.ResolvePaths(os.Getenv, home, f.dev)
	// Start-up allocates a few megabytes that are garbage soon after
	// (config tables, migrations, registrations); on a heap that small the
	// default GOGC collects several times before the port opens. Collect
	// less until serving, then go back to the user's setting.
	gcPercent := debug.SetGCPercent(startupGCPercent)
	var restoreGC sync.Once
	opts := gateway.Options{
		StateDir: paths.StateDir, ConfigPath: paths.ConfigPath, IncludeRoots: paths.IncludeRoots,
		Port: f.port, Bind: f.bind, Token: f.token, AuthMode: f.auth, Dev: f.dev, Version: version,
		Getenv: os.Getenv, Stderr: stderr, Verbose: f.verbose,
		Ready: func(addr string) {
			restoreGC.Do(func() { debug.SetGCPercent(gcPercent) })
			fmt.Fprintf(stdout, "openclaw gateway listening on ws://%s (config %s)\n", addr, paths.ConfigPath)
			fmt.Fprintf(stdout, "connect with: openclaw health   (the CLI reads the token from the config)\n")
		},
		ReadyUI: func(url string) {
			fmt.Fprintf(stdout, "Control UI: %s   (log in with gateway.auth.token from the config)\n", url)
		},
	}
	// The state directory is claimed once for the process, so an
	// in-process restart never lets a second gateway in.
	lock, err := statelock.Acquire(paths.StateDir, paths.ConfigPath)
	if err != nil {
		return err
	}
	defer lock.Release()
	opts.StateLock = lock
	usr1 := make(chan os.Signal, 1)
	if len(restartSignals) > 0 { // Notify with no signals would relay every one
		signal.Notify(usr1, restartSignals...)
	}
	defer signal.Stop(usr1)
	restart := make(chan struct{}, 1)
	go func() {
		for range usr1 {
			select {
			case restart <- struct{}{}:
			default:
			}
		}
	}()
	opts.Restart = restart
	defer restoreGC.Do(func() { debug.SetGCPercent(gcPercent) })
	for {
		err := gateway.Run(ctx, opts)
		if errors.Is(err, gateway.ErrRestart) {
			fmt.Fprintln(stderr, "openclaw: restarting gateway")
			continue
		}
		return err
	}
}
