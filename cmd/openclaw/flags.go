package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	flag "github.com/spf13/pflag"
)

// errHelpShown means -h printed a command's usage; run exits 0.
var errHelpShown = errors.New("help shown")

// usageError is a bad command line; it is reported as type cli_error.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// flagSet is a pflag.FlagSet for one subcommand with its usage line.
// Flags are spelled --name (with a few one-letter shorthands, -m), as in
// the real CLI, and may follow positional arguments.
type flagSet struct {
	*flag.FlagSet
	app   *app
	usage string // e.g. "openclaw gateway call METHOD [flags]"
}

func newFlagSet(a *app, usage string) *flagSet {
	fs := flag.NewFlagSet(a.cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by run, help by parse
	fs.SortFlags = false
	return &flagSet{FlagSet: fs, app: a, usage: usage}
}

// parse parses args allowing flags after positionals ("devices approve
// REQ --json"); everything after "--" is positional. It returns the
// positionals, checking there are between min and max of them (max < 0:
// no limit). A command line that asks only for the flags it may take
// (completion, see collectFlags) stops here with errFlagsCollected.
func (fs *flagSet) parse(args []string, min, max int) ([]string, error) {
	if fs.app.collect != nil {
		*fs.app.collect = fs.FlagSet
		return nil, errFlagsCollected
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.printHelp(fs.app.stdout)
			return nil, errHelpShown
		}
		return nil, usageErrorf("%v (usage: %s)", err, fs.usage)
	}
	pos := fs.Args()
	switch {
	case len(pos) < min:
		return nil, usageErrorf("missing argument (usage: %s)", fs.usage)
	case max >= 0 && len(pos) > max:
		return nil, usageErrorf("unexpected argument %q (usage: %s)", pos[max], fs.usage)
	}
	return pos, nil
}

// printHelp prints the usage line and the flags, spelled with "--".
func (fs *flagSet) printHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\nFlags:\n", fs.usage)
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		arg := "--" + f.Name
		if f.Shorthand != "" {
			arg = "-" + f.Shorthand + ", " + arg
		}
		if name != "" {
			arg += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
			help += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  %-22s %s\n", arg, help)
	})
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func (l *stringList) Type() string { return "string" }

var _ flag.Value = (*stringList)(nil)

// defaultTimeoutMs is the --timeout default, as in the real CLI.
const defaultTimeoutMs = 10_000

// gatewayFlags are the flags of every command that talks to the gateway.
type gatewayFlags struct {
	url       string
	token     string
	password  string
	timeoutMs int
	dev       bool
	json      bool
	tlsPin    string    // --tls-fingerprint
	port      portValue // --port, on the commands that take it (addPortFlag)
}

// portValue is a --port: an integer from 1 to 65535; 0 means not given.
type portValue int

func (p *portValue) String() string {
	if *p == 0 {
		return ""
	}
	return strconv.Itoa(int(*p))
}

func (p *portValue) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q is not a port (an integer from 1 to 65535)", v)
	}
	*p = portValue(n)
	return nil
}

func (p *portValue) Type() string { return "int" }

// addPortFlag adds --port, which picks the gateway on this machine at
// that port over OPENCLAW_GATEWAY_URL and gateway.remote.url, as the real
// CLI's logs and gateway call|health|status do.
func (g *gatewayFlags) addPortFlag(fs *flag.FlagSet) {
	fs.Var(&g.port, "port", "local gateway `port` (overrides OPENCLAW_GATEWAY_URL and gateway.remote.url; not with --url)")
}

// gatewayFlags registers the common gateway flags on fs.
func (fs *flagSet) gatewayFlags() *gatewayFlags { return addGatewayFlags(fs.FlagSet, fs.app) }

// addGatewayFlags registers the flags of every command that talks to the
// gateway (--url, --token, --password, --tls-fingerprint, --timeout,
// --dev, --json) on fs; commands written on cobra pass cmd.Flags().
func addGatewayFlags(fs *flag.FlagSet, a *app) *gatewayFlags {
	g := &gatewayFlags{}
	fs.StringVar(&g.url, "url", "", "gateway WebSocket `url` (ws:// or wss://)")
	fs.StringVar(&g.token, "token", "", "gateway shared `token`")
	fs.StringVar(&g.password, "password", "", "gateway shared `password`")
	fs.StringVar(&g.tlsPin, "tls-fingerprint", "", "pin a wss:// gateway's certificate by its SHA-256 `fingerprint`")
	fs.IntVar(&g.timeoutMs, "timeout", defaultTimeoutMs, "request timeout in `ms`")
	fs.BoolVar(&g.dev, "dev", a.dev, "use the dev profile (~/.openclaw-dev, port 19001)")
	fs.BoolVar(&g.json, "json", false, "print machine-readable JSON")
	return g
}

// timeout returns --timeout as a duration, at least 1 ms.
func (g *gatewayFlags) timeout() time.Duration {
	if g.timeoutMs < 1 {
		return time.Millisecond
	}
	return time.Duration(g.timeoutMs) * time.Millisecond
}
