package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
)

// skillRow is one skill as skills.status reports it.
type skillRow struct {
	Name                 string   `json:"name"`
	Description          string   `json:"description"`
	Origin               string   `json:"origin"`
	Path                 string   `json:"path"`
	Available            bool     `json:"available"`
	Eligible             *bool    `json:"eligible"` // OpenClaw's name for available
	BlockedByAgentFilter bool     `json:"blockedByAgentFilter"`
	Status               string   `json:"status"`
	Reason               string   `json:"reason"`
	Scripts              []string `json:"scripts"`
}

// runSkills serves `openclaw skills list|info|check`.
func runSkills(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("skills", args, map[string]func(context.Context, *app, []string) error{
		"list":  runSkillsList(false),
		"check": runSkillsList(true),
		"info":  runSkillsInfo,
	})
	if err != nil {
		return err
	}
	a.cmd = "skills " + args[0]
	return sub(ctx, a, rest)
}

func fetchSkills(ctx context.Context, a *app, g *gatewayFlags, agent string) (json.RawMessage, []skillRow, error) {
	params := map[string]any{}
	if agent != "" {
		params["agentId"] = strings.ToLower(agent)
	}
	var raw json.RawMessage
	const method = "skills.status"
	if err := a.callOnce(ctx, g, method, scopesFor(method), params, &raw, false); err != nil {
		return nil, nil, err
	}
	var out struct {
		Skills []skillRow `json:"skills"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, nil, fmt.Errorf("skills.status answer: %w", err)
	}
	return raw, out.Skills, nil
}

// ready reports whether the skill is ready for the agent: available
// (eligible, in OpenClaw's word) and not filtered out for it.
func (r skillRow) ready() bool {
	ok := r.Available
	if r.Eligible != nil {
		ok = *r.Eligible
	}
	return ok && !r.BlockedByAgentFilter
}

// onlyReady keeps, in a skills.status answer, only the skills that are
// ready; the answer's other fields pass through.
func onlyReady(raw json.RawMessage) (json.RawMessage, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("skills.status answer: %w", err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(doc["skills"], &list); err != nil && doc["skills"] != nil {
		return nil, fmt.Errorf("skills.status answer: %w", err)
	}
	kept := []json.RawMessage{}
	for _, item := range list {
		var r skillRow
		if json.Unmarshal(item, &r) == nil && r.ready() {
			kept = append(kept, item)
		}
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return nil, err
	}
	doc["skills"] = b
	return json.Marshal(doc)
}

// runSkillsList lists the skills; check lists only those that are not
// available, and fails when there are any, for scripts.
func runSkillsList(check bool) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		usage := "openclaw " + a.cmd + " [--agent ID] [gateway flags]"
		if !check {
			usage = "openclaw skills list [--eligible] [--agent ID] [-v] [gateway flags]"
		}
		fs := newFlagSet(a, usage)
		g := fs.gatewayFlags()
		agent := fs.String("agent", "", "the agent whose skills to show (default: the default agent)")
		var eligible *bool
		if !check {
			eligible = fs.Bool("eligible", false, "only the skills ready to use")
			// The reasons a skill is missing are always shown.
			fs.BoolP("verbose", "v", false, "accepted for compatibility: missing requirements are always shown")
		}
		if _, err := fs.parse(args, 0, 0); err != nil {
			return err
		}
		raw, rows, err := fetchSkills(ctx, a, g, *agent)
		if err != nil {
			return err
		}
		onlyEligible := eligible != nil && *eligible
		if g.json {
			if onlyEligible {
				if raw, err = onlyReady(raw); err != nil {
					return err
				}
			}
			return writeJSON(a.stdout, raw)
		}
		if onlyEligible {
			kept := rows[:0]
			for _, r := range rows {
				if r.ready() {
					kept = append(kept, r)
				}
			}
			rows = kept
			if len(rows) == 0 {
				fmt.Fprintln(a.stdout, "No eligible skills found. Run `openclaw skills list` to see all skills.")
				return nil
			}
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SKILL\tSTATUS\tORIGIN\tDESCRIPTION / REASON")
		bad := 0
		for _, r := range rows {
			if check && r.ready() {
				continue
			}
			if !r.ready() {
				bad++
			}
			note := r.Description
			if r.Reason != "" {
				note = r.Reason
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, r.Status, r.Origin, cronCell(note, 70))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(rows) == 0 {
			fmt.Fprintln(a.stdout, "No skills found (the workspace's skills/, the state folder's skills/, skills.load.extraDirs).")
		}
		if check && bad > 0 {
			return fmt.Errorf("%d skill(s) not available", bad)
		}
		return nil
	}
}

func runSkillsInfo(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw skills info NAME [--agent ID] [gateway flags]")
	g := fs.gatewayFlags()
	agent := fs.String("agent", "", "the agent whose skills to look in (default: the default agent)")
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	_, rows, err := fetchSkills(ctx, a, g, *agent)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.Name != pos[0] {
			continue
		}
		if g.json {
			return writeJSON(a.stdout, r)
		}
		fmt.Fprintf(a.stdout, "name: %s\ndescription: %s\nstatus: %s\norigin: %s\npath: %s\n", r.Name, r.Description, r.Status, r.Origin, r.Path)
		if r.Reason != "" {
			fmt.Fprintf(a.stdout, "reason: %s\n", r.Reason)
		}
		if len(r.Scripts) > 0 {
			fmt.Fprintf(a.stdout, "scripts: %s\n", strings.Join(r.Scripts, ", "))
		}
		return nil
	}
	return fmt.Errorf("no skill %q (openclaw skills list shows them)", pos[0])
}
