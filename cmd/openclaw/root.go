package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"
)

// The command tree is cobra's: it gives group help, shell completion,
// suggestions for a mistyped command and the flag conventions of the real
// CLI. Commands written before the move keep their own flag parsing (see
// flagSet) behind a cobra command that passes its arguments through;
// commands written since are plain cobra commands that register
// themselves with registerCommand.

// registration is one command written on cobra, with the path of the
// group it belongs to ("" for the top level).
type registration struct {
	parent string
	build  func(a *app) *cobra.Command
}

// registered are the commands written on cobra, in registration order.
var registered []registration

// registerCommand adds a cobra command under parent ("" for the top
// level, "gateway" for `openclaw gateway ...`). A command named like an
// older one in the same place replaces it. Call it from an init function
// in the command's own file.
func registerCommand(parent string, build func(a *app) *cobra.Command) {
	registered = append(registered, registration{parent: parent, build: build})
}

// errFlagsCollected stops an older command at its flag parsing when the
// caller only wants to know its flags (for completion).
var errFlagsCollected = errors.New("flags collected")

// legacyGroups are the subcommands of the older command groups, so cobra
// can list, complete and suggest them. Their flags and deeper levels
// (nodes canvas, system heartbeat) stay with the group's own parser.
func legacyGroups() map[string][]string {
	return map[string][]string{
		"channels": keys(channelsSubcommands),
		"config":   keys(configSubcommands),
		"cron":     keys(cronSubcommands),
		"devices":  keys(devicesSubcommands),
		"gateway":  keys(gatewaySubcommands),
		"mcp":      keys(mcpSubcommands),
		"message":  keys(messageSubcommands),
		"node":     keys(nodeSubcommands),
		"nodes":    keys(nodesSubcommands),
		"pairing":  keys(pairingSubcommands),
		"skills":   {"check", "info", "list"},
		"system":   {"event", "heartbeat", "presence"},
		"tools":    {"explain", "list"},
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rootCmd builds the command tree for one invocation.
func (a *app) rootCmd(ctx context.Context) *cobra.Command {
	root := &cobra.Command{
		Use:   "openclaw",
		Short: "OpenClaw gateway and command-line client in one binary",
		Long: "openclaw " + version + "\n\n" +
			"Run `openclaw gateway` to start the gateway; the other commands talk to it\n" +
			"or edit the local config (~/.openclaw/openclaw.json).",
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          a.unknownCommandArgs,
		RunE:          func(c *cobra.Command, args []string) error { return c.Help() },
		// `openclaw completion` is ours (completion_cmd.go), with the real
		// CLI's flags; cobra's hidden __complete stays.
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetContext(ctx)
	// The global flags are taken off the command line before cobra sees it
	// (see takeGlobalFlags); they are declared here so help and completion
	// show them.
	pf := root.PersistentFlags()
	pf.Bool("dev", false, "dev profile: state under ~/.openclaw-dev, gateway port 19001")
	pf.String("profile", "", "named profile: state and config under ~/.openclaw-`name`")
	pf.String("log-level", "", "log `level` for file and console (silent|fatal|error|warn|info|debug|trace)")
	pf.Bool("no-color", false, "disable ANSI colors (NO_COLOR=1 also works)")
	pf.BoolP("version", "V", false, "print the version and exit")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })

	groups := legacyGroups()
	names := keys(commands)
	for _, name := range names {
		root.AddCommand(a.legacyCommand(name, commands[name], groups[name]))
	}
	for alias, real := range commandAliases {
		if c, _, err := root.Find([]string{real}); err == nil && c != root {
			c.Aliases = append(c.Aliases, alias)
		}
	}
	// Native commands, parents first, so a group registered at the top
	// level can take children registered under it.
	regs := append([]registration(nil), registered...)
	sort.SliceStable(regs, func(i, j int) bool { return depth(regs[i].parent) < depth(regs[j].parent) })
	for _, r := range regs {
		parent := root
		if r.parent != "" {
			p, rest, err := root.Find(strings.Fields(r.parent))
			if err != nil || len(rest) > 0 || p == root {
				panic(fmt.Sprintf("registerCommand: no group %q", r.parent))
			}
			parent = p
		}
		c := r.build(a)
		for _, old := range parent.Commands() {
			if old.Name() == c.Name() {
				c.Aliases = append(c.Aliases, old.Aliases...)
				parent.RemoveCommand(old)
			}
		}
		a.wrapNative(c)
		parent.AddCommand(c)
	}
	return root
}

func depth(path string) int { return len(strings.Fields(path)) }

// wrapNative makes a.cmd name the command that runs, for error messages,
// in c and all its children.
func (a *app) wrapNative(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			a.cmd = strings.TrimPrefix(cmd.CommandPath(), "openclaw ")
			a.ran = true
			return run(cmd, args)
		}
	}
	if c.HasSubCommands() && c.Args == nil {
		c.Args = a.unknownCommandArgs
	}
	if c.HasSubCommands() && c.RunE == nil && c.Run == nil {
		c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	}
	for _, sub := range c.Commands() {
		a.wrapNative(sub)
	}
}

// legacyCommand is a command written before the move to cobra: cobra
// routes to it and shows its subcommands; it parses its own flags.
func (a *app) legacyCommand(name string, cmd command, subs []string) *cobra.Command {
	run := func(ctx context.Context, args []string) error {
		a.cmd = name
		a.ran = true
		return cmd.run(ctx, a, args)
	}
	c := &cobra.Command{
		Use:                name,
		Short:              cmd.summary,
		DisableFlagParsing: true,
		ValidArgsFunction:  a.legacyFlagCompletion(func(ctx context.Context, args []string) error { return cmd.run(ctx, a, args) }),
	}
	if len(subs) == 0 {
		c.RunE = func(c *cobra.Command, args []string) error { return run(c.Context(), args) }
		legacyHelp(c, func(ctx context.Context, args []string) error { return cmd.run(ctx, a, args) })
		return c
	}
	c.Use = name + " <command>"
	// The group itself: no subcommand shows its help (exit 0), as the real
	// CLI does; `openclaw gateway` alone runs the gateway.
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 && isHelpArg(args[0]) {
			return c.Help()
		}
		if name == "gateway" {
			return run(c.Context(), args)
		}
		if len(args) == 0 {
			return c.Help()
		}
		if strings.HasPrefix(args[0], "-") {
			return run(c.Context(), args) // the group's parser names what is missing
		}
		return a.unknownCommandArgs(c, args)
	}
	aliases := map[string][]string{}
	for _, sub := range subs {
		if real, ok := legacyAliases[name+" "+sub]; ok {
			aliases[real] = append(aliases[real], sub)
		}
	}
	for _, sub := range subs {
		if _, ok := legacyAliases[name+" "+sub]; ok {
			continue
		}
		sub := sub
		leaf := func(ctx context.Context, args []string) error {
			return cmd.run(ctx, a, append([]string{sub}, args...))
		}
		leafCmd := &cobra.Command{
			Use:                sub,
			Aliases:            aliases[sub],
			Short:              legacySummaries[name+" "+sub],
			DisableFlagParsing: true,
			ValidArgsFunction:  a.legacyFlagCompletion(leaf),
			RunE: func(c *cobra.Command, args []string) error {
				a.ran = true
				// An alias runs under the name typed (`cron rm`), as before.
				return cmd.run(c.Context(), a, append([]string{c.CalledAs()}, args...))
			},
		}
		legacyHelp(leafCmd, leaf)
		c.AddCommand(leafCmd)
	}
	return c
}

// legacyHelp makes `openclaw help X` show what `openclaw X --help` does
// for an older command: its own usage line and flags.
func legacyHelp(c *cobra.Command, run func(ctx context.Context, args []string) error) {
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		_ = run(c.Context(), []string{"--help"})
	})
}

func isHelpArg(s string) bool { return s == "-h" || s == "--help" || s == "help" }

// unknownCommandArgs refuses an argument where a subcommand belongs,
// naming the nearest ones, as the real CLI does.
func (a *app) unknownCommandArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	where := "OpenClaw does not know the command"
	if c.HasParent() {
		where = "openclaw " + strings.TrimPrefix(c.CommandPath(), "openclaw ") + " has no command"
	}
	msg := fmt.Sprintf("%s %q", where, args[0])
	c.SuggestionsMinimumDistance = 2
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\nDid you mean this?"
		for _, name := range s {
			msg += "\n  " + c.CommandPath() + " " + name
		}
	}
	msg += "\nTry: " + c.CommandPath() + " --help"
	return &usageError{msg: msg}
}

// legacyFlagCompletion completes the flags of an older command by running
// it in a mode that stops at its flag parsing and hands over the flags.
func (a *app) legacyFlagCompletion(run func(ctx context.Context, args []string) error) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if !strings.HasPrefix(toComplete, "-") {
			return nil, cobra.ShellCompDirectiveDefault
		}
		var fs *flag.FlagSet
		probe := *a
		probe.collect = &fs
		probe.stdout, probe.stderr = discard{}, discard{}
		saved := *a
		*a = probe
		_ = run(c.Context(), nil)
		*a = saved
		if fs == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		fs.VisitAll(func(f *flag.Flag) {
			if name := "--" + f.Name; strings.HasPrefix(name, toComplete) {
				_, usage := flag.UnquoteUsage(f)
				out = append(out, cobra.CompletionWithDesc(name, usage))
			}
		})
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// takeGlobalFlags applies the global flags that come before the command
// (--dev, --profile NAME, --log-level LEVEL, --no-color, --version,
// --help) and returns the rest of the command line. done reports that
// the flag was all there was to do (--version).
func (a *app) takeGlobalFlags(args []string) (rest []string, done bool, err error) {
	value := func(i int, name string) (string, int, error) {
		if v, ok := strings.CutPrefix(args[i], name+"="); ok {
			return v, i, nil
		}
		if i+1 >= len(args) {
			return "", i, usageErrorf("%s needs a value", name)
		}
		return args[i+1], i + 1, nil
	}
	i := 0
	for ; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") {
			break
		}
		name, _, _ := strings.Cut(arg, "=")
		switch name {
		case "--":
			// Command words still dispatch after "--", as in the real CLI.
			return args[i+1:], false, nil
		case "-V", "--version", "-v":
			fmt.Fprintf(a.stdout, "openclaw %s\n", version)
			return nil, true, nil
		case "--dev":
			a.dev = true
		case "--no-color":
			os.Setenv("NO_COLOR", "1")
		case "--profile":
			v, next, err := value(i, "--profile")
			if err != nil {
				return nil, false, err
			}
			i = next
			if !validProfileName(v) {
				return nil, false, usageErrorf("--profile %q: a profile name is letters, digits, '-' and '_' (at most 64), and not \"default\"", v)
			}
			os.Setenv("OPENCLAW_PROFILE", v)
		case "--log-level":
			v, next, err := value(i, "--log-level")
			if err != nil {
				return nil, false, err
			}
			i = next
			switch v = strings.ToLower(v); v {
			case "silent", "fatal", "error", "warn", "info", "debug", "trace":
				os.Setenv("OPENCLAW_LOG_LEVEL", v)
			default:
				return nil, false, usageErrorf("--log-level %q: one of silent, fatal, error, warn, info, debug, trace", v)
			}
		case "--container":
			return nil, false, usageErrorf("--container is not supported: run openclaw inside the container instead")
		case "-h", "--help":
			return args[i:], false, nil
		default:
			return nil, false, usageErrorf("unknown global flag %s (global flags: --dev, --profile NAME, --log-level LEVEL, --no-color, --version)", arg)
		}
	}
	return args[i:], false, nil
}

// validProfileName is the rule OpenClaw applies to OPENCLAW_PROFILE.
func validProfileName(name string) bool {
	if name == "" || name == "default" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')) {
			return false
		}
	}
	return true
}
