package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/config"
)

func init() { registerCommand("", newAgentsCmd) }

// newAgentsCmd is `openclaw agents`: the agents of agents.entries and the
// routing bindings that send chats to them, edited in the local config
// file. Bare `openclaw agents` is `agents list`, as in OpenClaw.
func newAgentsCmd(a *app) *cobra.Command {
	list := newAgentsListCmd(a)
	c := &cobra.Command{
		Use:   "agents",
		Short: "Manage isolated agents (workspaces + routing)",
		Long: "The agents (agents.entries) and the bindings that route chats to them. Edits go to\n" +
			"the local config file (comments kept); a running gateway reloads it.",
		Args: a.unknownCommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return list.RunE(cmd, args) },
	}
	c.AddCommand(list, newAgentsAddCmd(a), newAgentsDeleteCmd(a), newAgentsBindCmd(a), newAgentsUnbindCmd(a), newAgentsBindingsCmd(a))
	return c
}

// agentRow is one `agents list --json` element, in OpenClaw's shape.
type agentListRow struct {
	ID        string   `json:"id"`
	Name      string   `json:"name,omitempty"`
	Workspace string   `json:"workspace"`
	Model     *string  `json:"model"`
	Bindings  int      `json:"bindings"`
	IsDefault bool     `json:"isDefault"`
	Routes    []string `json:"routes,omitempty"`
}

func newAgentsListCmd(a *app) *cobra.Command {
	var asJSON, withBindings bool
	c := &cobra.Command{Use: "list", Short: "List configured agents", Args: exactArgs(0, "no arguments")}
	dev := devFlag(c, a)
	c.Flags().BoolVar(&asJSON, "json", false, "output JSON")
	c.Flags().BoolVar(&withBindings, "bindings", false, "include the routing bindings")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		paths, snap, err := a.loadConfig(*dev)
		if err != nil {
			return err
		}
		cfg := snap.Config
		raw, _ := config.ParseObject(snap.Raw)
		binds := rawBindings(raw)
		rows := []agentListRow{}
		def := cfg.DefaultAgentID()
		for _, id := range cfg.AgentIDs() {
			e, _ := cfg.Agent(id)
			r := agentListRow{ID: id, Name: e.Name, Workspace: agentWorkspace(cfg, paths.StateDir, id), IsDefault: id == def}
			if m := cfg.PrimaryModel(id); m != "" {
				r.Model = &m
			}
			for _, b := range binds {
				if b.agentID == id && b.route() {
					r.Bindings++
					if withBindings {
						r.Routes = append(r.Routes, describeBindingMatch(b.match))
					}
				}
			}
			if _, err := checkWorkspace(r.Workspace, paths); err != nil {
				fmt.Fprintf(a.stderr, "warning: agent %s: %v\n", id, err)
			}
			rows = append(rows, r)
		}
		if asJSON {
			return writeJSON(a.stdout, rows)
		}
		fmt.Fprintln(a.stdout, "Agents:")
		for _, r := range rows {
			title := r.ID
			if r.IsDefault {
				title += " (default)"
			}
			if r.Name != "" && r.Name != r.ID {
				title += " - " + sanitizeCell(r.Name)
			}
			fmt.Fprintf(a.stdout, "- %s\n", title)
			fmt.Fprintf(a.stdout, "  Workspace: %s\n", sanitizeCell(r.Workspace))
			model := "-"
			if r.Model != nil {
				model = *r.Model
			}
			fmt.Fprintf(a.stdout, "  Model: %s\n", sanitizeCell(model))
			fmt.Fprintf(a.stdout, "  Routing rules: %d\n", r.Bindings)
			for _, rt := range r.Routes {
				fmt.Fprintf(a.stdout, "    - %s\n", rt)
			}
		}
		return nil
	}
	return c
}

// refuseLegacyList stops an agents edit on a file that still uses the
// older agents.list form: entries added beside it would be read twice.
func refuseLegacyList(e *configEdit) error {
	if ag, ok := e.tree["agents"].(map[string]any); ok {
		if _, ok := ag["list"]; ok {
			return fmt.Errorf("%s still lists agents in the older agents.list form; run `openclaw migrate` (or `openclaw doctor --fix`) to move them under agents.entries first", e.path)
		}
	}
	return nil
}

func newAgentsAddCmd(a *app) *cobra.Command {
	var workspace, model, role, agentDir string
	var binds []string
	var asJSON, nonInteractive bool
	c := &cobra.Command{
		Use:   "add [name]",
		Short: "Add a new isolated agent",
		Long: "Adds agents.entries.<id> with its workspace (made 0700 if missing), model and\n" +
			"bindings. The id is the name normalized (lower case, letters, digits, _ and -).\n" +
			"The workspace may not hold the state directory or the config file.",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("%s: unexpected argument %q (wants one name)", c.CommandPath(), args[1])
			}
			return nil
		},
	}
	dev := devFlag(c, a)
	f := c.Flags()
	f.StringVar(&workspace, "workspace", "", "workspace `dir` for the new agent")
	f.StringVar(&model, "model", "", "model `id` for this agent (provider/model or an alias)")
	f.StringVar(&role, "role", "", "seed a role (not available)")
	f.StringVar(&agentDir, "agent-dir", "", "agent state `dir` (not available: state lives in the gateway's database)")
	f.StringArrayVar(&binds, "bind", nil, "route channel binding `channel[:accountId]` (repeatable)")
	f.BoolVar(&nonInteractive, "non-interactive", false, "disable prompts (this command never prompts)")
	f.BoolVar(&asJSON, "json", false, "output a JSON summary")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		switch {
		case role != "":
			return usageErrorf("--role is not available: there are no role templates here; add the agent, then edit its workspace's AGENTS.md and SOUL.md")
		case agentDir != "":
			return usageErrorf("--agent-dir is not available: an agent's state lives in the gateway's database")
		case len(args) == 0 || strings.TrimSpace(args[0]) == "":
			return usageErrorf("an agent name is required: openclaw agents add <name> --workspace <dir>")
		case strings.TrimSpace(workspace) == "":
			return usageErrorf("--workspace is required: openclaw agents add %s --workspace <dir>", args[0])
		}
		id, err := newAgentID(args[0])
		if err != nil {
			return err
		}
		if id != strings.TrimSpace(args[0]) && !asJSON {
			fmt.Fprintf(a.stdout, "Normalized agent id to %q.\n", id)
		}
		specs, err := parseBindingSpecs(binds)
		if err != nil {
			return err
		}
		paths, err := cliPaths(*dev)
		if err != nil {
			return err
		}
		ws, err := checkWorkspace(workspace, paths)
		if err != nil {
			return err
		}
		made, err := makeWorkspace(ws)
		if err != nil {
			return err
		}
		var ref, warn string
		var res bindResult
		before, path, err := a.editLocal(*dev, "agents.entries", func(e *configEdit) ([]byte, error) {
			if err := refuseLegacyList(e); err != nil {
				return nil, err
			}
			if _, exists := e.cfg.Agents.Entries[id]; exists {
				return nil, fmt.Errorf("agent %q already exists; run `openclaw agents list` to see the configured agents", id)
			}
			for k := range e.cfg.Agents.Entries {
				if strings.EqualFold(k, id) {
					return nil, fmt.Errorf("agent %q already exists (as %q); run `openclaw agents list`", id, k)
				}
			}
			if model != "" {
				var err error
				if ref, warn, err = resolveModelArg(e.cfg, model); err != nil {
					return nil, err
				}
			}
			src := e.src
			var err error
			// With no entries there is one implicit agent, main; it is
			// written out so adding a second does not make it vanish and
			// its chats move to the new one.
			if len(e.cfg.Agents.Entries) == 0 && id != config.DefaultAgentID {
				if src, err = config.Set(src, config.JoinPath("agents.entries", config.DefaultAgentID), map[string]any{}); err != nil {
					return nil, err
				}
			}
			entry := map[string]any{"workspace": ws}
			if name := strings.TrimSpace(args[0]); name != id {
				entry["name"] = name
			}
			if ref != "" {
				entry["model"] = ref
			}
			if src, err = config.Set(src, config.JoinPath("agents.entries", id), entry); err != nil {
				return nil, err
			}
			tree, err := config.ParseObject(src)
			if err != nil {
				return nil, err
			}
			src, res, err = applyBindings(src, tree, id, specs)
			return src, err
		})
		if err != nil {
			if made {
				os.Remove(ws) // only the empty directory this run made
			}
			return err
		}
		if warn != "" {
			fmt.Fprintf(a.stderr, "warning: %s\n", warn)
		}
		if asJSON {
			out := map[string]any{"agentId": id, "name": strings.TrimSpace(args[0]), "workspace": ws,
				"bindings": map[string]any{"added": res.Added, "updated": res.Updated, "skipped": res.Skipped, "conflicts": res.Conflicts}}
			if ref != "" {
				out["model"] = ref
			}
			fmt.Fprintf(a.stderr, "note: %s\n", reloadNote(before))
			if err := writeJSON(a.stdout, out); err != nil {
				return err
			}
		} else {
			a.printUpdated(before, path)
			fmt.Fprintf(a.stdout, "Agent: %s\nWorkspace: %s\n", id, ws)
			if ref != "" {
				fmt.Fprintf(a.stdout, "Model: %s\n", ref)
			}
			for _, b := range res.Added {
				fmt.Fprintf(a.stdout, "Bound: %s\n", b)
			}
		}
		if len(res.Conflicts) > 0 {
			// As OpenClaw: the agent is added; the bindings it could not
			// take are reported, not fatal.
			fmt.Fprintf(a.stderr, "Skipped bindings already claimed by another agent:\n- %s\n", strings.Join(res.Conflicts, "\n- "))
		}
		return nil
	}
	return c
}

// makeWorkspace creates the workspace directory 0700 (files the agent
// writes there are the operator's). made reports it did not exist.
func makeWorkspace(ws string) (made bool, err error) {
	fi, err := os.Stat(ws)
	switch {
	case err == nil && !fi.IsDir():
		return false, fmt.Errorf("workspace %s exists and is not a directory", ws)
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("workspace %s: %w", ws, err)
	}
	if err := os.MkdirAll(ws, 0o700); err != nil {
		return false, fmt.Errorf("create workspace: %w", err)
	}
	return true, nil
}

func newAgentsDeleteCmd(a *app) *cobra.Command {
	var force, asJSON bool
	c := &cobra.Command{
		Use:   "delete <id>",
		Short: "Delete an agent (its config entry and bindings; files are kept)",
		Long: "Removes agents.entries.<id> and the bindings that route to it. Its workspace is\n" +
			"left on disk. There is no confirmation prompt, so --force is required.",
		Args: exactArgs(1, "<id>"),
	}
	dev := devFlag(c, a)
	c.Flags().BoolVar(&force, "force", false, "skip confirmation")
	c.Flags().BoolVar(&asJSON, "json", false, "output a JSON summary")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		id, ok := strictAgentID(args[0])
		if !ok {
			return fmt.Errorf("agent %q not found; run `openclaw agents list` to see the configured agents", args[0])
		}
		paths, err := cliPaths(*dev)
		if err != nil {
			return err
		}
		var ws, key string
		var removed int
		var wasDefault bool
		before, path, err := a.editLocal(*dev, "agents.entries", func(e *configEdit) ([]byte, error) {
			if err := refuseLegacyList(e); err != nil {
				return nil, err
			}
			if _, exists := e.cfg.Agent(id); !exists {
				return nil, fmt.Errorf("agent %q not found; run `openclaw agents list` to see the configured agents", id)
			}
			if len(e.cfg.AgentIDs()) <= 1 {
				return nil, fmt.Errorf("agent %q is the only configured agent and cannot be deleted", id)
			}
			wasDefault = e.cfg.DefaultAgentID() == id
			if !force {
				what := ""
				if wasDefault {
					what = " (the default agent: chats no binding routes go to it)"
				}
				return nil, fmt.Errorf("deleting agent %q%s needs --force: this command does not prompt", id, what)
			}
			ws = agentWorkspace(e.cfg, paths.StateDir, id)
			for k := range e.cfg.Agents.Entries {
				if strings.EqualFold(k, id) {
					key = k
				}
			}
			src, err := config.Unset(e.src, config.JoinPath("agents.entries", key))
			if err != nil {
				return nil, err
			}
			tree, err := config.ParseObject(src)
			if err != nil {
				return nil, err
			}
			var res unbindResult
			src, res, err = removeBindings(src, tree, id, nil, true)
			removed = len(res.Removed)
			return src, err
		})
		if err != nil {
			return err
		}
		if asJSON {
			fmt.Fprintf(a.stderr, "note: %s\n", reloadNote(before))
			return writeJSON(a.stdout, map[string]any{"agentId": id, "workspace": ws, "removedBindings": removed,
				"workspaceRetained": true, "removed": []string{}, "failed": []string{}})
		}
		a.printUpdated(before, path)
		fmt.Fprintf(a.stdout, "Deleted agent %s (%s removed).\n", id, plural(removed, "binding"))
		fmt.Fprintf(a.stdout, "Its workspace is kept: %s\n", ws)
		if wasDefault {
			fmt.Fprintln(a.stdout, "It was the default agent; chats no binding routes now go to the new default (openclaw agents list).")
		}
		return nil
	}
	return c
}

// bindTarget is the agent --agent names, or the default agent; it must
// be configured.
func bindTarget(cfg *config.Config, flag string) (string, error) {
	id := cfg.DefaultAgentID()
	if flag != "" {
		var ok bool
		if id, ok = strictAgentID(flag); !ok {
			return "", fmt.Errorf("agent %q not found; run `openclaw agents list` to see the configured agents", flag)
		}
	}
	if _, ok := cfg.Agent(id); !ok {
		return "", fmt.Errorf("agent %q not found; run `openclaw agents list` to see the configured agents", id)
	}
	return id, nil
}

func newAgentsBindCmd(a *app) *cobra.Command {
	var agent string
	var binds []string
	var asJSON bool
	c := &cobra.Command{Use: "bind", Short: "Add routing bindings for an agent", Args: exactArgs(0, "no arguments")}
	dev := devFlag(c, a)
	c.Flags().StringVar(&agent, "agent", "", "agent `id` (defaults to the default agent)")
	c.Flags().StringArrayVar(&binds, "bind", nil, "binding to add, `channel[:accountId]` (repeatable); no account is the default account, '*' every account")
	c.Flags().BoolVar(&asJSON, "json", false, "output a JSON summary")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		specs, err := parseBindingSpecs(binds)
		if err != nil {
			return err
		}
		if len(specs) == 0 {
			return usageErrorf("provide at least one --bind <channel[:accountId]>")
		}
		var res bindResult
		before, path, err := a.editLocal(*dev, "bindings", func(e *configEdit) ([]byte, error) {
			id, err := bindTarget(e.cfg, agent)
			if err != nil {
				return nil, err
			}
			var src []byte
			src, res, err = applyBindings(e.src, e.tree, id, specs)
			return src, err
		})
		if err != nil {
			return err
		}
		changed := len(res.Added)+len(res.Updated) > 0
		if asJSON {
			if err := writeJSON(a.stdout, res); err != nil {
				return err
			}
		} else {
			if changed {
				a.printUpdated(before, path)
			}
			printList(a, "Added bindings:", res.Added)
			printList(a, "Updated bindings:", res.Updated)
			printList(a, "Already present:", res.Skipped)
			if !changed && len(res.Skipped) == 0 {
				fmt.Fprintln(a.stdout, "No new bindings added.")
			}
		}
		if len(res.Conflicts) > 0 {
			fmt.Fprintf(a.stderr, "Skipped bindings already claimed by another agent:\n- %s\n", strings.Join(res.Conflicts, "\n- "))
			return reported(errors.New("agents bind: some bindings belong to another agent"))
		}
		return nil
	}
	return c
}

func printList(a *app, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintln(a.stdout, title)
	for _, s := range items {
		fmt.Fprintf(a.stdout, "- %s\n", s)
	}
}

func newAgentsUnbindCmd(a *app) *cobra.Command {
	var agent string
	var binds []string
	var all, asJSON bool
	c := &cobra.Command{Use: "unbind", Short: "Remove routing bindings for an agent", Args: exactArgs(0, "no arguments")}
	dev := devFlag(c, a)
	c.Flags().StringVar(&agent, "agent", "", "agent `id` (defaults to the default agent)")
	c.Flags().StringArrayVar(&binds, "bind", nil, "binding to remove, `channel[:accountId]` (repeatable)")
	c.Flags().BoolVar(&all, "all", false, "remove all bindings of this agent")
	c.Flags().BoolVar(&asJSON, "json", false, "output a JSON summary")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		specs, err := parseBindingSpecs(binds)
		if err != nil {
			return err
		}
		switch {
		case all && len(specs) > 0:
			return usageErrorf("use either --all or --bind, not both")
		case !all && len(specs) == 0:
			return usageErrorf("provide at least one --bind <channel[:accountId]> or use --all")
		}
		var res unbindResult
		before, path, err := a.editLocal(*dev, "bindings", func(e *configEdit) ([]byte, error) {
			id, err := bindTarget(e.cfg, agent)
			if err != nil {
				return nil, err
			}
			var src []byte
			src, res, err = removeBindings(e.src, e.tree, id, specs, all)
			return src, err
		})
		if err != nil {
			return err
		}
		if asJSON {
			if err := writeJSON(a.stdout, res); err != nil {
				return err
			}
		} else {
			if len(res.Removed) > 0 {
				a.printUpdated(before, path)
				printList(a, "Removed bindings:", res.Removed)
			} else {
				fmt.Fprintln(a.stdout, "No bindings removed.")
			}
			printList(a, "Not found:", res.Missing)
		}
		if len(res.Conflicts) > 0 {
			fmt.Fprintf(a.stderr, "Bindings are owned by another agent:\n- %s\n", strings.Join(res.Conflicts, "\n- "))
			return reported(errors.New("agents unbind: some bindings belong to another agent"))
		}
		return nil
	}
	return c
}

func newAgentsBindingsCmd(a *app) *cobra.Command {
	var agent string
	var asJSON bool
	c := &cobra.Command{Use: "bindings", Short: "List routing bindings", Args: exactArgs(0, "no arguments")}
	dev := devFlag(c, a)
	c.Flags().StringVar(&agent, "agent", "", "only this agent `id`")
	c.Flags().BoolVar(&asJSON, "json", false, "output JSON")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		_, snap, err := a.loadConfig(*dev)
		if err != nil {
			return err
		}
		filter := ""
		if agent != "" {
			if filter, err = bindTarget(snap.Config, agent); err != nil {
				return err
			}
		}
		raw, _ := config.ParseObject(snap.Raw)
		type row struct {
			AgentID     string         `json:"agentId"`
			Match       map[string]any `json:"match"`
			Description string         `json:"description"`
		}
		rows := []row{}
		for _, b := range rawBindings(raw) {
			if b.route() && (filter == "" || b.agentID == filter) {
				rows = append(rows, row{AgentID: b.agentID, Match: b.match, Description: describeBindingMatch(b.match)})
			}
		}
		if asJSON {
			return writeJSON(a.stdout, rows)
		}
		if len(rows) == 0 {
			if filter != "" {
				fmt.Fprintf(a.stdout, "No routing bindings for agent %q.\n", filter)
			} else {
				fmt.Fprintln(a.stdout, "No routing bindings.")
			}
			return nil
		}
		fmt.Fprintln(a.stdout, "Routing bindings:")
		for _, r := range rows {
			fmt.Fprintf(a.stdout, "- %s <- %s\n", r.AgentID, r.Description)
		}
		return nil
	}
	return c
}
