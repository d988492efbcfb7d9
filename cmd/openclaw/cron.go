package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// cronSubcommands are `openclaw cron ...` (alias automations): the
// gateway's scheduled jobs, driven through the cron.* methods.
var cronSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"status":  runCronStatus,
	"list":    runCronList,
	"get":     runCronGet,
	"show":    runCronGet,
	"add":     runCronAdd,
	"create":  runCronAdd,
	"edit":    runCronEdit,
	"enable":  runCronToggle(true),
	"disable": runCronToggle(false),
	"rm":      runCronRemove,
	"remove":  runCronRemove,
	"delete":  runCronRemove,
	"run":     runCronRun,
	"runs":    runCronRuns,
}

// runCron serves `openclaw cron status|list|get|show|add|edit|enable|disable|rm|run|runs`.
//
// Reading (status, list, get, show, runs) asks for operator.read; changing
// jobs and running them asks for operator.admin, as the real CLI does.
func runCron(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("cron", args, cronSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "cron " + args[0]
	return sub(ctx, a, rest)
}

// cronNow is the clock for relative times and --at durations; tests pin it.
var cronNow = time.Now

func runCronStatus(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw cron status [gateway flags]")
	g := fs.gatewayFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "cron.status", readScope, map[string]any{}, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return formatCronStatus(a.stdout, out)
}

// cronListPage is how many jobs one cron.list asks for, as the real CLI.
const cronListPage = 200

func runCronList(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw cron list [--all] [--agent ID] [gateway flags]")
	g := fs.gatewayFlags()
	all := fs.Bool("all", false, "include disabled jobs")
	agent := fs.String("agent", "", "only the jobs of this agent `id`")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	params := map[string]any{"includeDisabled": *all, "limit": cronListPage, "offset": 0}
	if fs.isSet("agent") {
		if strings.TrimSpace(*agent) == "" {
			return usageErrorf("--agent must not be blank")
		}
		params["agentId"] = strings.TrimSpace(*agent)
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "cron.list", readScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	var l struct {
		Jobs  []cronJob `json:"jobs"`
		Total int       `json:"total"`
	}
	if err := json.Unmarshal(out, &l); err != nil {
		return fmt.Errorf("decode cron list: %w", err)
	}
	if err := formatCronList(a.stdout, l.Jobs, cronNow()); err != nil {
		return err
	}
	if l.Total > len(l.Jobs) {
		fmt.Fprintf(a.stdout, "(%d of %d jobs shown)\n", len(l.Jobs), l.Total)
	}
	return nil
}

// runCronGet serves get (the job as JSON, as the real CLI prints it) and
// show (a readable summary; JSON with --json). show also takes a job's
// exact name, as the real CLI does.
func runCronGet(ctx context.Context, a *app, args []string) error {
	show := a.cmd == "cron show"
	usage := "openclaw " + a.cmd + " ID [gateway flags]"
	if show {
		usage = "openclaw cron show ID|NAME [gateway flags]"
	}
	fs := newFlagSet(a, usage)
	g := fs.gatewayFlags()
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(ctx, g, readScope)
	if err != nil {
		return err
	}
	defer s.Close()
	var out json.RawMessage
	err = s.call(ctx, "cron.get", map[string]any{"id": pos[0]}, &out, false)
	var perr *protocol.Error
	if show && errors.As(err, &perr) && detailCode(perr.Details) == protocol.DetailCronJobNotFound {
		if named := findCronJobByName(ctx, s, pos[0]); named != nil {
			out, err = named, nil
		}
	}
	if err != nil {
		return err
	}
	if g.json || !show {
		return writeJSON(a.stdout, out)
	}
	var j cronJob
	if err := json.Unmarshal(out, &j); err != nil {
		return fmt.Errorf("decode cron job: %w", err)
	}
	return formatCronJob(a.stdout, j, cronNow())
}

// findCronJobByName returns the one job named name (or so displayed), or
// nil when there is none or more than one.
func findCronJobByName(ctx context.Context, s *session, name string) json.RawMessage {
	var l struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	params := map[string]any{"includeDisabled": true, "limit": cronListPage, "offset": 0}
	if s.call(ctx, "cron.list", params, &l, false) != nil {
		return nil
	}
	var found json.RawMessage
	for _, raw := range l.Jobs {
		var j cronJob
		if json.Unmarshal(raw, &j) != nil || (j.Name != name && j.DisplayName != name) {
			continue
		}
		if found != nil {
			return nil
		}
		found = raw
	}
	return found
}

func runCronRemove(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw "+a.cmd+" ID [gateway flags]")
	g := fs.gatewayFlags()
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "cron.remove", adminScope, map[string]any{"id": pos[0]}, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	var res struct {
		Removed *bool `json:"removed"`
	}
	_ = json.Unmarshal(out, &res)
	if res.Removed != nil && !*res.Removed {
		fmt.Fprintf(a.stdout, "Job %s was not there\n", pos[0])
		return nil
	}
	fmt.Fprintf(a.stdout, "Removed job %s\n", pos[0])
	return nil
}

func runCronToggle(enabled bool) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		fs := newFlagSet(a, "openclaw "+a.cmd+" ID [gateway flags]")
		g := fs.gatewayFlags()
		pos, err := fs.parse(args, 1, 1)
		if err != nil {
			return err
		}
		params := map[string]any{"id": pos[0], "patch": map[string]any{"enabled": enabled}}
		var out json.RawMessage
		if err := a.callOnce(ctx, g, "cron.update", adminScope, params, &out, false); err != nil {
			return err
		}
		if g.json {
			return writeJSON(a.stdout, out)
		}
		if enabled {
			return printCronSaved(a.stdout, "Enabled", out, pos[0])
		}
		fmt.Fprintf(a.stdout, "Disabled job %s (cron list hides it; see cron list --all)\n", pos[0])
		return nil
	}
}

// printCronSaved prints "<verb> job ID (name), next run ..." from a job
// the gateway returned.
func printCronSaved(w io.Writer, verb string, raw json.RawMessage, id string) error {
	var j cronJob
	_ = json.Unmarshal(raw, &j)
	line := verb + " job " + cmp.Or(j.ID, id)
	if j.Name != "" {
		line += " (" + j.Name + ")"
	}
	if next := j.nextRunAtMs(); next > 0 && j.enabled() {
		line += ", next run " + cronWhen(next, cronNow())
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

func runCronRun(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw cron run ID [--due] [--wait [--wait-timeout DUR] [--poll-interval DUR]] [gateway flags]")
	g := fs.gatewayFlags()
	due := fs.Bool("due", false, "run only if the job is due")
	fs.Bool("force", false, "run even if not due (the default)")
	wait := fs.Bool("wait", false, "wait for the run to finish and exit non-zero if it failed")
	waitTimeout := fs.String("wait-timeout", "10m", "how long --wait waits, a `duration`")
	pollInterval := fs.String("poll-interval", "2s", "how often --wait asks, a `duration`")
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var waitFor, every time.Duration
	if *wait {
		if waitFor, err = parseCronDuration("--wait-timeout", *waitTimeout); err != nil {
			return err
		}
		if every, err = parseCronDuration("--poll-interval", *pollInterval); err != nil {
			return err
		}
	}
	mode := "force"
	if *due {
		mode = "due"
	}
	id := pos[0]
	// One connection for the run and the polls; the polls read the run
	// log, so --wait asks for read beside admin.
	scopes := adminScope
	if *wait {
		scopes = append(slices.Clone(adminScope), readScope...)
	}
	dialCtx, cancel := context.WithTimeout(ctx, g.timeout())
	s, err := a.connect(dialCtx, g, scopes)
	cancel()
	if err != nil {
		return err
	}
	defer s.Close()
	var out json.RawMessage
	callCtx, cancel := context.WithTimeout(ctx, g.timeout())
	err = s.call(callCtx, "cron.run", map[string]any{"id": id, "mode": mode}, &out, false)
	cancel()
	if err != nil {
		return err
	}
	var res struct {
		OK       bool   `json:"ok"`
		Ran      bool   `json:"ran"`
		Enqueued bool   `json:"enqueued"`
		RunID    string `json:"runId"`
		Reason   string `json:"reason"`
	}
	_ = json.Unmarshal(out, &res)
	started := res.OK && (res.Ran || res.Enqueued)
	if !*wait || !res.Enqueued || !res.OK {
		if g.json {
			if err := writeJSON(a.stdout, out); err != nil {
				return err
			}
		} else if started {
			fmt.Fprintf(a.stdout, "Started job %s (run %s)\n", id, orDash(res.RunID))
		} else {
			fmt.Fprintf(a.stdout, "Job %s did not run: %s\n", id, cmp.Or(res.Reason, "not due"))
		}
		if !started {
			return reported(fmt.Errorf("job %s did not run", id))
		}
		return nil
	}
	if res.RunID == "" {
		return errors.New("cron.run returned no runId to wait for")
	}
	entry, err := waitCronRun(ctx, s, id, res.RunID, waitFor, every)
	if err != nil {
		return err
	}
	if g.json {
		var merged map[string]any
		_ = json.Unmarshal(out, &merged)
		if merged == nil {
			merged = map[string]any{}
		}
		merged["completed"], merged["status"], merged["run"] = true, entry.Status, entry.raw
		if entry.CompletionStatus != "" {
			merged["completionStatus"] = entry.CompletionStatus
		}
		if err := writeJSON(a.stdout, merged); err != nil {
			return err
		}
	} else {
		line := fmt.Sprintf("Run %s of job %s: %s", res.RunID, id, entry.Status)
		if entry.DurationMs > 0 {
			line += " in " + cronDuration(entry.DurationMs)
		}
		fmt.Fprintln(a.stdout, line)
		if entry.Summary != "" {
			fmt.Fprintln(a.stdout, entry.Summary)
		}
		if entry.Error != "" {
			fmt.Fprintln(a.stdout, "Error: "+entry.Error)
		}
	}
	// Like the real CLI, a run that worked but failed to deliver counts as
	// failed when the gateway says so in completionStatus.
	failed := entry.Status != "ok"
	if entry.CompletionStatus != "" {
		failed = entry.CompletionStatus != "succeeded"
	}
	if failed {
		return reported(fmt.Errorf("run %s ended %s", res.RunID, cmp.Or(entry.CompletionStatus, entry.Status)))
	}
	return nil
}

// waitCronRun polls cron.runs for runID until the run has an outcome or
// waitFor runs out.
func waitCronRun(ctx context.Context, s *session, id, runID string, waitFor, every time.Duration) (cronRunEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		var page struct {
			Entries []json.RawMessage `json:"entries"`
		}
		err := s.call(ctx, "cron.runs", map[string]any{"id": id, "runId": runID, "limit": 1}, &page, false)
		deadline, _ := ctx.Deadline()
		if err != nil && ctx.Err() == nil && time.Until(deadline) > 0 {
			return cronRunEntry{}, err
		}
		if len(page.Entries) > 0 {
			var e cronRunEntry
			if json.Unmarshal(page.Entries[0], &e) == nil {
				switch e.Status {
				case "ok", "error", "skipped":
					e.raw = page.Entries[0]
					return e, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return cronRunEntry{}, fmt.Errorf("timed out after %s waiting for run %s", waitFor, runID)
		case <-tick.C:
		}
	}
}

func runCronRuns(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw cron runs [ID | --id ID] [--limit N] [--offset N] [--status S] "+
		"[--delivery-status S] [--run-id R] [--query TEXT] [--sort asc|desc] [gateway flags]")
	g := fs.gatewayFlags()
	idFlag := fs.String("id", "", "job `id` (instead of the argument)")
	limit := fs.Int("limit", 50, "at most `n` entries")
	offset := fs.Int("offset", 0, "skip `n` entries")
	status := fs.String("status", "", "only runs of this `status`: all, ok, error or skipped")
	deliveryStatus := fs.String("delivery-status", "", "only runs of this delivery `status`: delivered, not-delivered, unknown or not-requested")
	runID := fs.String("run-id", "", "only the run of this `id`")
	query := fs.String("query", "", "only runs whose summary or error contains `text`")
	sortDir := fs.String("sort", "", "order by run time: asc or desc")
	pos, err := fs.parse(args, 0, 1)
	if err != nil {
		return err
	}
	id := strings.TrimSpace(*idFlag)
	if len(pos) == 1 {
		if id != "" && id != pos[0] {
			return usageErrorf("conflicting job ids: %q and --id %q", pos[0], id)
		}
		id = pos[0]
	}
	if id == "" {
		return usageErrorf("missing job id; pass it as the argument or with --id (usage: %s)", fs.usage)
	}
	if *limit < 1 {
		return usageErrorf("--limit must be a positive integer")
	}
	params := map[string]any{"id": id, "limit": *limit}
	for _, c := range []struct {
		flag, key, value string
		choices          []string
	}{
		{"status", "status", *status, []string{"all", "ok", "error", "skipped"}},
		{"delivery-status", "deliveryStatus", *deliveryStatus, []string{"delivered", "not-delivered", "unknown", "not-requested"}},
		{"sort", "sortDir", *sortDir, []string{"asc", "desc"}},
		{"run-id", "runId", *runID, nil},
		{"query", "query", *query, nil},
	} {
		if !fs.isSet(c.flag) {
			continue
		}
		if c.choices != nil && !slices.Contains(c.choices, c.value) {
			return usageErrorf("--%s must be one of %s", c.flag, strings.Join(c.choices, ", "))
		}
		if c.flag == "run-id" && strings.TrimSpace(c.value) == "" {
			return usageErrorf("--run-id must not be blank")
		}
		params[c.key] = c.value
	}
	if fs.isSet("offset") {
		if *offset < 0 {
			return usageErrorf("--offset must not be negative")
		}
		params["offset"] = *offset
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "cron.runs", readScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	var page struct {
		Entries []cronRunEntry `json:"entries"`
		Total   int            `json:"total"`
	}
	if err := json.Unmarshal(out, &page); err != nil {
		return fmt.Errorf("decode cron runs: %w", err)
	}
	if err := formatCronRuns(a.stdout, page.Entries); err != nil {
		return err
	}
	if page.Total > len(page.Entries) {
		fmt.Fprintf(a.stdout, "(%d of %d runs shown; see --offset)\n", len(page.Entries), page.Total)
	}
	return nil
}
