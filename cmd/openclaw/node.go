package main

import (
	"context"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/nodes/host"
)

// nodeSubcommands are `openclaw node ...`.
var nodeSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"run": runNodeRun,
}

// runNode serves `openclaw node run`.
func runNode(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("node", args, nodeSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "node " + args[0]
	return sub(ctx, a, rest)
}

// nodeRunFlags are the flags of `openclaw node run`.
type nodeRunFlags struct {
	host           string
	port           int
	tls, noTLS     bool
	tlsFingerprint string
	displayName    string
	nodeID         string
	commands       string
	dev            bool
	verbose        bool
}

// runNodeRun connects this machine to a gateway as a node host and serves
// it until interrupted, or until the gateway refuses the node for good.
func runNodeRun(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw node run --host HOST --port PORT [--tls|--no-tls] [flags]")
	f := &nodeRunFlags{}
	fs.StringVar(&f.host, "host", "127.0.0.1", "gateway `host`")
	fs.IntVar(&f.port, "port", 0, "gateway `port` (default OPENCLAW_GATEWAY_PORT, else 18789; 19001 with --dev)")
	fs.BoolVar(&f.tls, "tls", false, "connect with TLS (wss://); the default for a non-loopback host")
	fs.BoolVar(&f.noTLS, "no-tls", false, "connect without TLS (ws://); the default for a loopback host")
	fs.StringVar(&f.tlsFingerprint, "tls-fingerprint", "", "expected SHA-256 `fingerprint` of the gateway certificate")
	fs.StringVar(&f.displayName, "display-name", "", "node display `name` (default: the host name)")
	fs.StringVar(&f.nodeID, "node-id", "", "node `id` to use and keep (default: the stored one, else a new one)")
	fs.StringVar(&f.commands, "commands", "", "comma-separated `list` of commands to declare (default: all supported)")
	fs.BoolVar(&f.dev, "dev", a.dev, "use the dev profile (~/.openclaw-dev, port 19001)")
	fs.BoolVar(&f.verbose, "verbose", false, "log debug details")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	u, err := f.url()
	if err != nil {
		return err
	}
	paths, err := cliPaths(f.dev)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	h, err := host.New(host.Config{
		URL:            u,
		Token:          os.Getenv(envGatewayToken),
		Password:       os.Getenv(envGatewayPassword),
		StateDir:       filepath.Join(paths.StateDir, "node"),
		NodeID:         f.nodeID,
		DisplayName:    f.displayName,
		Commands:       splitList(f.commands),
		Version:        version,
		TLSFingerprint: f.tlsFingerprint,
		Logger:         slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level})),
		Out:            a.stdout,
	})
	if err != nil {
		return err
	}
	return h.Run(ctx)
}

// url builds the gateway address from the flags. Plain ws:// to a
// non-loopback host is refused unless OPENCLAW_ALLOW_INSECURE_PRIVATE_WS=1,
// as for every other command: the shared secret would travel in clear.
func (f *nodeRunFlags) url() (string, error) {
	if f.tls && f.noTLS {
		return "", usageErrorf("--tls and --no-tls exclude each other")
	}
	if f.tlsFingerprint != "" {
		if f.noTLS {
			return "", usageErrorf("--tls-fingerprint needs TLS")
		}
		f.tls = true
	}
	hostName := strings.TrimSpace(f.host)
	if hostName == "" || strings.ContainsAny(hostName, "/?#@ ") {
		return "", usageErrorf("invalid --host %q", f.host)
	}
	port := f.port
	if port == 0 {
		p, err := gatewayPort(f.dev, 0)
		if err != nil {
			return "", err
		}
		port = p
	}
	if port < 1 || port > 65535 {
		return "", usageErrorf("invalid --port %d", port)
	}
	loopback := isLoopbackHost(strings.Trim(hostName, "[]"))
	useTLS := f.tls || (!f.noTLS && !loopback)
	scheme := "ws"
	if useTLS {
		scheme = "wss"
	} else if !loopback && os.Getenv(envAllowInsecureWS) != "1" {
		return "", usageErrorf("refusing plaintext ws:// to non-loopback host %s: use --tls or set %s=1",
			hostName, envAllowInsecureWS)
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(strings.Trim(hostName, "[]"), strconv.Itoa(port))}
	return u.String(), nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
