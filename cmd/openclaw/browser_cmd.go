package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func init() { registerCommand("", newBrowserCmd) }

// browserOwnerScopes: the browser tool is dangerous for anyone but the
// owner (its profiles keep the owner's logins), and an operator.admin
// connection is the owner; with less the call would wait for approval.
var browserOwnerScopes = []string{string(protocol.ScopeWrite), string(protocol.ScopeAdmin)}

// browserVerb is one `openclaw browser` subcommand: its usage, how many
// positional arguments it takes, and how it turns them and its flags into
// the browser tool's arguments.
type browserVerb struct {
	use, short string
	args       cobra.PositionalArgs
	flags      func(c *cobra.Command, v map[string]any)
	build      func(c *cobra.Command, args []string, v map[string]any) (map[string]any, error)
}

// newBrowserCmd is `openclaw browser ...`: the gateway's managed browser
// driven through its browser tool (tools.invoke), so the network guard,
// the tool policy and the audit apply to the operator as to an agent.
func newBrowserCmd(a *app) *cobra.Command {
	var profile string
	var g *gatewayFlags
	root := &cobra.Command{
		Use:   "browser <command>",
		Short: "Manage OpenClaw's dedicated browser (Chrome/Chromium)",
		Long: "Drives the gateway's managed Chromium through its browser tool: the same network guard\n" +
			"(private addresses refused unless allowed), profiles and refs as the agent sees.",
	}
	pf := root.PersistentFlags()
	pf.StringVar(&profile, "browser-profile", "", "browser profile `name` (default: browser.defaultProfile)")
	g = addGatewayFlags(pf, a)
	// Starting Chromium takes seconds; the real CLI waits 30 s here too.
	g.timeoutMs = 30_000
	pf.Lookup("timeout").DefValue = "30000"

	action := func(name string) func(*cobra.Command, []string, map[string]any) (map[string]any, error) {
		return func(*cobra.Command, []string, map[string]any) (map[string]any, error) {
			return map[string]any{"action": name}, nil
		}
	}
	act := func(kind string, fill func(args []string, m map[string]any) error) func(*cobra.Command, []string, map[string]any) (map[string]any, error) {
		return func(_ *cobra.Command, args []string, v map[string]any) (map[string]any, error) {
			m := map[string]any{"action": "act", "kind": kind}
			if err := fill(args, m); err != nil {
				return nil, err
			}
			return m, nil
		}
	}
	verbs := []browserVerb{
		{use: "status", short: "Whether the browser runs, its profile and tabs", args: cobra.NoArgs, build: action("status")},
		{use: "start", short: "Start the profile's browser", args: cobra.NoArgs, build: action("start")},
		{use: "stop", short: "Stop the profile's browser", args: cobra.NoArgs, build: action("stop")},
		{use: "tabs", short: "List open tabs", args: cobra.NoArgs, build: action("tabs")},
		{use: "profiles", short: "List browser profiles", args: cobra.NoArgs, build: action("profiles")},
		{use: "open <url>", short: "Open a URL in a new tab", args: cobra.ExactArgs(1),
			build: func(_ *cobra.Command, args []string, _ map[string]any) (map[string]any, error) {
				return map[string]any{"action": "open", "url": args[0]}, nil
			}},
		{use: "navigate <url>", short: "Navigate the active tab", args: cobra.ExactArgs(1),
			build: func(_ *cobra.Command, args []string, _ map[string]any) (map[string]any, error) {
				return map[string]any{"action": "navigate", "url": args[0]}, nil
			}},
		{use: "focus <targetId>", short: "Make a tab the active one", args: cobra.ExactArgs(1),
			build: func(_ *cobra.Command, args []string, _ map[string]any) (map[string]any, error) {
				return map[string]any{"action": "focus", "targetId": args[0]}, nil
			}},
		{use: "close [targetId]", short: "Close a tab (default: the active one)", args: cobra.MaximumNArgs(1),
			build: func(_ *cobra.Command, args []string, _ map[string]any) (map[string]any, error) {
				m := map[string]any{"action": "close"}
				if len(args) == 1 {
					m["targetId"] = args[0]
				}
				return m, nil
			}},
		{use: "snapshot", short: "The page's accessibility tree with element refs", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) {
				v["interactive"] = c.Flags().Bool("interactive", false, "only interactive elements")
				v["compact"] = c.Flags().Bool("compact", false, "drop unnamed structure and repeated text")
				v["selector"] = c.Flags().String("selector", "", "CSS `selector` of the subtree to show")
				v["depth"] = c.Flags().Int("depth", 0, "deepest `level` to show")
			},
			build: func(c *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				m := map[string]any{"action": "snapshot", "interactive": *v["interactive"].(*bool), "compact": *v["compact"].(*bool)}
				if s := *v["selector"].(*string); s != "" {
					m["selector"] = s
				}
				if d := *v["depth"].(*int); d > 0 {
					m["depth"] = d
				}
				return m, nil
			}},
		{use: "screenshot", short: "Capture the viewport, the whole page or one element", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) {
				v["full"] = c.Flags().Bool("full-page", false, "the whole page, not just the viewport")
				v["ref"] = c.Flags().String("ref", "", "element `ref` from the last snapshot")
			},
			build: func(_ *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				m := map[string]any{"action": "screenshot", "fullPage": *v["full"].(*bool)}
				if r := *v["ref"].(*string); r != "" {
					m["ref"] = r
				}
				return m, nil
			}},
		{use: "pdf", short: "Print the page to PDF", args: cobra.NoArgs, build: action("pdf")},
		{use: "console", short: "The page's console messages", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) {
				v["level"] = c.Flags().String("level", "", "only this `level` (log, info, warning, error, debug)")
			},
			build: func(_ *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				m := map[string]any{"action": "console"}
				if l := *v["level"].(*string); l != "" {
					m["level"] = l
				}
				return m, nil
			}},
		{use: "click <ref>", short: "Click an element", args: cobra.ExactArgs(1),
			flags: func(c *cobra.Command, v map[string]any) {
				v["double"] = c.Flags().Bool("double", false, "double-click")
				v["button"] = c.Flags().String("button", "", "mouse `button`: left, right or middle")
			},
			build: func(_ *cobra.Command, args []string, v map[string]any) (map[string]any, error) {
				m := map[string]any{"action": "act", "kind": "click", "ref": args[0], "doubleClick": *v["double"].(*bool)}
				if b := *v["button"].(*string); b != "" {
					m["button"] = b
				}
				return m, nil
			}},
		{use: "type <ref> <text>", short: "Type text into an element", args: cobra.ExactArgs(2),
			flags: func(c *cobra.Command, v map[string]any) {
				v["submit"] = c.Flags().Bool("submit", false, "press Enter after typing")
			},
			build: func(_ *cobra.Command, args []string, v map[string]any) (map[string]any, error) {
				return map[string]any{"action": "act", "kind": "type", "ref": args[0], "text": args[1], "submit": *v["submit"].(*bool)}, nil
			}},
		{use: "press <key>", short: "Press a key (Enter, Tab, Escape, ArrowDown...)", args: cobra.ExactArgs(1),
			build: act("press", func(args []string, m map[string]any) error { m["key"] = args[0]; return nil })},
		{use: "hover <ref>", short: "Hover over an element", args: cobra.ExactArgs(1),
			build: act("hover", func(args []string, m map[string]any) error { m["ref"] = args[0]; return nil })},
		{use: "drag <startRef> <endRef>", short: "Drag one element onto another", args: cobra.ExactArgs(2),
			build: act("drag", func(args []string, m map[string]any) error {
				m["startRef"], m["endRef"] = args[0], args[1]
				return nil
			})},
		{use: "select <ref> <value>...", short: "Choose options of a select", args: cobra.MinimumNArgs(2),
			build: act("select", func(args []string, m map[string]any) error {
				m["ref"], m["values"] = args[0], args[1:]
				return nil
			})},
		{use: "resize <width> <height>", short: "Resize the viewport", args: cobra.ExactArgs(2),
			build: act("resize", func(args []string, m map[string]any) error {
				w, err1 := strconv.Atoi(args[0])
				h, err2 := strconv.Atoi(args[1])
				if err1 != nil || err2 != nil || w <= 0 || h <= 0 {
					return usageErrorf("resize %s %s: width and height are positive whole pixels", args[0], args[1])
				}
				m["width"], m["height"] = w, h
				return nil
			})},
		{use: "fill", short: "Set several form fields at once", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) {
				v["fields"] = c.Flags().String("fields", "", `JSON list of {"ref","value"}`)
			},
			build: func(_ *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				var fields []map[string]any
				if err := json.Unmarshal([]byte(*v["fields"].(*string)), &fields); err != nil || len(fields) == 0 {
					return nil, usageErrorf(`--fields: want a JSON list like [{"ref":"e3","value":"Ada"}]`)
				}
				return map[string]any{"action": "act", "kind": "fill", "fields": fields}, nil
			}},
		{use: "wait", short: "Wait for text, a selector or a time", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) {
				v["text"] = c.Flags().String("text", "", "wait until this `text` shows")
				v["gone"] = c.Flags().String("text-gone", "", "wait until this `text` is gone")
				v["selector"] = c.Flags().String("selector", "", "wait until this CSS `selector` matches")
				v["time"] = c.Flags().Int("time", 0, "wait this many `ms` (at most 30000)")
			},
			build: func(_ *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				m := map[string]any{"action": "act", "kind": "wait"}
				for flag, key := range map[string]string{"text": "text", "gone": "textGone", "selector": "selector"} {
					if s := *v[flag].(*string); s != "" {
						m[key] = s
					}
				}
				if ms := *v["time"].(*int); ms > 0 {
					m["timeMs"] = ms
				}
				if len(m) == 2 {
					return nil, usageErrorf("wait: give --text, --text-gone, --selector or --time")
				}
				return m, nil
			}},
		{use: "evaluate", short: "Run a JavaScript function in the page", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) {
				v["fn"] = c.Flags().String("fn", "", "JavaScript `function`, e.g. '() => document.title'")
				v["ref"] = c.Flags().String("ref", "", "pass this element `ref` to the function")
			},
			build: func(_ *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				fn := strings.TrimSpace(*v["fn"].(*string))
				if fn == "" {
					return nil, usageErrorf("evaluate: --fn is required")
				}
				m := map[string]any{"action": "act", "kind": "evaluate", "fn": fn}
				if r := *v["ref"].(*string); r != "" {
					m["ref"] = r
				}
				return m, nil
			}},
		{use: "upload <path>...", short: "Give workspace files to a file input", args: cobra.MinimumNArgs(1),
			flags: func(c *cobra.Command, v map[string]any) {
				v["ref"] = c.Flags().String("ref", "", "`ref` of the file input, or of what opens the chooser")
			},
			build: func(_ *cobra.Command, args []string, v map[string]any) (map[string]any, error) {
				m := map[string]any{"action": "upload", "paths": args}
				if r := *v["ref"].(*string); r != "" {
					m["ref"] = r
				}
				return m, nil
			}},
		{use: "dialog", short: "Accept or dismiss the next alert, confirm or prompt", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) {
				v["accept"] = c.Flags().Bool("accept", false, "accept it")
				v["dismiss"] = c.Flags().Bool("dismiss", false, "dismiss it")
				v["prompt"] = c.Flags().String("prompt-text", "", "`text` for a prompt()")
			},
			build: func(_ *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				accept, dismiss := *v["accept"].(*bool), *v["dismiss"].(*bool)
				if accept == dismiss {
					return nil, usageErrorf("dialog: give exactly one of --accept and --dismiss")
				}
				m := map[string]any{"action": "dialog", "accept": accept}
				if p := *v["prompt"].(*string); p != "" {
					m["promptText"] = p
				}
				return m, nil
			}},
		{use: "create-profile", short: "Create a browser profile", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) {
				v["name"] = c.Flags().String("name", "", "profile `name` (lowercase letters, digits, hyphens)")
				v["cdp"] = c.Flags().String("cdp-url", "", "attach to a remote browser at this DevTools `url`")
			},
			build: func(_ *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				m := map[string]any{"action": "create-profile", "name": *v["name"].(*string)}
				if u := *v["cdp"].(*string); u != "" {
					m["cdpUrl"] = u
				}
				return m, nil
			}},
		{use: "delete-profile", short: "Delete a browser profile", args: cobra.NoArgs,
			flags: func(c *cobra.Command, v map[string]any) { v["name"] = c.Flags().String("name", "", "profile `name`") },
			build: func(_ *cobra.Command, _ []string, v map[string]any) (map[string]any, error) {
				return map[string]any{"action": "delete-profile", "name": *v["name"].(*string)}, nil
			}},
		{use: "reset-profile", short: "Stop a profile's browser, close an orphan on its port, clear its locks", args: cobra.NoArgs,
			build: action("reset-profile")},
	}
	for _, v := range verbs {
		root.AddCommand(a.browserVerb(v, &profile, &g))
	}
	return root
}

func (a *app) browserVerb(v browserVerb, profile *string, g **gatewayFlags) *cobra.Command {
	vals := map[string]any{}
	c := &cobra.Command{Use: v.use, Short: v.short, Args: v.args}
	if v.flags != nil {
		v.flags(c, vals)
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		params, err := v.build(cmd, args, vals)
		if err != nil {
			return err
		}
		if *profile != "" {
			params["profile"] = *profile
		}
		return a.invokeBrowser(cmd, *g, params)
	}
	return c
}

// invokeBrowser runs one browser tool call and prints its output; a
// failed call exits 1 with the tool's words.
func (a *app) invokeBrowser(cmd *cobra.Command, g *gatewayFlags, params map[string]any) error {
	var raw json.RawMessage
	if err := a.callOnce(cmd.Context(), g, "tools.invoke", browserOwnerScopes, map[string]any{"name": "browser", "args": params}, &raw, false); err != nil {
		return err
	}
	var out struct {
		OK     bool   `json:"ok"`
		Output string `json:"output"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("tools.invoke answer: %w", err)
	}
	if g.json {
		if err := writeJSON(a.stdout, raw); err != nil {
			return err
		}
	} else if out.OK {
		fmt.Fprintln(a.stdout, out.Output)
	}
	if !out.OK {
		if g.json {
			return reported(errors.New(out.Output))
		}
		return errors.New(out.Output)
	}
	return nil
}
