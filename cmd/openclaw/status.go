package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openclaw-go/openclaw/gateway/doctor"
)

// statusFlags are the flags of `openclaw status`, named as in the real CLI.
type statusFlags struct {
	all, deep, usage, verbose bool
	agent                     string
}

// runStatus serves `openclaw status [--all] [--deep] [--usage [--agent
// ID]] [--verbose] [--json]`.
//
// The report is the gateway's status. --deep adds a live health probe
// (`health`) and the security audit with its gateway probe
// (`securityAudit`); --all adds the cached health snapshot, the security
// audit and the doctor's checks (`diagnosis`), all read-only; --usage adds
// the token counts the gateway keeps per session, summed per provider and
// model (`usage`). Those are the doctor's and the audit's own checks
// (gateway/doctor), not a second copy. A part that cannot be collected is
// reported in its place; the command fails only when the status itself
// cannot be read.
func runStatus(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw status [--all] [--deep] [--usage [--agent ID]] [--verbose] [gateway flags]")
	g := fs.gatewayFlags()
	var f statusFlags
	fs.BoolVar(&f.all, "all", false, "full diagnosis (read-only, pasteable): health, security audit and the doctor's checks")
	fs.BoolVar(&f.deep, "deep", false, "probe the channels live (health with probe) and run the security audit")
	fs.BoolVar(&f.usage, "usage", false, "show the token usage the gateway counts per session, by provider and model")
	fs.StringVar(&f.agent, "agent", "", "with --usage: only this agent's sessions")
	fs.BoolVar(&f.verbose, "verbose", false, "print the gateway target before the report")
	debug := fs.Bool("debug", false, "alias for --verbose")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	f.verbose = f.verbose || *debug
	if fs.Changed("agent") && !f.usage {
		return usageErrorf("--agent is only valid with --usage")
	}
	callCtx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(callCtx, g, scopesFor("status"))
	if err != nil {
		return err
	}
	defer s.Close()
	if f.verbose {
		fmt.Fprintf(a.stderr, "Gateway target: %s\n", s.target)
	}
	var out json.RawMessage
	if err := s.call(callCtx, "status", statusParams, &out, false); err != nil {
		return err
	}
	extra := a.statusExtras(ctx, s, g, f)
	if g.json {
		if len(extra.fields) == 0 {
			return writeJSON(a.stdout, out)
		}
		var report map[string]any
		if err := json.Unmarshal(out, &report); err != nil {
			return fmt.Errorf("decode status: %w", err)
		}
		for k, v := range extra.fields {
			report[k] = v
		}
		return writeJSON(a.stdout, report)
	}
	// The gateway does not know the address the CLI reached it by.
	if err := formatStatus(a.stdout, out, s.target.url); err != nil {
		return err
	}
	for _, section := range extra.text {
		fmt.Fprintln(a.stdout)
		section(a.stdout)
	}
	return nil
}

// statusExtra is what --all, --deep and --usage add: JSON fields and
// text sections in the order they print.
type statusExtra struct {
	fields map[string]any
	text   []func(io.Writer)
}

func (a *app) statusExtras(ctx context.Context, s *session, g *gatewayFlags, f statusFlags) statusExtra {
	x := statusExtra{fields: map[string]any{}}
	if f.deep || f.all {
		var params any
		if f.deep {
			params = map[string]any{"probe": true}
		}
		var h json.RawMessage
		callCtx, cancel := context.WithTimeout(ctx, g.timeout())
		err := s.call(callCtx, "health", params, &h, false)
		cancel()
		if err != nil {
			x.fields["health"] = map[string]any{"ok": false, "error": err.Error()}
			x.text = append(x.text, func(w io.Writer) { fmt.Fprintf(w, "Health: not collected: %v\n", err) })
		} else {
			x.fields["health"] = h
			x.text = append(x.text, func(w io.Writer) {
				if err := formatHealth(w, h); err != nil {
					fmt.Fprintf(w, "Health: %v\n", err)
				}
			})
		}
		paths, err := cliPaths(g.dev)
		if err != nil {
			x.fields["securityAudit"] = map[string]any{"collected": false, "error": err.Error()}
			x.text = append(x.text, func(w io.Writer) { fmt.Fprintf(w, "Security audit: not collected: %v\n", err) })
		} else {
			gw := &cliGateway{a: a, g: g}
			o := doctor.AuditOptions{Install: doctor.Load(paths, os.Getenv), Deep: f.deep}
			if f.deep {
				o.Probe = gw
			}
			audit := doctor.Audit(ctx, o)
			x.fields["securityAudit"] = audit
			x.text = append(x.text, func(w io.Writer) { printAudit(w, audit, nil) })
			if f.all {
				// Read-only: the doctor never repairs from status.
				rep := doctor.Run(ctx, doctor.Options{
					Install: doctor.Load(paths, os.Getenv), Gateway: gw, Logger: slog.New(slog.DiscardHandler),
				})
				x.fields["diagnosis"] = rep
				x.text = append(x.text, func(w io.Writer) { printDoctor(w, rep, false) })
			}
		}
	}
	if f.usage {
		u, err := a.statusUsage(ctx, s, g, f.agent)
		if err != nil {
			x.fields["usage"] = map[string]any{"error": err.Error(), "providers": []any{}}
			x.text = append(x.text, func(w io.Writer) { fmt.Fprintf(w, "Usage: not collected: %v\n", err) })
		} else {
			x.fields["usage"] = u
			x.text = append(x.text, func(w io.Writer) { printUsage(w, u) })
		}
	}
	return x
}

// usageNote says what --usage can and cannot show: OpenClaw's provider
// quota windows come from each provider's account API, which this gateway
// does not query; the tokens it counts itself are exact.
const usageNote = "provider quota windows (X% left) are not tracked by this gateway; these are the tokens it counted per session"

// statusUsage is the `usage` of status --usage. providers stays the real
// CLI's list of quota snapshots, empty because none are taken.
type statusUsage struct {
	UpdatedAt int64             `json:"updatedAt"`
	Providers []any             `json:"providers"`
	Note      string            `json:"note"`
	Totals    usageTokens       `json:"totals"`
	ByModel   []usageModelRow   `json:"byModel"`
	Sessions  []usageSessionRow `json:"sessions"`
}

type usageTokens struct {
	Input  int64 `json:"inputTokens"`
	Output int64 `json:"outputTokens"`
	Total  int64 `json:"totalTokens"`
}

type usageModelRow struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Sessions int    `json:"sessions"`
	usageTokens
}

type usageSessionRow struct {
	Key      string `json:"key"`
	AgentID  string `json:"agentId"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	usageTokens
}

func (a *app) statusUsage(ctx context.Context, s *session, g *gatewayFlags, agent string) (*statusUsage, error) {
	params := map[string]any{}
	if agent != "" {
		params["agentId"] = strings.ToLower(agent)
	}
	var res struct {
		Ts       int64 `json:"ts"`
		Sessions []struct {
			Key           string `json:"key"`
			AgentID       string `json:"agentId"`
			ModelProvider string `json:"modelProvider"`
			Model         string `json:"model"`
			InputTokens   int64  `json:"inputTokens"`
			OutputTokens  int64  `json:"outputTokens"`
		} `json:"sessions"`
	}
	callCtx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	if err := s.call(callCtx, "sessions.list", params, &res, false); err != nil {
		return nil, err
	}
	u := &statusUsage{UpdatedAt: cmp.Or(res.Ts, time.Now().UnixMilli()), Providers: []any{}, Note: usageNote,
		ByModel: []usageModelRow{}, Sessions: []usageSessionRow{}}
	byModel := map[[2]string]*usageModelRow{}
	for _, r := range res.Sessions {
		t := usageTokens{Input: r.InputTokens, Output: r.OutputTokens, Total: r.InputTokens + r.OutputTokens}
		u.Totals.Input += t.Input
		u.Totals.Output += t.Output
		u.Totals.Total += t.Total
		u.Sessions = append(u.Sessions, usageSessionRow{Key: r.Key, AgentID: r.AgentID, Provider: r.ModelProvider, Model: r.Model, usageTokens: t})
		k := [2]string{r.ModelProvider, r.Model}
		m := byModel[k]
		if m == nil {
			m = &usageModelRow{Provider: r.ModelProvider, Model: r.Model}
			byModel[k] = m
		}
		m.Sessions++
		m.Input += t.Input
		m.Output += t.Output
		m.Total += t.Total
	}
	for _, m := range byModel {
		u.ByModel = append(u.ByModel, *m)
	}
	sort.Slice(u.ByModel, func(i, j int) bool {
		if u.ByModel[i].Total != u.ByModel[j].Total {
			return u.ByModel[i].Total > u.ByModel[j].Total
		}
		return u.ByModel[i].Provider+"/"+u.ByModel[i].Model < u.ByModel[j].Provider+"/"+u.ByModel[j].Model
	})
	sort.SliceStable(u.Sessions, func(i, j int) bool { return u.Sessions[i].Total > u.Sessions[j].Total })
	return u, nil
}

func printUsage(w io.Writer, u *statusUsage) {
	fmt.Fprintf(w, "Usage: %d tokens (%d in / %d out) in %d sessions\n", u.Totals.Total, u.Totals.Input, u.Totals.Output, len(u.Sessions))
	fmt.Fprintf(w, "Note: %s.\n", u.Note)
	if len(u.ByModel) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tMODEL\tSESSIONS\tIN\tOUT\tTOTAL")
	for _, m := range u.ByModel {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\n", orDash(m.Provider), orDash(m.Model), m.Sessions, m.Input, m.Output, m.Total)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tAGENT\tMODEL\tTOTAL")
	for _, r := range u.Sessions {
		model := r.Model
		if r.Provider != "" {
			model = r.Provider + "/" + r.Model
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.Key, orDash(r.AgentID), orDash(model), r.Total)
	}
	_ = tw.Flush()
}
