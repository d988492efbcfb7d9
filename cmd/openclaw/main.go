// Command openclaw is the OpenClaw gateway and its command-line client in
// one binary. `openclaw gateway` runs the gateway; the other commands
// (health, status, logs, devices, system, gateway call, config) talk to a
// running gateway over its WebSocket protocol or edit the local config.
//
// Each command group lives in its own file and parses its own flags with
// the standard flag package; flags may follow positional arguments.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// version is the CLI and gateway version; release builds set it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		os.Exit(1)
	}
}

// app is one invocation: its streams and the global switches.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	json           bool   // --json anywhere on the line: errors are printed as JSON
	dev            bool   // --dev before the command
	cmd            string // command path for messages, e.g. "gateway call"
}

// command is one top-level command.
type command struct {
	summary string
	run     func(ctx context.Context, a *app, args []string) error
}

// commands is the top-level command table.
var commands map[string]command

func init() {
	commands = map[string]command{
		"gateway": {"run the gateway, or call one of its methods", runGatewayGroup},
		"health":  {"show the gateway's health snapshot", runHealth},
		"agent":   {"send one message to an agent and print its answer", runAgent},
		"chat":    {"chat with an agent in the terminal", runChat},
		"tools":   {"list the tools an agent may use and explain why", runTools},
		"status":  {"show gateway status", runStatus},
		"logs":    {"print (and follow) the gateway log", runLogs},
		"system":  {"system presence", runSystem},
		"devices": {"list, approve and manage paired devices", runDevices},
		"node":    {"run this machine as a node host of a gateway", runNode},
		"nodes":   {"list, describe, rename and invoke the gateway's nodes", runNodes},
		"config":  {"read and edit the local config file", runConfig},

		"pairing":  {"list and approve DM pairing requests of chat channels", runPairing},
		"channels": {"show, add and remove chat channels", runChannels},
		"message":  {"send messages, polls and reactions through a channel", runMessage},
		"cron":     {"list, add, edit and run the gateway's scheduled jobs (alias: automations)", runCron},
		"mcp":      {"MCP servers whose tools agents use", runMCP},
		"skills":   {"list and check the agents' skill packages", runSkills},

		"dashboard": {"print (and with --open, open) the Control UI address", runDashboard},
		"migrate":   {"import an OpenClaw install (config, paired devices, nodes, exec approvals, workspaces)", runMigrate},
	}
}

// commandAliases are other names of commands: OpenClaw renamed cron to
// automations and accepts both.
var commandAliases = map[string]string{"automations": "cron"}

// run executes one command line. It prints results to stdout and any
// failure to stdout (with --json) or stderr, and returns the failure so
// main can exit non-zero.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, json: wantsJSON(args), cmd: "openclaw"}
	err := a.dispatch(ctx, args)
	if errors.Is(err, errHelpShown) {
		return nil
	}
	if err != nil {
		a.report(err)
	}
	return err
}

func (a *app) dispatch(ctx context.Context, args []string) error {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-V", "--version", "-version":
			fmt.Fprintf(a.stdout, "openclaw %s\n", version)
			return nil
		case "-h", "--help", "-help":
			a.usage(a.stdout)
			return nil
		case "--dev", "-dev":
			a.dev = true
		case "--no-color", "-no-color":
			// Output has no color; accepted for compatibility.
		default:
			return usageErrorf("unknown global flag %s", args[0])
		}
		args = args[1:]
	}
	if len(args) == 0 {
		a.usage(a.stderr)
		return usageErrorf("missing command")
	}
	name := args[0]
	if name == "help" {
		a.usage(a.stdout)
		return nil
	}
	if real, ok := commandAliases[name]; ok {
		name = real
	}
	cmd, ok := commands[name]
	if !ok {
		return usageErrorf("unknown command %q (run 'openclaw --help')", name)
	}
	a.cmd = name
	return cmd.run(ctx, a, args[1:])
}

func (a *app) usage(w io.Writer) {
	fmt.Fprintf(w, "openclaw %s\n\nUsage: openclaw [--dev] <command> [args] [flags]\n\nCommands:\n", version)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Gateway flags (every command that talks to the gateway):
  --url ws://HOST:PORT   gateway address (default: OPENCLAW_GATEWAY_URL, else ws://127.0.0.1:<port>)
  --token T              shared token (default: OPENCLAW_GATEWAY_TOKEN, else gateway.auth.token)
  --password P           shared password (default: OPENCLAW_GATEWAY_PASSWORD, else gateway.auth.password)
  --timeout MS           request timeout in milliseconds (default 10000)
  --dev                  use ~/.openclaw-dev and port 19001
  --json                 machine-readable output

Global flags: -V/--version, --dev, -h/--help
`)
}

// subcommand picks a subcommand from table, or fails with a usage error
// listing the choices.
func subcommand[T any](group string, args []string, table map[string]T) (T, []string, error) {
	var zero T
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return zero, nil, usageErrorf("missing subcommand (one of %s)", strings.Join(names, ", "))
	}
	sub, ok := table[args[0]]
	if !ok {
		return zero, nil, usageErrorf("unknown %s subcommand %q (one of %s)", group, args[0], strings.Join(names, ", "))
	}
	return sub, args[1:], nil
}

// wantsJSON reports whether --json appears before any "--".
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true":
			return true
		}
	}
	return false
}
