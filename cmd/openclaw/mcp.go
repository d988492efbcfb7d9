package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/plugins/mcp"
	"github.com/openclaw-go/openclaw/tools"
)

// mcpSubcommands are `openclaw mcp ...`.
var mcpSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"list":   runMCPList,
	"tools":  runMCPTools,
	"add":    runMCPAdd,
	"remove": runMCPRemove,
	"rm":     runMCPRemove,
	"serve":  runMCPServe,
}

// runMCP serves `openclaw mcp list|tools|add|remove|serve`: the MCP
// servers whose tools agents use, and this gateway's own tools offered
// to other MCP clients.
func runMCP(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("mcp", args, mcpSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "mcp " + args[0]
	return sub(ctx, a, rest)
}

// mcpServerRow is one server as mcp.status reports it.
type mcpServerRow struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	State     string `json:"state"`
	Error     string `json:"error,omitempty"`
	Tools     int    `json:"tools"`
	Enabled   bool   `json:"enabled"`
}

func runMCPList(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw mcp list [gateway flags]")
	g := fs.gatewayFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	var out json.RawMessage
	const method = "mcp.status"
	if err := a.callOnce(ctx, g, method, scopesFor(method), map[string]any{}, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	var st struct {
		Servers []mcpServerRow `json:"servers"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return fmt.Errorf("mcp.status answer: %w", err)
	}
	return formatMCPServers(a.stdout, st.Servers)
}

func formatMCPServers(w io.Writer, rows []mcpServerRow) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No MCP servers configured (openclaw mcp add NAME --command CMD | --url URL).")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tSTATE\tTOOLS\tERROR")
	for _, r := range rows {
		state := r.State
		if !r.Enabled {
			state = "disabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.Name, r.Transport, state, r.Tools, cronCell(r.Error, 60))
	}
	return tw.Flush()
}

func runMCPTools(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw mcp tools [SERVER] [--agent ID] [gateway flags]")
	g := fs.gatewayFlags()
	agent := fs.String("agent", "", "the agent whose view to show (default: the default agent)")
	pos, err := fs.parse(args, 0, 1)
	if err != nil {
		return err
	}
	params := map[string]any{}
	if *agent != "" {
		params["agentId"] = *agent
	}
	var out struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Source      string `json:"source"`
		} `json:"tools"`
	}
	const method = "tools.schemas"
	if err := a.callOnce(ctx, g, method, scopesFor(method), params, &out, false); err != nil {
		return err
	}
	type row struct{ Name, Description string }
	var rows []row
	for _, t := range out.Tools {
		if t.Source != "mcp" {
			continue
		}
		if len(pos) == 1 && !strings.HasPrefix(t.Name, pos[0]+"__") {
			continue
		}
		rows = append(rows, row{t.Name, t.Description})
	}
	if g.json {
		return writeJSON(a.stdout, map[string]any{"tools": rows})
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(a.stdout, "No MCP tools (none ready, or the agent's policy hides them).")
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tDESCRIPTION")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r.Name, cronCell(r.Description, 80))
	}
	return tw.Flush()
}

// runMCPAdd writes mcp.servers.NAME into the config file; a running
// gateway starts the server on its own.
func runMCPAdd(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw mcp add NAME (--command CMD [--arg A]... [--env K=V]... [--cwd DIR] | --url URL [--header K=V]...)")
	f := fs.configFlags()
	command := fs.String("command", "", "program to run as a stdio MCP server")
	url := fs.String("url", "", "URL of a streamable HTTP MCP server")
	cwd := fs.String("cwd", "", "working directory of the program")
	var argv, env, headers stringList
	fs.Var(&argv, "arg", "an argument of the program (repeatable)")
	fs.Var(&env, "env", "KEY=VALUE for the program's environment (repeatable)")
	fs.Var(&headers, "header", "Name=Value HTTP header for the url (repeatable)")
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	name := pos[0]
	if !config.ValidMCPServerName(name) {
		return usageErrorf("server name %q must be letters, digits, _ or -, at most 32 (it prefixes its tools' names)", name)
	}
	if (*command == "") == (*url == "") {
		return usageErrorf("give --command or --url (one of them)")
	}
	server := map[string]any{}
	if *command != "" {
		server["command"] = *command
		if len(argv) > 0 {
			server["args"] = []string(argv)
		}
		if *cwd != "" {
			server["cwd"] = *cwd
		}
		if m, err := keyValues("--env", env); err != nil {
			return err
		} else if len(m) > 0 {
			server["env"] = m
		}
	} else {
		server["url"] = *url
		if m, err := keyValues("--header", headers); err != nil {
			return err
		} else if len(m) > 0 {
			server["headers"] = m
		}
	}
	key := "mcp.servers." + name
	path, err := editConfig(a, f.dev, key, func(src []byte) ([]byte, error) {
		return config.Set(src, key, server)
	})
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(a.stdout, map[string]any{"ok": true, "path": path, "set": key})
	}
	fmt.Fprintf(a.stdout, "Set %s in %s\nA running gateway starts it on its own (hot reload); openclaw mcp list shows its state.\n", key, path)
	return nil
}

// keyValues reads repeated K=V flags.
func keyValues(flagName string, list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("%s %q: want KEY=VALUE", flagName, kv)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

func runMCPRemove(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw mcp remove NAME")
	f := fs.configFlags()
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	key := "mcp.servers." + pos[0]
	path, err := editConfig(a, f.dev, key, func(src []byte) ([]byte, error) {
		out, err := config.Unset(src, key)
		if errors.Is(err, config.ErrNotFound) {
			return nil, fmt.Errorf("%s is not in the config file", key)
		}
		return out, err
	})
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(a.stdout, map[string]any{"ok": true, "path": path, "removed": key})
	}
	fmt.Fprintf(a.stdout, "Removed %s from %s\n", key, path)
	return nil
}

// runMCPServe serves `openclaw mcp serve`: this gateway's tools to an MCP
// client on stdin and stdout. Every call goes to the gateway as
// tools.invoke, so the agent's tool policy, the Tool Guard, approvals and
// timeouts apply as they do to the agent itself.
func runMCPServe(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw mcp serve [--agent ID] [gateway flags]")
	g := fs.gatewayFlags()
	agent := fs.String("agent", "", "the agent whose tools and policy to serve (default: the default agent)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	// read for the tool list, write for tools.invoke.
	s, err := a.connect(ctx, g, []string{"operator.read", "operator.write"})
	if err != nil {
		return err
	}
	defer s.Close()
	src := &gatewayTools{s: s, agent: strings.ToLower(*agent)}
	if err := src.load(ctx); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "openclaw mcp serve: %d tools of agent %s on stdio\n", len(src.specs), cmp.Or(src.agent, "(default)"))
	return mcp.ServeStdio(ctx, src, a.stdin, a.stdout)
}

// gatewayTools is the gateway's tool set as an MCP tool source.
type gatewayTools struct {
	s     *session
	agent string
	specs []tools.Spec
}

func (g *gatewayTools) load(ctx context.Context) error {
	params := map[string]any{}
	if g.agent != "" {
		params["agentId"] = g.agent
	}
	var out struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if err := g.s.call(ctx, "tools.schemas", params, &out, false); err != nil {
		return err
	}
	for _, t := range out.Tools {
		g.specs = append(g.specs, tools.Spec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return nil
}

func (g *gatewayTools) Specs(tools.Who) []tools.Spec { return g.specs }

func (g *gatewayTools) Call(ctx context.Context, name string, args json.RawMessage) tools.Result {
	params := map[string]any{"name": name, "args": args}
	if g.agent != "" {
		params["agentId"] = g.agent
	}
	var out struct {
		OK     bool   `json:"ok"`
		Output string `json:"output"`
	}
	if err := g.s.call(ctx, "tools.invoke", params, &out, false); err != nil {
		return tools.Result{Text: err.Error(), IsError: true}
	}
	return tools.Result{Text: out.Output, IsError: !out.OK}
}
