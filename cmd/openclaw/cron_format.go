package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

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
	status := cmp.Or(j.State.LastRunStatus, j.State.LastStatus, j.TopLastRunState)
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
	dest := cmp.Or(d.Channel, "last")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, orDash(cronCell(cmp.Or(j.DisplayName, j.Name), 28)),
			cronCell(j.scheduleText(), 40), next, j.last(now), yesNo(j.enabled()), orDash(j.SessionTarget),
			orDash(cmp.Or(j.AgentID, j.EffectiveAgent)))
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
	line("Agent", orDash(cmp.Or(j.AgentID, j.EffectiveAgent)))
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", msTime(at), orDash(cmp.Or(e.JobName, e.JobID)),
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
