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

	flag "github.com/spf13/pflag"
)

// version is the CLI and gateway version; release builds set it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		os.Exit(exitCode(err))
	}
}

// app is one invocation: its streams and the global switches.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	json           bool   // --json anywhere on the line: errors are printed as JSON
	dev            bool   // --dev before the command
	cmd            string // command path for messages, e.g. "gateway call"
	ran            bool   // a command's own code ran (its errors are its own)

	// collect, when set, makes an older command stop at its flag parsing
	// and store its flags there (see legacyFlagCompletion).
	collect **flag.FlagSet
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
		"migrate":   {"import an OpenClaw install (config, paired devices, nodes, exec approvals, workspaces); --to copies the database to PostgreSQL", runMigrate},
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
	var gh *groupHelp
	if errors.As(err, &gh) {
		fmt.Fprintf(a.stdout, "Usage: openclaw %s <command> [flags]\n\nCommands: %s\n\nRun `openclaw %s <command> --help` for a command's flags.\n",
			gh.group, strings.Join(gh.names, ", "), gh.group)
		return nil
	}
	if errors.Is(err, errHelpShown) {
		return nil
	}
	if err != nil {
		a.report(err)
	}
	return err
}

func (a *app) dispatch(ctx context.Context, args []string) error {
	args, done, err := a.takeGlobalFlags(args)
	if err != nil || done {
		return err
	}
	root := a.rootCmd(ctx)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "help" && !strings.HasPrefix(args[0], "__complete") {
		// cobra answers `openclaw unknown --help` with the root's help;
		// the real CLI refuses the unknown command.
		if c, _, err := root.Find(args[:1]); err != nil || c == root {
			return a.unknownCommandArgs(root, args[:1])
		}
	}
	root.SetArgs(args)
	err = root.ExecuteContext(ctx)
	if err != nil && !a.ran && !isTyped(err) {
		// cobra's own refusals (an unknown flag of a cobra command, a
		// wrong number of arguments) are bad command lines.
		return &usageError{msg: err.Error()}
	}
	return err
}

// isTyped reports whether err is one the commands made, which report
// knows how to print.
func isTyped(err error) bool {
	var u *usageError
	var r *reportedError
	return errors.As(err, &u) || errors.As(err, &r) || errors.Is(err, errHelpShown)
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
	if len(args) > 0 && isHelpArg(args[0]) {
		return zero, nil, &groupHelp{group: group, names: names}
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return zero, nil, usageErrorf("missing subcommand (one of %s)", strings.Join(names, ", "))
	}
	sub, ok := table[args[0]]
	if !ok {
		return zero, nil, usageErrorf("unknown %s subcommand %q (one of %s)", group, args[0], strings.Join(names, ", "))
	}
	return sub, args[1:], nil
}

// groupHelp is --help given to a group of an older command (`openclaw
// nodes canvas --help`): run prints its subcommands and exits 0.
type groupHelp struct {
	group string
	names []string
}

func (g *groupHelp) Error() string { return "help for " + g.group }

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
