package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func init() { registerCommand("", newAuditCmd) }

// auditQuery is audit.list's params as the CLI sends them.
type auditQuery struct {
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	RunID      string `json:"runId,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Status     string `json:"status,omitempty"`
	After      int64  `json:"after,omitempty"`
	Before     int64  `json:"before,omitempty"`
	Limit      int    `json:"limit,omitempty"`
	Cursor     string `json:"cursor,omitempty"`
}

// auditPage is audit.list's answer.
type auditPage struct {
	Events []struct {
		OccurredAt int64  `json:"occurredAt"`
		Kind       string `json:"kind"`
		Direction  string `json:"direction"`
		Channel    string `json:"channel"`
		Status     string `json:"status"`
		AgentID    string `json:"agentId"`
		RunID      string `json:"runId"`
		Action     string `json:"action"`
		ToolName   string `json:"toolName"`
		ErrorCode  string `json:"errorCode"`
	} `json:"events"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// newAuditCmd is `openclaw audit`: the gateway's metadata-only activity
// ledger (audit.list), with the real CLI's filters. This gateway records
// tool actions; the message ledger and execution identity are not kept,
// so the flags that only query those are refused with that reason.
func newAuditCmd(a *app) *cobra.Command {
	var q auditQuery
	var after, before, execution, direction, channel string
	var explain bool
	var g *gatewayFlags
	c := &cobra.Command{
		Use:   "audit",
		Short: "Inspect activity records and exact-run identity context",
		Long: "Lists the gateway's activity ledger newest first: one record per guarded tool call\n" +
			"(who, when, which tool, how it ended), never arguments or content. --cursor continues a page.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case explain || execution != "":
				return usageErrorf("--explain and --execution: this gateway keeps no execution identity records")
			case direction != "" || channel != "" || q.Kind == "message":
				return usageErrorf("--kind message, --direction and --channel: this gateway keeps no message records")
			case q.Kind != "" && q.Kind != "agent_run" && q.Kind != "tool_action":
				return usageErrorf("--kind %q: want agent_run, tool_action or message", q.Kind)
			case q.Limit < 0 || q.Limit > 500:
				return usageErrorf("--limit %d: want 1 to 500", q.Limit)
			}
			var err error
			if q.After, err = auditTime("--after", after); err != nil {
				return err
			}
			if q.Before, err = auditTime("--before", before); err != nil {
				return err
			}
			var page auditPage
			if g.json {
				var raw map[string]any
				if err := a.callOnce(cmd.Context(), g, "audit.list", scopesFor("audit.list"), q, &raw, false); err != nil {
					return err
				}
				return writeJSON(a.stdout, raw)
			}
			if err := a.callOnce(cmd.Context(), g, "audit.list", scopesFor("audit.list"), q, &page, false); err != nil {
				return err
			}
			printActivity(a, page)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&q.AgentID, "agent", "", "exact agent `id`")
	f.StringVar(&q.SessionKey, "session", "", "exact session `key`")
	f.StringVar(&q.RunID, "run", "", "exact run `id`")
	f.StringVar(&q.Kind, "kind", "", "agent_run, tool_action or message")
	f.StringVar(&q.Status, "status", "", "started, succeeded, failed, cancelled, timed_out, blocked or unknown")
	f.StringVar(&after, "after", "", "from this `time` on (ISO timestamp or Unix milliseconds)")
	f.StringVar(&before, "before", "", "up to this `time` (ISO timestamp or Unix milliseconds)")
	f.IntVar(&q.Limit, "limit", 0, "page size, 1 to 500 (default 100)")
	f.StringVar(&q.Cursor, "cursor", "", "continue from this `sequence`")
	f.BoolVar(&explain, "explain", false, "execution identity (not kept by this gateway)")
	f.StringVar(&execution, "execution", "", "exact execution `id` (needs --explain)")
	f.StringVar(&direction, "direction", "", "message direction: inbound or outbound")
	f.StringVar(&channel, "channel", "", "exact message channel")
	g = addGatewayFlags(f, a)
	return c
}

// auditTime reads --after/--before: an ISO timestamp or Unix milliseconds.
func auditTime(flag, v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		if ms < 0 {
			return 0, usageErrorf("%s %q: a time cannot be negative", flag, v)
		}
		return ms, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, usageErrorf("%s %q: want an ISO timestamp (2026-07-01T00:00:00Z) or Unix milliseconds", flag, v)
}

func printActivity(a *app, p auditPage) {
	if len(p.Events) == 0 {
		fmt.Fprintln(a.stdout, "No activity records.")
		return
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tKIND\tDIRECTION\tCHANNEL\tSTATUS\tAGENT\tRUN\tACTION")
	for _, e := range p.Events {
		action := e.Action
		if e.ToolName != "" {
			action += " " + e.ToolName
		}
		if e.ErrorCode != "" {
			action += " (" + e.ErrorCode + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", time.UnixMilli(e.OccurredAt).UTC().Format(time.RFC3339),
			e.Kind, orDash(e.Direction), orDash(e.Channel), e.Status, orDash(e.AgentID), orDash(e.RunID), action)
	}
	tw.Flush()
	if p.NextCursor != "" {
		fmt.Fprintf(a.stdout, "More: openclaw audit --cursor %s\n", p.NextCursor)
	}
}
