package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
)

// runTools serves `openclaw tools list|explain`: which tools an agent's
// model sees for a provider/model and session, and which policy layer
// allowed or removed each one, and why.
func runTools(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("tools", args, map[string]func(context.Context, *app, []string) error{
		"list":    func(ctx context.Context, a *app, args []string) error { return a.toolsExplain(ctx, args, false) },
		"explain": func(ctx context.Context, a *app, args []string) error { return a.toolsExplain(ctx, args, true) },
	})
	if err != nil {
		return err
	}
	if len(args) > 0 {
		a.cmd = "tools " + args[0]
	}
	return sub(ctx, a, rest)
}

type toolsExplanation struct {
	AgentID  string   `json:"agentId"`
	Provider string   `json:"provider"`
	Model    string   `json:"model"`
	Layers   []string `json:"layers"`
	Warnings []string `json:"warnings"`
	Empty    bool     `json:"empty"`
	// Registered, Offered and Dormant count the registry's tools, what
	// the model receives (enable_tool included) and the extension tools
	// only listed in enable_tool; nil from a gateway that does not say.
	Registered *int `json:"registered"`
	Offered    *int `json:"offered"`
	Dormant    *int `json:"dormant"`
	Tools      []struct {
		Tool    string `json:"tool"`
		Allowed bool   `json:"allowed"`
		State   string `json:"state"` // offered, enable_tool or refused
		Layer   string `json:"layer"`
		Reason  string `json:"reason"`
		Source  string `json:"source"`
	} `json:"tools"`
}

func (a *app) toolsExplain(ctx context.Context, args []string, one bool) error {
	usage := "openclaw tools list [--agent ID] [--provider P/M] [--session KEY] [flags]"
	min, max := 0, 0
	if one {
		usage = "openclaw tools explain TOOL [--agent ID] [--provider P/M] [--session KEY] [flags]"
		min, max = 1, 1
	}
	fs := newFlagSet(a, usage)
	g := fs.gatewayFlags()
	agent := fs.String("agent", "", "agent `id` (default: the session's, else the default agent)")
	provider := fs.String("provider", "", "provider or `provider/model` (default: the agent's model)")
	session := fs.String("session", "", "session `key` (sets the agent and sub-agent depth)")
	pos, err := fs.parse(args, min, max)
	if err != nil {
		return err
	}
	params := map[string]any{"agentId": *agent, "provider": *provider, "sessionKey": *session}
	if one {
		params["tool"] = pos[0]
	}
	var raw json.RawMessage
	if err := a.callOnce(ctx, g, "tools.explain", scopesFor("tools.effective"), params, &raw, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, raw)
	}
	var e toolsExplanation
	if err := json.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("read tools.explain answer: %w", err)
	}
	if e.Provider == "" && e.Model == "" {
		// Without a model no byProvider layer applies; "model /" read as
		// if one were set.
		fmt.Fprintf(a.stdout, "Agent %s, no model configured (agents.defaults.model)\n", e.AgentID)
	} else {
		fmt.Fprintf(a.stdout, "Agent %s, model %s/%s\n", e.AgentID, e.Provider, e.Model)
	}
	if len(e.Layers) > 0 {
		fmt.Fprintf(a.stdout, "Layers applied: %v\n", e.Layers)
	}
	for _, w := range e.Warnings {
		fmt.Fprintf(a.stdout, "warning: %s\n", w)
	}
	if e.Empty {
		fmt.Fprintln(a.stdout, "The policy leaves no tool callable: runs of this agent stop with an error.")
	}
	if e.Offered != nil && e.Registered != nil && !one {
		fmt.Fprintf(a.stdout, "The model gets %d tools this turn (of %d registered)", *e.Offered, *e.Registered)
		if e.Dormant != nil && *e.Dormant > 0 {
			fmt.Fprintf(a.stdout, "; %d extension tools only by name, through enable_tool", *e.Dormant)
		}
		fmt.Fprintln(a.stdout)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tOFFERED\tLAYER\tWHY")
	for _, t := range e.Tools {
		allowed := "yes"
		switch {
		case t.State == "enable_tool":
			allowed = "via enable_tool"
		case t.State == "refused" || (t.State == "" && !t.Allowed):
			allowed = "no"
		}
		layer := t.Layer
		if layer == "" {
			layer = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Tool, allowed, layer, t.Reason)
	}
	return tw.Flush()
}
