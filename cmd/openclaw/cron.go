package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
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
	if show && errors.As(err, &perr) && detailCode(perr.Details) == cronJobNotFound {
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

// cronJobNotFound is the detail code of the gateway's unknown-job refusal.
const cronJobNotFound = "CRON_JOB_NOT_FOUND"

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
	line := verb + " job " + firstSet(j.ID, id)
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
			fmt.Fprintf(a.stdout, "Job %s did not run: %s\n", id, firstSet(res.Reason, "not due"))
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
		return reported(fmt.Errorf("run %s ended %s", res.RunID, firstSet(entry.CompletionStatus, entry.Status)))
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

// isSet reports whether the flag name was given on the command line.
func (fs *flagSet) isSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseCronDuration reads a duration as OpenClaw writes them: 500ms, 30s,
// 10m, 2h, 1d, composites like 1h30m; a bare number is milliseconds.
func parseCronDuration(flagName, s string) (time.Duration, error) {
	ms, ok := cronDurationMs(s)
	if !ok || ms <= 0 {
		return 0, usageErrorf("invalid %s %q: use a duration like 30s, 10m, 2h, 1d or 1h30m", flagName, s)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

var (
	cronSingleDuration = regexp.MustCompile(`^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$`)
	cronDurationPart   = regexp.MustCompile(`(\d+(?:\.\d+)?)(ms|s|m|h|d)`)
	cronUnitMs         = map[string]float64{"": 1, "ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3, "d": 86400e3}
)

// cronDurationMs parses s into milliseconds.
func cronDurationMs(s string) (int64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if m := cronSingleDuration.FindStringSubmatch(s); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		return int64(v*cronUnitMs[m[2]] + 0.5), true
	}
	var total float64
	consumed := 0
	for _, m := range cronDurationPart.FindAllStringSubmatchIndex(s, -1) {
		if m[0] != consumed {
			return 0, false
		}
		v, _ := strconv.ParseFloat(s[m[2]:m[3]], 64)
		total += v * cronUnitMs[s[m[4]:m[5]]]
		consumed = m[1]
	}
	if consumed == 0 || consumed != len(s) {
		return 0, false
	}
	return int64(total + 0.5), true
}

// cronAbsolute matches the ISO dates and times --at takes; group 2 is the
// time, group 3 the offset.
var cronAbsolute = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:[Tt](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)([Zz]|[+-]\d{2}:?\d{2})?)?$`)

// parseCronAt turns --at into the ISO time the gateway stores: an ISO
// timestamp (without an offset it is in tz, else UTC), Unix milliseconds,
// or a duration from now such as 20m or +2h.
func parseCronAt(s, tz string, now time.Time) (string, error) {
	bad := usageErrorf("invalid --at %q: use an ISO time (2026-12-24T18:00, 2026-12-24T18:00:00Z) or a duration like 20m", s)
	s = strings.TrimSpace(s)
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && !strings.HasPrefix(s, "+") {
		return iso(time.UnixMilli(n)), nil
	}
	if m := cronAbsolute.FindStringSubmatch(s); m != nil {
		loc := time.UTC
		if m[3] == "" && tz != "" {
			var err error
			if loc, err = time.LoadLocation(tz); err != nil {
				return "", usageErrorf("invalid --tz %q: %v", tz, err)
			}
		}
		clock := m[2]
		if clock == "" {
			clock = "00:00"
		}
		if strings.Count(clock, ":") == 1 {
			clock += ":00"
		}
		off := m[3]
		if off != "" && off != "Z" && off != "z" && !strings.Contains(off, ":") {
			off = off[:3] + ":" + off[3:]
		}
		layout, value := "2006-01-02T15:04:05.999999999", m[1]+"T"+clock
		if off != "" {
			layout, value = time.RFC3339Nano, value+strings.ToUpper(off)
		}
		t, err := time.ParseInLocation(layout, value, loc)
		if err != nil {
			return "", bad
		}
		return iso(t), nil
	}
	if ms, ok := cronDurationMs(strings.TrimPrefix(s, "+")); ok && ms > 0 {
		return iso(now.Add(time.Duration(ms) * time.Millisecond)), nil
	}
	return "", bad
}

// cronSessionTarget normalises --session: main, isolated, current or
// session:<key>.
func cronSessionTarget(s string) (string, error) {
	raw := strings.TrimSpace(s)
	switch lower := strings.ToLower(raw); {
	case lower == "main", lower == "isolated", lower == "current":
		return lower, nil
	case strings.HasPrefix(lower, "session:") && strings.TrimSpace(raw[len("session:"):]) != "":
		return "session:" + strings.TrimSpace(raw[len("session:"):]), nil
	}
	return "", usageErrorf("--session must be main, isolated, current, or session:<key> (got %q)", s)
}

// cronJobFlags are the job fields add and edit share.
type cronJobFlags struct {
	name, description, agent, session, sessionKey, wake    *string
	at, every, cron, tz, stagger                           *string
	message, systemEvent, model, thinking, timeoutSeconds  *string
	channel, to, account, catchUp                          *string
	exact, deleteAfterRun, keepAfterRun, lightContext      *bool
	announce, deliver, noDeliver, bestEffort, noBestEffort *bool
	noLightContext                                         *bool
}

func (fs *flagSet) cronJobFlags(edit bool) *cronJobFlags {
	f := &cronJobFlags{
		name:           fs.String("name", "", "job `name`"),
		description:    fs.String("description", "", "job description `text`"),
		agent:          fs.String("agent", "", "agent `id` that runs the job (default: the default agent)"),
		session:        fs.String("session", "", "session `target`: main, isolated, current or session:<key> (default: isolated for --message, main for --system-event)"),
		sessionKey:     fs.String("session-key", "", "session `key` for job routing"),
		wake:           fs.String("wake", "", "wake `mode`: now or next-heartbeat (default now)"),
		at:             fs.String("at", "", "run once at `when`: an ISO time (offset-less uses --tz) or a duration like 20m"),
		every:          fs.String("every", "", "run every `duration` (e.g. 10m, 1h)"),
		cron:           fs.String("cron", "", "cron `expr`ession (5 fields, or 6 with seconds)"),
		tz:             fs.String("tz", "", "IANA time `zone` of --cron and offset-less --at (default: the gateway's)"),
		stagger:        fs.String("stagger", "", "spread cron runs over a `duration` window (e.g. 30s, 5m)"),
		exact:          fs.Bool("exact", false, "no cron staggering (stagger 0)"),
		message:        fs.String("message", "", "agent `text` to run (an agent turn)"),
		systemEvent:    fs.String("system-event", "", "system event `text` for the main session"),
		model:          fs.String("model", "", "`model` for agent turns (provider/model or alias)"),
		thinking:       fs.String("thinking", "", "thinking `level` for agent turns"),
		timeoutSeconds: fs.String("timeout-seconds", "", "job timeout in `seconds` (0: none)"),
		lightContext:   fs.Bool("light-context", false, "lightweight bootstrap context for agent turns"),
		deleteAfterRun: fs.Bool("delete-after-run", false, "delete a one-shot job after it succeeds"),
		keepAfterRun:   fs.Bool("keep-after-run", false, "keep a one-shot job after it succeeds"),
		announce:       fs.Bool("announce", false, "deliver the final text to a chat"),
		deliver:        fs.Bool("deliver", false, "same as --announce (deprecated)"),
		noDeliver:      fs.Bool("no-deliver", false, "deliver nothing"),
		bestEffort:     fs.Bool("best-effort-deliver", false, "do not fail the job when delivery fails"),
		channel:        fs.String("channel", "", "delivery `channel` (last or a channel id; default last)"),
		to:             fs.String("to", "", "delivery `destination` (chat id, number, user)"),
		account:        fs.String("account", "", "channel account `id` for delivery"),
		catchUp:        fs.String("catch-up", "", "`mode` for runs missed while the gateway was down: once or skip"),
	}
	if edit {
		f.noBestEffort = fs.Bool("no-best-effort-deliver", false, "fail the job when delivery fails")
		f.noLightContext = fs.Bool("no-light-context", false, "full bootstrap context for agent turns")
	}
	return f
}

// cronEveryWords is a positional "every 10m" schedule.
var cronEveryWords = regexp.MustCompile(`(?i)^every\s+(.+)$`)

// schedule reads the schedule flags (and a positional schedule) into
// a schedule object; nil when none is given.
func (f *cronJobFlags) schedule(fs *flagSet, positional string, now time.Time) (map[string]any, error) {
	at, every, expr := strings.TrimSpace(*f.at), strings.TrimSpace(*f.every), strings.TrimSpace(*f.cron)
	for _, n := range []string{"at", "every", "cron"} {
		if fs.isSet(n) && strings.TrimSpace(fs.Lookup(n).Value.String()) == "" {
			return nil, usageErrorf("--%s must not be blank", n)
		}
	}
	if positional != "" {
		// "every 10m", a five- or six-field cron expression, else a time.
		if m := cronEveryWords.FindStringSubmatch(positional); m != nil {
			every = strings.TrimSpace(m[1])
		} else if n := len(strings.Fields(positional)); n == 5 || n == 6 {
			expr = positional
		} else {
			at = positional
		}
	}
	chosen := 0
	for _, v := range []string{at, every, expr} {
		if v != "" {
			chosen++
		}
	}
	if chosen > 1 {
		return nil, usageErrorf("choose one schedule: --at, --every or --cron")
	}
	tz := strings.TrimSpace(*f.tz)
	var staggerMs *int64
	switch {
	case *f.exact && strings.TrimSpace(*f.stagger) != "":
		return nil, usageErrorf("choose --stagger or --exact, not both")
	case *f.exact:
		staggerMs = new(int64)
	case strings.TrimSpace(*f.stagger) != "":
		d, err := parseCronDuration("--stagger", *f.stagger)
		if err != nil {
			return nil, err
		}
		ms := d.Milliseconds()
		staggerMs = &ms
	}
	if tz != "" && every != "" {
		return nil, usageErrorf("--tz is only valid with --cron or an offset-less --at")
	}
	if staggerMs != nil && (at != "" || every != "") {
		return nil, usageErrorf("--stagger and --exact are only valid with --cron")
	}
	switch {
	case at != "":
		iso, err := parseCronAt(at, tz, now)
		if err != nil {
			return nil, err
		}
		return map[string]any{"kind": "at", "at": iso}, nil
	case every != "":
		d, err := parseCronDuration("--every", every)
		if err != nil {
			return nil, err
		}
		return map[string]any{"kind": "every", "everyMs": d.Milliseconds()}, nil
	case expr != "":
		s := map[string]any{"kind": "cron", "expr": expr}
		if tz != "" {
			s["tz"] = tz
		}
		if staggerMs != nil {
			s["staggerMs"] = *staggerMs
		}
		return s, nil
	}
	return nil, nil
}

// timeout reads --timeout-seconds, a non-negative integer.
func (f *cronJobFlags) timeout(fs *flagSet) (int, bool, error) {
	if !fs.isSet("timeout-seconds") {
		return 0, false, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(*f.timeoutSeconds))
	if err != nil || n < 0 {
		return 0, false, usageErrorf("--timeout-seconds must be a non-negative integer (got %q)", *f.timeoutSeconds)
	}
	return n, true, nil
}

// common checks the flags add and edit validate alike and puts the plain
// fields into p.
func (f *cronJobFlags) common(fs *flagSet, p map[string]any) error {
	if *f.deleteAfterRun && *f.keepAfterRun {
		return usageErrorf("choose --delete-after-run or --keep-after-run, not both")
	}
	if *f.deleteAfterRun {
		p["deleteAfterRun"] = true
	}
	if *f.keepAfterRun {
		p["deleteAfterRun"] = false
	}
	if fs.isSet("wake") {
		w := strings.TrimSpace(*f.wake)
		if w != "now" && w != "next-heartbeat" {
			return usageErrorf("--wake must be now or next-heartbeat (got %q)", *f.wake)
		}
		p["wakeMode"] = w
	}
	if fs.isSet("agent") {
		if strings.TrimSpace(*f.agent) == "" {
			return usageErrorf("--agent must not be blank")
		}
		p["agentId"] = strings.ToLower(strings.TrimSpace(*f.agent))
	}
	if fs.isSet("session-key") {
		if strings.TrimSpace(*f.sessionKey) == "" {
			return usageErrorf("--session-key must not be blank")
		}
		p["sessionKey"] = strings.TrimSpace(*f.sessionKey)
	}
	if fs.isSet("catch-up") {
		c := strings.TrimSpace(*f.catchUp)
		if c != "once" && c != "skip" {
			return usageErrorf("--catch-up must be once or skip (got %q)", *f.catchUp)
		}
		p["catchUp"] = c
	}
	if (*f.announce || *f.deliver) && *f.noDeliver {
		return usageErrorf("choose --announce or --no-deliver, not both")
	}
	return nil
}

// isolatedLike reports whether a session target runs in its own session.
func isolatedLike(target string) bool { return target != "main" }

func runCronAdd(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw cron add [NAME] (--at WHEN | --every DUR | --cron EXPR) (--message TEXT | --system-event TEXT) [flags]\n"+
		"       openclaw cron add SCHEDULE MESSAGE --name NAME [flags]")
	g := fs.gatewayFlags()
	f := fs.cronJobFlags(false)
	disabled := fs.Bool("disabled", false, "create the job disabled")
	pos, err := fs.parse(args, 0, 2)
	if err != nil {
		return err
	}
	params, err := cronAddParams(fs, f, *disabled, pos, cronNow())
	if err != nil {
		return err
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "cron.add", adminScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return printCronSaved(a.stdout, "Added", out, "")
}

// cronAddParams builds cron.add params the way the real CLI does: the
// session target follows the payload unless --session says otherwise,
// and an isolated agent turn announces to the last chat by default.
func cronAddParams(fs *flagSet, f *cronJobFlags, disabled bool, pos []string, now time.Time) (map[string]any, error) {
	var nameArg, messageArg string
	if len(pos) > 0 {
		nameArg = strings.TrimSpace(pos[0])
	}
	if len(pos) > 1 {
		messageArg = strings.TrimSpace(pos[1])
	}
	hasScheduleFlag := fs.isSet("at") || fs.isSet("every") || fs.isSet("cron")
	positionalSchedule := ""
	if !hasScheduleFlag {
		positionalSchedule = nameArg
	}
	schedule, err := f.schedule(fs, positionalSchedule, now)
	if err != nil {
		return nil, err
	}
	if schedule == nil {
		return nil, usageErrorf("missing schedule: give --at, --every or --cron (usage: %s)", fs.usage)
	}
	p := map[string]any{"enabled": !disabled, "schedule": schedule, "wakeMode": "now"}
	if err := f.common(fs, p); err != nil {
		return nil, err
	}

	message, event := strings.TrimSpace(*f.message), strings.TrimSpace(*f.systemEvent)
	if message != "" && messageArg != "" && message != messageArg {
		return nil, usageErrorf("pass the message either as an argument or with --message, not both")
	}
	message = firstSet(message, messageArg)
	if (message == "") == (event == "") {
		return nil, usageErrorf("choose one payload: --message or --system-event")
	}
	timeout, hasTimeout, err := f.timeout(fs)
	if err != nil {
		return nil, err
	}
	var payload map[string]any
	if event != "" {
		if hasTimeout {
			return nil, usageErrorf("--timeout-seconds is not supported for --system-event jobs")
		}
		payload = map[string]any{"kind": "systemEvent", "text": event}
	} else {
		payload = map[string]any{"kind": "agentTurn", "message": message}
		f.agentFields(payload)
		if hasTimeout {
			payload["timeoutSeconds"] = timeout
		}
		if *f.lightContext {
			payload["lightContext"] = true
		}
	}
	p["payload"] = payload

	target := "main"
	if event == "" {
		target = "isolated"
	}
	if fs.isSet("session") {
		if target, err = cronSessionTarget(*f.session); err != nil {
			return nil, err
		}
	}
	p["sessionTarget"] = target
	switch {
	case target == "main" && event == "":
		return nil, usageErrorf("--session main needs --system-event; an agent --message runs in --session isolated")
	case isolatedLike(target) && event != "":
		return nil, usageErrorf("--session %s needs --message; a --system-event runs in --session main", target)
	case target == "main" && (*f.announce || *f.deliver || *f.noDeliver):
		return nil, usageErrorf("--announce and --no-deliver need an isolated --message job")
	case target == "main" && (fs.isSet("channel") || fs.isSet("to") || fs.isSet("account")):
		return nil, usageErrorf("--channel, --to and --account need an isolated --message job")
	}
	if isolatedLike(target) {
		mode := "announce"
		if *f.noDeliver {
			mode = "none"
		}
		d := map[string]any{"mode": mode, "channel": firstSet(strings.TrimSpace(*f.channel), "last")}
		setTrimmed(d, "to", *f.to)
		setTrimmed(d, "accountId", *f.account)
		if *f.bestEffort {
			d["bestEffort"] = true
		}
		p["delivery"] = d
	}

	name := strings.TrimSpace(*f.name)
	positionalName := ""
	if hasScheduleFlag {
		positionalName = nameArg
	}
	if name != "" && positionalName != "" && name != positionalName {
		return nil, usageErrorf("pass the name either as an argument or with --name, not both")
	}
	if name = firstSet(name, positionalName); name == "" {
		return nil, usageErrorf("a job name is required: pass it as the first argument or with --name")
	}
	p["name"] = name
	setTrimmed(p, "description", *f.description)
	return p, nil
}

// agentFields puts --model and --thinking into an agentTurn payload.
func (f *cronJobFlags) agentFields(payload map[string]any) {
	setTrimmed(payload, "model", *f.model)
	setTrimmed(payload, "thinking", *f.thinking)
}

// setTrimmed sets m[key] to v trimmed, unless that is empty.
func setTrimmed(m map[string]any, key, v string) {
	if v = strings.TrimSpace(v); v != "" {
		m[key] = v
	}
}

// cronEditFlags are the flags only edit has.
type cronEditFlags struct {
	enable, disable                                 *bool
	clearAgent, clearSessionKey, clearModel         *bool
	clearThinking, clearChannel, clearTo, clearAcct *bool
}

func runCronEdit(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw cron edit ID [job flags as for add] [--enable|--disable] [--clear-...] [gateway flags]")
	g := fs.gatewayFlags()
	f := fs.cronJobFlags(true)
	e := &cronEditFlags{
		enable:          fs.Bool("enable", false, "enable the job"),
		disable:         fs.Bool("disable", false, "disable the job"),
		clearAgent:      fs.Bool("clear-agent", false, "run with the default agent"),
		clearSessionKey: fs.Bool("clear-session-key", false, "unset the session key"),
		clearModel:      fs.Bool("clear-model", false, "unset the model override"),
		clearThinking:   fs.Bool("clear-thinking", false, "unset the thinking override"),
		clearChannel:    fs.Bool("clear-channel", false, "unset the delivery channel"),
		clearTo:         fs.Bool("clear-to", false, "unset the delivery destination"),
		clearAcct:       fs.Bool("clear-account", false, "unset the delivery account"),
	}
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	id := pos[0]
	// Catch bad flags before connecting; the patch is built again below
	// once the current job is known, if it is needed.
	if _, err := cronEditPatch(fs, f, e, nil, cronNow()); err != nil && !errors.Is(err, errNeedJob) {
		return err
	}
	scopes := adminScope
	needJob := cronEditNeedsJob(fs, f)
	if needJob {
		scopes = append(slices.Clone(adminScope), readScope...)
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(ctx, g, scopes)
	if err != nil {
		return err
	}
	defer s.Close()
	var current *cronJob
	if needJob {
		current = new(cronJob)
		if err := s.call(ctx, "cron.get", map[string]any{"id": id}, current, false); err != nil {
			return err
		}
	}
	patch, err := cronEditPatch(fs, f, e, current, cronNow())
	if err != nil {
		return err
	}
	params := map[string]any{"id": id, "patch": patch}
	if current != nil && current.ConfigRevision != "" {
		// Refuse the edit if someone changed the job since it was read.
		params["expectedConfigRevision"] = current.ConfigRevision
	}
	var out json.RawMessage
	if err := s.call(ctx, "cron.update", params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return printCronSaved(a.stdout, "Updated", out, id)
}

// errNeedJob means the patch depends on the job as it is now.
var errNeedJob = errors.New("the current job is needed")

// cronEditNeedsJob reports whether the patch depends on the current job:
// a new --cron keeps the job's time zone, --tz/--stagger/--exact alone
// change the job's cron schedule, and --timeout-seconds alone goes into
// the job's payload kind.
func cronEditNeedsJob(fs *flagSet, f *cronJobFlags) bool {
	direct := fs.isSet("at") || fs.isSet("every") || fs.isSet("cron")
	switch {
	case fs.isSet("cron") && !fs.isSet("tz"):
		return true
	case !direct && (fs.isSet("tz") || fs.isSet("stagger") || *f.exact):
		return true
	}
	return fs.isSet("timeout-seconds") && !f.agentTurnEdit(fs) && !fs.isSet("system-event")
}

// agentTurnEdit reports whether an agentTurn-only field is edited.
func (f *cronJobFlags) agentTurnEdit(fs *flagSet) bool {
	for _, n := range []string{"message", "light-context", "no-light-context", "clear-model", "clear-thinking"} {
		if fs.isSet(n) {
			return true
		}
	}
	return strings.TrimSpace(*f.model) != "" || strings.TrimSpace(*f.thinking) != ""
}

// cronEditPatch builds the cron.update patch from the flags given: only
// what they set. current is the job as it is, when cronEditNeedsJob; nil
// makes such a patch fail with errNeedJob.
func cronEditPatch(fs *flagSet, f *cronJobFlags, e *cronEditFlags, current *cronJob, now time.Time) (map[string]any, error) {
	p := map[string]any{}
	if fs.isSet("name") {
		p["name"] = *f.name
	}
	if fs.isSet("description") {
		p["description"] = *f.description
	}
	if *e.enable && *e.disable {
		return nil, usageErrorf("choose --enable or --disable, not both")
	}
	if *e.enable || *e.disable {
		p["enabled"] = *e.enable
	}
	if err := f.common(fs, p); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		set, clear bool
		flag, key  string
	}{
		{fs.isSet("agent"), *e.clearAgent, "agent", "agentId"},
		{fs.isSet("session-key"), *e.clearSessionKey, "session-key", "sessionKey"},
	} {
		if c.set && c.clear {
			return nil, usageErrorf("use --%s or --clear-%s, not both", c.flag, c.flag)
		}
		if c.clear {
			p[c.key] = nil
		}
	}
	var target string
	if fs.isSet("session") {
		var err error
		if target, err = cronSessionTarget(*f.session); err != nil {
			return nil, err
		}
		p["sessionTarget"] = target
	}
	if target == "main" && fs.isSet("message") {
		return nil, usageErrorf("--session main cannot take --message; use --system-event or --session isolated")
	}
	if target != "" && isolatedLike(target) && fs.isSet("system-event") {
		return nil, usageErrorf("--session %s cannot take --system-event; use --message or --session main", target)
	}

	schedule, err := f.schedule(fs, "", now)
	if err != nil {
		return nil, err
	}
	var staggerMs *int64
	if *f.exact {
		staggerMs = new(int64)
	} else if fs.isSet("stagger") {
		d, _ := parseCronDuration("--stagger", *f.stagger) // checked by schedule
		ms := d.Milliseconds()
		staggerMs = &ms
	}
	tz := strings.TrimSpace(*f.tz)
	switch {
	case schedule != nil && schedule["kind"] == "cron" && !fs.isSet("tz"):
		if current == nil {
			return nil, errNeedJob
		}
		if current.Schedule.Kind == "cron" && current.Schedule.Tz != "" {
			schedule["tz"] = current.Schedule.Tz
		}
	case schedule == nil && (fs.isSet("tz") || staggerMs != nil):
		if current == nil {
			return nil, errNeedJob
		}
		cur := current.Schedule
		if cur.Kind != "cron" {
			return nil, usageErrorf("--tz, --stagger and --exact alone change a cron schedule, and job %s is not one; give --cron", current.ID)
		}
		schedule = map[string]any{"kind": "cron", "expr": cur.Expr}
		if tz = firstSet(tz, cur.Tz); tz != "" {
			schedule["tz"] = tz
		}
		if staggerMs == nil {
			staggerMs = cur.StaggerMs
		}
		if staggerMs != nil {
			schedule["staggerMs"] = *staggerMs
		}
	}
	if schedule != nil {
		p["schedule"] = schedule
	}

	payload, err := f.payloadPatch(fs, e, current)
	if err != nil {
		return nil, err
	}
	if payload != nil {
		p["payload"] = payload
	}
	delivery, err := f.deliveryPatch(fs, e)
	if err != nil {
		return nil, err
	}
	if delivery != nil {
		p["delivery"] = delivery
	}
	if len(p) == 0 {
		return nil, usageErrorf("nothing to change: give at least one flag (usage: %s)", fs.usage)
	}
	return p, nil
}

// payloadPatch is the payload part of an edit: fields of one payload kind.
func (f *cronJobFlags) payloadPatch(fs *flagSet, e *cronEditFlags, current *cronJob) (map[string]any, error) {
	timeout, hasTimeout, err := f.timeout(fs)
	if err != nil {
		return nil, err
	}
	if fs.isSet("model") && *e.clearModel {
		return nil, usageErrorf("use --model or --clear-model, not both")
	}
	if fs.isSet("thinking") && *e.clearThinking {
		return nil, usageErrorf("use --thinking or --clear-thinking, not both")
	}
	if *f.lightContext && *f.noLightContext {
		return nil, usageErrorf("choose --light-context or --no-light-context, not both")
	}
	event, agent := fs.isSet("system-event"), f.agentTurnEdit(fs)
	switch {
	case event && agent:
		return nil, usageErrorf("choose at most one payload change: --system-event or the agent turn flags")
	case event && hasTimeout:
		return nil, usageErrorf("--timeout-seconds is not supported for --system-event jobs")
	case event:
		return map[string]any{"kind": "systemEvent", "text": *f.systemEvent}, nil
	case !agent && !hasTimeout:
		return nil, nil
	case !agent:
		if current == nil {
			return nil, errNeedJob
		}
		if k := current.Payload.Kind; k != "agentTurn" {
			return nil, usageErrorf("--timeout-seconds is not supported for %s jobs", orDash(k))
		}
	}
	payload := map[string]any{"kind": "agentTurn"}
	if fs.isSet("message") {
		payload["message"] = *f.message
	}
	f.agentFields(payload)
	if *e.clearModel {
		payload["model"] = nil
	}
	if *e.clearThinking {
		payload["thinking"] = nil
	}
	if hasTimeout {
		payload["timeoutSeconds"] = timeout
	}
	if *f.lightContext || *f.noLightContext {
		payload["lightContext"] = *f.lightContext
	}
	return payload, nil
}

// deliveryPatch is the delivery part of an edit; nil when no delivery
// flag is given.
func (f *cronJobFlags) deliveryPatch(fs *flagSet, e *cronEditFlags) (map[string]any, error) {
	if *f.bestEffort && *f.noBestEffort {
		return nil, usageErrorf("choose --best-effort-deliver or --no-best-effort-deliver, not both")
	}
	d := map[string]any{}
	switch {
	case *f.announce || *f.deliver:
		d["mode"] = "announce"
	case *f.noDeliver:
		d["mode"] = "none"
	case *f.bestEffort:
		// Best effort alone means delivering, as in the real CLI.
		d["mode"] = "announce"
	}
	for _, c := range []struct {
		flag, key string
		clear     bool
	}{
		{"channel", "channel", *e.clearChannel},
		{"to", "to", *e.clearTo},
		{"account", "accountId", *e.clearAcct},
	} {
		set := fs.isSet(c.flag)
		if set && c.clear {
			return nil, usageErrorf("use --%s or --clear-%s, not both", c.flag, c.flag)
		}
		if c.clear {
			d[c.key] = nil
		} else if set {
			setTrimmed(d, c.key, fs.Lookup(c.flag).Value.String())
		}
	}
	if *f.bestEffort || *f.noBestEffort {
		d["bestEffort"] = *f.bestEffort
	}
	if len(d) == 0 {
		return nil, nil
	}
	return d, nil
}

// cronJob is the part of a CronJob the CLI prints or edits from.
type cronJob struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	DisplayName     string `json:"displayName"`
	Description     string `json:"description"`
	AgentID         string `json:"agentId"`
	EffectiveAgent  string `json:"effectiveAgentId"`
	SessionKey      string `json:"sessionKey"`
	Enabled         *bool  `json:"enabled"`
	DeleteAfterRun  bool   `json:"deleteAfterRun"`
	SessionTarget   string `json:"sessionTarget"`
	WakeMode        string `json:"wakeMode"`
	CatchUp         string `json:"catchUp"`
	ConfigRevision  string `json:"configRevision"`
	TopNextRunAtMs  int64  `json:"nextRunAtMs"`
	TopLastRunAtMs  int64  `json:"lastRunAtMs"`
	TopLastRunState string `json:"lastRunStatus"`
	Schedule        struct {
		Kind      string `json:"kind"`
		At        string `json:"at"`
		EveryMs   int64  `json:"everyMs"`
		Expr      string `json:"expr"`
		Tz        string `json:"tz"`
		StaggerMs *int64 `json:"staggerMs"`
	} `json:"schedule"`
	Payload struct {
		Kind     string `json:"kind"`
		Message  string `json:"message"`
		Text     string `json:"text"`
		Model    string `json:"model"`
		Thinking string `json:"thinking"`
	} `json:"payload"`
	Delivery *struct {
		Mode      string `json:"mode"`
		Channel   string `json:"channel"`
		To        string `json:"to"`
		AccountID string `json:"accountId"`
	} `json:"delivery"`
	State struct {
		NextRunAtMs   int64  `json:"nextRunAtMs"`
		RunningAtMs   int64  `json:"runningAtMs"`
		LastRunAtMs   int64  `json:"lastRunAtMs"`
		LastRunStatus string `json:"lastRunStatus"`
		LastStatus    string `json:"lastStatus"`
		LastError     string `json:"lastError"`
	} `json:"state"`
}

func (j *cronJob) nextRunAtMs() int64 {
	if j.State.NextRunAtMs > 0 {
		return j.State.NextRunAtMs
	}
	return j.TopNextRunAtMs
}

func (j *cronJob) enabled() bool { return j.Enabled == nil || *j.Enabled }

// last is the outcome of the last run and when, e.g. "ok 5m ago".
func (j *cronJob) last(now time.Time) string {
	if j.State.RunningAtMs > 0 {
		return "running"
	}
	status := firstSet(j.State.LastRunStatus, j.State.LastStatus, j.TopLastRunState)
	at := j.State.LastRunAtMs
	if at == 0 {
		at = j.TopLastRunAtMs
	}
	if at == 0 {
		return orDash(status)
	}
	return strings.TrimSpace(status + " " + cronRelative(at, now))
}

// cronScheduleText prints a schedule as "at 2026-11-30 14:43Z",
// "every 10m" or "cron 0 9 * * * (Europe/Berlin)".
func (j *cronJob) scheduleText() string {
	s := j.Schedule
	switch s.Kind {
	case "at":
		if t, err := time.Parse(time.RFC3339, s.At); err == nil {
			return "at " + t.UTC().Format("2006-01-02 15:04Z")
		}
		return "at " + s.At
	case "every":
		return "every " + cronEvery(s.EveryMs)
	case "cron":
		var notes []string
		if s.Tz != "" {
			notes = append(notes, s.Tz)
		}
		switch {
		case s.StaggerMs == nil:
		case *s.StaggerMs == 0:
			notes = append(notes, "exact")
		default:
			notes = append(notes, "stagger "+cronEvery(*s.StaggerMs))
		}
		return strings.TrimSpace("cron " + s.Expr + " " + parens(strings.Join(notes, ", ")))
	}
	return orDash(s.Kind)
}

// deliveryText prints where a job's output goes, e.g. "announce -> telegram:123".
func (j *cronJob) deliveryText() string {
	d := j.Delivery
	if d == nil || d.Mode == "" {
		return "-"
	}
	if d.Mode == "none" {
		return "none"
	}
	dest := firstSet(d.Channel, "last")
	if d.To != "" {
		dest += ":" + d.To
	}
	if d.AccountID != "" {
		dest += " (account " + d.AccountID + ")"
	}
	return d.Mode + " -> " + dest
}

// cronRunEntry is one CronRunLogEntry.
type cronRunEntry struct {
	Ts               int64  `json:"ts"`
	RunAtMs          int64  `json:"runAtMs"`
	JobID            string `json:"jobId"`
	JobName          string `json:"jobName"`
	RunID            string `json:"runId"`
	Status           string `json:"status"`
	CompletionStatus string `json:"completionStatus"`
	Error            string `json:"error"`
	Summary          string `json:"summary"`
	Delivered        *bool  `json:"delivered"`
	DeliveryStatus   string `json:"deliveryStatus"`
	DurationMs       int64  `json:"durationMs"`

	raw json.RawMessage
}

// formatCronList prints jobs as a table.
func formatCronList(w io.Writer, jobs []cronJob, now time.Time) error {
	if len(jobs) == 0 {
		fmt.Fprintln(w, "No cron jobs.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSCHEDULE\tNEXT\tLAST\tENABLED\tTARGET\tAGENT")
	for _, j := range jobs {
		next := "-"
		if j.enabled() && j.nextRunAtMs() > 0 {
			next = cronRelative(j.nextRunAtMs(), now)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, orDash(cronCell(firstSet(j.DisplayName, j.Name), 28)),
			cronCell(j.scheduleText(), 40), next, j.last(now), yesNo(j.enabled()), orDash(j.SessionTarget),
			orDash(firstSet(j.AgentID, j.EffectiveAgent)))
	}
	return tw.Flush()
}

// formatCronJob prints one job as "label: value" lines.
func formatCronJob(w io.Writer, j cronJob, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	line("ID", j.ID)
	line("Name", orDash(j.Name))
	if j.DisplayName != "" {
		line("Display name", j.DisplayName)
	}
	if j.Description != "" {
		line("Description", j.Description)
	}
	line("Enabled", yesNo(j.enabled()))
	line("Schedule", j.scheduleText())
	session := orDash(j.SessionTarget)
	if j.SessionKey != "" {
		session += " (key " + j.SessionKey + ")"
	}
	line("Session", session)
	line("Wake", orDash(j.WakeMode))
	line("Agent", orDash(firstSet(j.AgentID, j.EffectiveAgent)))
	switch j.Payload.Kind {
	case "agentTurn":
		line("Message", j.Payload.Message)
		if j.Payload.Model != "" {
			line("Model", j.Payload.Model)
		}
		if j.Payload.Thinking != "" {
			line("Thinking", j.Payload.Thinking)
		}
	case "systemEvent":
		line("System event", j.Payload.Text)
	default:
		line("Payload", orDash(j.Payload.Kind))
	}
	line("Delivery", j.deliveryText())
	if j.DeleteAfterRun {
		line("After run", "delete")
	}
	if j.CatchUp != "" {
		line("Catch-up", j.CatchUp)
	}
	line("Next", cronWhen(j.nextRunAtMs(), now))
	line("Last", j.last(now))
	if j.State.LastError != "" {
		line("Last error", j.State.LastError)
	}
	return tw.Flush()
}

// formatCronRuns prints run log entries as a table.
func formatCronRuns(w io.Writer, entries []cronRunEntry) error {
	if len(entries) == 0 {
		fmt.Fprintln(w, "No runs.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tJOB\tSTATUS\tDURATION\tDELIVERY\tSUMMARY")
	for _, e := range entries {
		at := e.RunAtMs
		if at == 0 {
			at = e.Ts
		}
		delivery := e.DeliveryStatus
		if delivery == "" && e.Delivered != nil {
			delivery = map[bool]string{true: "delivered", false: "not-delivered"}[*e.Delivered]
		}
		text := e.Summary
		if e.Error != "" {
			text = "error: " + e.Error
		}
		dur := "-"
		if e.DurationMs > 0 {
			dur = cronDuration(e.DurationMs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", msTime(at), orDash(firstSet(e.JobName, e.JobID)),
			orDash(e.Status), dur, orDash(delivery), orDash(cronCell(text, 60)))
	}
	return tw.Flush()
}

// formatCronStatus prints cron.status as "label: value" lines.
func formatCronStatus(w io.Writer, raw json.RawMessage) error {
	var s struct {
		Enabled         *bool  `json:"enabled"`
		TriggersEnabled *bool  `json:"triggersEnabled"`
		Jobs            *int   `json:"jobs"`
		NextWakeAtMs    int64  `json:"nextWakeAtMs"`
		StorePath       string `json:"storePath"`
		Storage         string `json:"storage"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("decode cron status: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	if s.Enabled != nil {
		line("Scheduler", map[bool]string{true: "enabled", false: "disabled (cron.enabled is false; no job runs)"}[*s.Enabled])
	}
	if s.TriggersEnabled != nil && !*s.TriggersEnabled {
		line("Triggers", "disabled")
	}
	if s.Jobs != nil {
		line("Jobs", strconv.Itoa(*s.Jobs))
	}
	line("Next wake", cronWhen(s.NextWakeAtMs, cronNow()))
	if s.StorePath != "" {
		line("Store", strings.TrimSpace(s.StorePath+" "+parens(s.Storage)))
	}
	return tw.Flush()
}

// cronWhen prints a time as "in 20m (2026-11-30 14:43:54Z)", or "-".
func cronWhen(ms int64, now time.Time) string {
	if ms <= 0 {
		return "-"
	}
	return cronRelative(ms, now) + " (" + msTime(ms) + ")"
}

// cronRelative prints a time relative to now in its largest unit,
// rounded: "in 10m", "in 36d", "5m ago".
func cronRelative(ms int64, now time.Time) string {
	d := time.UnixMilli(ms).Sub(now)
	ago := d < 0
	if ago {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d.Round(time.Minute)/time.Minute))
	case d < 24*time.Hour:
		s = fmt.Sprintf("%dh", int(d.Round(time.Hour)/time.Hour))
	default:
		s = fmt.Sprintf("%dd", int(d.Round(24*time.Hour)/(24*time.Hour)))
	}
	if ago {
		return s + " ago"
	}
	return "in " + s
}

// cronEvery prints an interval in the units it was likely written in:
// 600000 as 10m, 5400000 as 1h30m, 1500 as 1500ms.
func cronEvery(ms int64) string {
	const day = 24 * time.Hour
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms <= 0:
		return "-"
	case d%time.Second != 0:
		return strconv.FormatInt(ms, 10) + "ms"
	case d%day == 0:
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	var b strings.Builder
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{day, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.unit; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d -= n * u.unit
		}
	}
	return b.String()
}

// cronDuration prints how long a run took: 850ms, 12.3s, 2m5s.
func cronDuration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return strconv.FormatInt(ms, 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Round(time.Second).String()
}

// cronCell puts text on one line and cuts it to max runes.
func cronCell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
