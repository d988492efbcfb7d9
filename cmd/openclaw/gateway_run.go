package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/statelock"
)

// runGateway runs the gateway in the foreground until SIGINT or SIGTERM
// (through ctx). SIGUSR1 restarts it in process: listeners and stores are
// closed and built again from the config file.
func runGateway(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "port to listen on (default gateway.port, 18789; 19001 with --dev)")
	bind := fs.String("bind", "", "loopback, lan, tailnet, auto or custom (default gateway.bind)")
	token := fs.String("token", "", "shared token clients must send (default gateway.auth.token or OPENCLAW_GATEWAY_TOKEN)")
	auth := fs.String("auth", "", "auth mode: token, password or none (default gateway.auth.mode)")
	dev := fs.Bool("dev", false, "use ~/.openclaw-dev and port 19001")
	verbose := fs.Bool("verbose", false, "log at debug level")
	fs.Bool("allow-unconfigured", false, "accepted for compatibility; a missing config is always created")
	fs.Bool("force", false, "accepted for compatibility")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageErrorf("%v", err)
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	switch *auth {
	case "", "token", "password", "none":
	default:
		return usageErrorf("--auth must be token, password or none")
	}
	home, _ := os.UserHomeDir()
	paths := config.ResolvePaths(os.Getenv, home, *dev)
	tok := *token
	if tok == "" {
		tok = os.Getenv("OPENCLAW_GATEWAY_TOKEN")
	}
	envPort := 0
	if v := os.Getenv("OPENCLAW_GATEWAY_PORT"); v != "" {
		if _, err := fmt.Sscan(v, &envPort); err != nil || envPort < 1 || envPort > 65535 {
			return usageErrorf("OPENCLAW_GATEWAY_PORT=%q is not a port", v)
		}
	}
	if *port == 0 {
		*port = envPort
	}
	if *port < 0 || *port > 65535 {
		return usageErrorf("--port %d is not a port", *port)
	}
	opts := gateway.Options{
		StateDir: paths.StateDir, ConfigPath: paths.ConfigPath, IncludeRoots: paths.IncludeRoots,
		Port: *port, Bind: *bind, Token: tok, AuthMode: *auth, Dev: *dev, Version: version,
		Getenv: os.Getenv, Stderr: stderr, Verbose: *verbose,
		Ready: func(addr string) {
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
	for {
		err := gateway.Run(ctx, opts)
		if errors.Is(err, gateway.ErrRestart) {
			fmt.Fprintln(stderr, "openclaw: restarting gateway")
			continue
		}
		return err
	}
}
