package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// `openclaw sessions [list]|tail|delete|archive|compact`: the stored
// conversation sessions, through the running gateway (which owns the
// session database, so the CLI never opens it under the gateway's feet).

func init() { registerCommand("", newSessionsCmd) }

// listFlags are the listing flags, on `sessions` itself and on `list`.
type listFlags struct {
	g         *gatewayFlags
	agent     string
	allAgents bool
	active    int
	limit     string
	store     string
	verbose   bool
}

func addListFlags(f *flag.FlagSet, a *app) *listFlags {
	l := &listFlags{}
	f.StringVar(&l.agent, "agent", "", "agent `id` to inspect")
	f.BoolVar(&l.allAgents, "all-agents", false, "aggregate sessions across all configured agents")
	f.IntVar(&l.active, "active", 0, "only sessions updated within the past N `minutes`")
	f.StringVar(&l.limit, "limit", "100", "max sessions to show (`count`, or \"all\")")
	f.StringVar(&l.store, "store", "", "legacy session store selector `path` (not supported: the gateway keeps sessions in its database)")
	f.BoolVar(&l.verbose, "verbose", false, "verbose logging")
	l.g = addGatewayFlags(f, a)
	return l
}

func newSessionsCmd(a *app) *cobra.Command {
	var l *listFlags
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List stored conversation sessions",
		Long:  "List stored conversation sessions, as the running gateway keeps them.",
		Example: `  openclaw sessions
  openclaw sessions --agent work
  openclaw sessions --active 120 --json
  openclaw sessions compact "agent:main:main"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.sessionsList(cmd.Context(), l) },
	}
	l = addListFlags(c.Flags(), a)
	list := &cobra.Command{
		Use:   "list",
		Short: "List stored conversation sessions",
		Args:  cobra.NoArgs,
	}
	ll := addListFlags(list.Flags(), a)
	list.RunE = func(cmd *cobra.Command, _ []string) error { return a.sessionsList(cmd.Context(), ll) }
	c.AddCommand(list, newSessionsTailCmd(a), newSessionsLifecycleCmd(a, "delete"), newSessionsLifecycleCmd(a, "archive"), newSessionsCompactCmd(a))
	return c
}

// parseLimit reads --limit: a positive count or "all" (0).
func parseLimit(s string) (int, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, usageErrorf("--limit must be a positive number or \"all\", got %q", s)
	}
	return n, nil
}

// sessionsListAnswer is the part of sessions.list the CLI reads; rows stay
// maps so --json passes every field the gateway sends.
type sessionsListAnswer struct {
	Count      int              `json:"count"`
	TotalCount int              `json:"totalCount"`
	HasMore    bool             `json:"hasMore"`
	Sessions   []map[string]any `json:"sessions"`
	Defaults   struct {
		AgentID string `json:"agentId"`
		MainKey string `json:"mainKey"`
	} `json:"defaults"`
}

func (a *app) sessionsList(ctx context.Context, l *listFlags) error {
	limit, err := parseLimit(l.limit)
	switch {
	case err != nil:
		return err
	case l.store != "":
		return usageErrorf("--store selects a legacy session file; this gateway keeps sessions in its database: drop --store (and use --agent to pick an agent)")
	case l.active < 0:
		return usageErrorf("--active must be a positive number of minutes, got %d", l.active)
	case l.allAgents && l.agent != "":
		return usageErrorf("--agent and --all-agents cannot be combined")
	}
	agent, err := optionalAgent(l.agent)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, l.g.timeout())
	defer cancel()
	s, err := a.connect(ctx, l.g, scopesFor("sessions.list"))
	if err != nil {
		return err
	}
	defer s.Close()
	if agent == "" && !l.allAgents {
		// Without --agent the default agent's sessions, as the real CLI.
		var probe sessionsListAnswer
		if err := s.call(ctx, "sessions.list", map[string]any{"limit": 1}, &probe, false); err != nil {
			return err
		}
		agent = probe.Defaults.AgentID
	}
	params := map[string]any{"includeGlobal": true}
	if limit > 0 {
		params["limit"] = limit
	}
	if agent != "" {
		params["agentId"] = agent
	}
	if l.active > 0 {
		params["activeMinutes"] = l.active
	}
	var out sessionsListAnswer
	if err := s.call(ctx, "sessions.list", params, &out, false); err != nil {
		return err
	}
	for _, row := range out.Sessions {
		// One "provider/model" string, as the real CLI shows it.
		if p, _ := row["modelProvider"].(string); p != "" {
			if m, _ := row["model"].(string); m != "" && !strings.HasPrefix(m, p+"/") {
				row["model"] = p + "/" + m
			}
		}
	}
	if l.g.json {
		var active any
		if l.active > 0 {
			active = l.active
		}
		var limitApplied any
		if limit > 0 {
			limitApplied = limit
		}
		return writeJSON(a.stdout, map[string]any{
			"path": nil, "allAgents": l.allAgents, "count": len(out.Sessions), "totalCount": out.TotalCount,
			"limitApplied": limitApplied, "hasMore": out.HasMore, "activeMinutes": active, "sessions": out.Sessions,
		})
	}
	printSessions(a, out, agent, l.active)
	return nil
}

// optionalAgent checks an --agent value: unset is "", blank is an error.
func optionalAgent(v string) (string, error) {
	if v != "" && strings.TrimSpace(v) == "" {
		return "", usageErrorf("--agent must not be blank")
	}
	return strings.TrimSpace(v), nil
}

func printSessions(a *app, out sessionsListAnswer, agent string, active int) {
	scope := "all agents"
	if agent != "" {
		scope = "agent " + agent
	}
	fmt.Fprintf(a.stdout, "Sessions (%s): %d", scope, len(out.Sessions))
	if out.HasMore {
		fmt.Fprintf(a.stdout, " of %d (use --limit all for the rest)", out.TotalCount)
	}
	fmt.Fprintln(a.stdout)
	if active > 0 {
		fmt.Fprintf(a.stdout, "Filtered to the last %d minute(s)\n", active)
	}
	if len(out.Sessions) == 0 {
		fmt.Fprintln(a.stdout, "No sessions found.")
		return
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tKEY\tAGE\tMODEL\tTOKENS\tFLAGS")
	now := time.Now()
	for _, r := range out.Sessions {
		str := func(k string) string { s, _ := r[k].(string); return s }
		num := func(k string) int64 { f, _ := r[k].(float64); return int64(f) }
		age := "-"
		if ms := num("updatedAt"); ms > 0 {
			age = shortAge(now.Sub(time.UnixMilli(ms)))
		}
		var flags []string
		for _, f := range []string{"isMain", "pinned", "archived"} {
			if b, _ := r[f].(bool); b {
				flags = append(flags, strings.TrimPrefix(strings.ToLower(f), "is"))
			}
		}
		if lbl := str("label"); lbl != "" {
			flags = append(flags, "label:"+lbl)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", orDash(str("kind")), str("key"), age, orDash(str("model")),
			compactCount(num("totalTokens")), orDash(strings.Join(flags, " ")))
	}
	tw.Flush()
}

// shortAge renders a duration as the largest whole unit: 45s, 12m, 3h, 2d.
func shortAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(max(int(d.Seconds()), 0)) + "s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h ago"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d ago"
}

// compactCount shows counts below 1000 whole and larger ones as k or m,
// as the real CLI's session table does.
func compactCount(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(float64(n)/1_000_000, 'f', 1, 64) + "m"
}

// sessionKeyResult is one key's outcome of delete or archive.
type sessionKeyResult struct {
	Key    string `json:"key"`
	OK     bool   `json:"ok"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// newSessionsLifecycleCmd is `sessions delete` or `sessions archive`:
// several keys, one ordered result each, the main session protected.
func newSessionsLifecycleCmd(a *app, op string) *cobra.Command {
	var (
		g            *gatewayFlags
		agent        string
		dryRun, yes  bool
		short, usage = "Archive stored sessions via the running gateway", "archive <keys...>"
	)
	if op == "delete" {
		short, usage = "Delete stored sessions via the running gateway (main sessions are protected)", "delete <keys...>"
	}
	c := &cobra.Command{
		Use:   usage,
		Short: short,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, keys []string) error {
			agentID, err := optionalAgent(agent)
			if err != nil {
				return err
			}
			for _, k := range keys {
				if strings.TrimSpace(k) == "" {
					return usageErrorf("a session key must not be blank")
				}
			}
			if op == "delete" && !dryRun && !yes {
				if g.json || !a.stdinIsTerminal() {
					return usageErrorf("sessions delete is destructive: pass --yes to delete without a prompt (or --dry-run to preview)")
				}
				fmt.Fprintf(a.stderr, "Delete %d session(s): %s? [y/N] ", len(keys), strings.Join(keys, ", "))
				line, _ := bufio.NewReader(a.stdin).ReadString('\n')
				if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
					return reported(errors.New("sessions delete: not confirmed"))
				}
			}
			return a.sessionsLifecycle(cmd.Context(), g, op, agentID, keys, dryRun)
		},
	}
	f := c.Flags()
	f.StringVar(&agent, "agent", "", "agent `id` that owns the session (required for global keys)")
	f.BoolVar(&dryRun, "dry-run", false, "preview the actions without changing anything")
	if op == "delete" {
		f.BoolVar(&yes, "yes", false, "skip the destructive confirmation prompt")
	}
	g = addGatewayFlags(f, a)
	return c
}

func (a *app) stdinIsTerminal() bool {
	f, ok := a.stdin.(*os.File)
	return ok && isTerminal(f)
}

// describedSession is what sessions.describe tells about a key.
type describedSession struct {
	Session struct {
		Key      string `json:"key"`
		AgentID  string `json:"agentId"`
		Archived bool   `json:"archived"`
	} `json:"session"`
}

func (a *app) sessionsLifecycle(ctx context.Context, g *gatewayFlags, op, agent string, keys []string, dryRun bool) error {
	method := "sessions.patch"
	if op == "delete" {
		method = "sessions.delete"
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(ctx, g, scopesFor(method))
	if err != nil {
		return err
	}
	defer s.Close()
	// The gateway's main key names each agent's main session
	// (agent:<id>:<mainKey>); a row's isMain is wider (any agent:<id>:<x>).
	var defaults sessionsListAnswer
	if err := s.call(ctx, "sessions.list", map[string]any{"limit": 1}, &defaults, false); err != nil {
		return err
	}
	mainKey := cmp.Or(strings.ToLower(defaults.Defaults.MainKey), "main")
	results := make([]sessionKeyResult, 0, len(keys))
	allOK := true
	for _, key := range keys {
		r := a.sessionLifecycleOne(ctx, s, op, method, agent, mainKey, key, dryRun)
		allOK = allOK && r.OK
		results = append(results, r)
	}
	if g.json {
		if err := writeJSON(a.stdout, map[string]any{"ok": allOK, "operation": op, "dryRun": dryRun, "results": results}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			if r.OK {
				fmt.Fprintf(a.stdout, "%s: %s\n", r.Key, strings.ReplaceAll(r.Status, "_", " "))
			} else {
				fmt.Fprintf(a.stderr, "%s: %s: %s\n", r.Key, strings.ReplaceAll(r.Status, "_", " "), r.Error)
			}
		}
	}
	if !allOK {
		return reported(fmt.Errorf("sessions %s: a key failed", op))
	}
	return nil
}

func (a *app) sessionLifecycleOne(ctx context.Context, s *session, op, method, agent, mainKey, key string, dryRun bool) sessionKeyResult {
	var d describedSession
	if err := s.call(ctx, "sessions.describe", map[string]any{"key": key}, &d, false); err != nil {
		var perr *protocol.Error
		if errors.As(err, &perr) && perr.Code == protocol.CodeInvalidRequest {
			return sessionKeyResult{Key: key, Status: "not_found", Error: "Session not found. Run openclaw sessions list --json to choose a valid key."}
		}
		return sessionKeyResult{Key: key, Status: "error", Error: err.Error()}
	}
	switch {
	case agent != "" && d.Session.AgentID != agent:
		return sessionKeyResult{Key: key, Status: "wrong_agent", Error: fmt.Sprintf("the session belongs to agent %q, not %q", d.Session.AgentID, agent)}
	case strings.EqualFold(d.Session.Key, "agent:"+d.Session.AgentID+":"+mainKey):
		// An agent's main session is where its chats land; removing it
		// by a slip of a key is not something to allow.
		return sessionKeyResult{Key: key, Status: "protected", Error: "an agent's main session is protected; use `openclaw gateway call sessions.reset` to start it afresh"}
	case op == "archive" && d.Session.Archived:
		return sessionKeyResult{Key: key, OK: true, Status: "already_archived"}
	case dryRun:
		return sessionKeyResult{Key: key, OK: true, Status: "would_" + op}
	}
	params := map[string]any{"key": key}
	if op == "archive" {
		params["archived"] = true
	}
	var out map[string]any
	if err := s.call(ctx, method, params, &out, false); err != nil {
		return sessionKeyResult{Key: key, Status: "error", Error: err.Error()}
	}
	if op == "delete" {
		if deleted, _ := out["deleted"].(bool); !deleted {
			return sessionKeyResult{Key: key, Status: "not_found", Error: "Session not found. Run openclaw sessions list --json to choose a valid key."}
		}
		return sessionKeyResult{Key: key, OK: true, Status: "deleted"}
	}
	return sessionKeyResult{Key: key, OK: true, Status: "archived"}
}

// compactAnswer is sessions.compact's answer.
type compactAnswer struct {
	OK        bool   `json:"ok"`
	Key       string `json:"key"`
	Compacted bool   `json:"compacted"`
	Reason    string `json:"reason"`
	Kept      *int   `json:"kept"`
	Result    *struct {
		TokensBefore *int `json:"tokensBefore"`
		TokensAfter  *int `json:"tokensAfter"`
	} `json:"result"`
}

func newSessionsCompactCmd(a *app) *cobra.Command {
	var (
		g        *gatewayFlags
		agent    string
		maxLines int
	)
	c := &cobra.Command{
		Use:   "compact <key>",
		Short: "Compact a stored session transcript via the running gateway",
		Long: "Summarise a session's context with its model (or, with --max-lines, keep only its last lines) so it fits the model's window again. " +
			"Backed by the sessions.compact gateway RPC; exits non-zero when compaction fails.",
		Example: `  openclaw sessions compact "agent:main:main"
  openclaw sessions compact "agent:main:main" --max-lines 200
  openclaw sessions compact "agent:work:main" --agent work --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			agentID, err := optionalAgent(agent)
			if err != nil {
				return err
			}
			params := map[string]any{"key": args[0]}
			if agentID != "" {
				params["agentId"] = agentID
			}
			if cmd.Flags().Changed("max-lines") {
				if maxLines < 1 {
					return usageErrorf("--max-lines must be a positive number, got %d", maxLines)
				}
				params["maxLines"] = maxLines
			}
			ctx := cmd.Context()
			if !cmd.Flags().Changed("timeout") {
				// A summary takes as long as the model does: without
				// --timeout the gateway's own run timeout bounds it.
				g.timeoutMs = int((24 * time.Hour).Milliseconds())
			}
			var raw json.RawMessage
			if err := a.callOnce(ctx, g, "sessions.compact", scopesFor("sessions.compact"), params, &raw, false); err != nil {
				return err
			}
			var out compactAnswer
			if err := json.Unmarshal(raw, &out); err != nil {
				return fmt.Errorf("sessions compact: the gateway's answer is not a compaction result: %w", err)
			}
			if g.json {
				if err := writeJSON(a.stdout, raw); err != nil {
					return err
				}
			}
			key := cmp.Or(out.Key, args[0])
			if !out.OK {
				if !g.json {
					fmt.Fprintf(a.stderr, "Compaction failed for session %s%s.\n", key, prefixed(": ", out.Reason))
				}
				return reported(errors.New("sessions compact: compaction failed"))
			}
			if !g.json {
				fmt.Fprintln(a.stdout, describeCompaction(key, out))
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&agent, "agent", "", "agent `id` that owns the session (required for global keys)")
	f.IntVar(&maxLines, "max-lines", 0, "truncate to the last N transcript lines instead of summarising (`count`)")
	g = addGatewayFlags(f, a)
	return c
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func describeCompaction(key string, out compactAnswer) string {
	if !out.Compacted {
		return "No compaction needed for session " + key + prefixed(" (", out.Reason) + map[bool]string{true: ")", false: ""}[out.Reason != ""] + "."
	}
	switch {
	case out.Result != nil && out.Result.TokensBefore != nil && out.Result.TokensAfter != nil:
		return fmt.Sprintf("Compacted session %s (%d → %d tokens).", key, *out.Result.TokensBefore, *out.Result.TokensAfter)
	case out.Kept != nil:
		return fmt.Sprintf("Compacted session %s (kept %d lines).", key, *out.Kept)
	}
	return "Compacted session " + key + "."
}
