package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// logsMaxBytes is the maxBytes the real CLI sends with logs.tail.
const logsMaxBytes = 250_000

// logsTimeoutMs is the real CLI's --timeout default for logs.
const logsTimeoutMs = 30_000

// logsTailResult is the part of a logs.tail result the CLI reads.
type logsTailResult struct {
	File         string   `json:"file"`
	Cursor       int64    `json:"cursor"`
	Size         int64    `json:"size"`
	Lines        []string `json:"lines"`
	Truncated    bool     `json:"truncated"`
	Reset        bool     `json:"reset"`
	SkippedBytes int64    `json:"skippedBytes"`
}

// logsView is how text mode renders a line.
type logsView struct {
	loc   *time.Location // --utc: UTC; default and --local-time: local
	plain bool           // --plain: "time level subsystem message", full timestamps
}

// runLogs serves `openclaw logs [--limit N] [--max-bytes N] [--follow]
// [--utc|--local-time] [--plain] [--json]`.
//
// Without --follow it prints the last lines once. With --follow it keeps
// one connection and polls logs.tail with the returned cursor every
// --interval until interrupted. With --json each poll's result is printed
// as one JSON line (a single indented object without --follow).
func runLogs(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw logs [--limit N] [--max-bytes N] [--follow] [--interval MS] [--utc|--local-time] [--plain] [gateway flags]")
	g := fs.gatewayFlags()
	g.addPortFlag(fs.FlagSet)
	limit := fs.Int("limit", 200, "max lines to return (1-5000)")
	maxBytes := fs.Int("max-bytes", logsMaxBytes, "max bytes to read from the log file (1-1000000)")
	follow := fs.Bool("follow", false, "keep printing new lines until interrupted")
	intervalMs := fs.Int("interval", 1000, "poll interval in `ms` with --follow")
	utc := fs.Bool("utc", false, "show timestamps in UTC")
	// As the real CLI, --utc wins when both are given.
	fs.Bool("local-time", false, "show timestamps in the local time zone (the default)")
	plain := fs.Bool("plain", false, "plain text: full timestamp, level, subsystem and message, no column padding or attributes")
	fs.Bool("expect-final", false, "accepted for compatibility: logs.tail answers at once")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if *limit < 1 || *limit > 5000 {
		return usageErrorf("--limit must be between 1 and 5000")
	}
	if *maxBytes < 1 || *maxBytes > 1_000_000 {
		return usageErrorf("--max-bytes must be between 1 and 1000000")
	}
	if *intervalMs < 1 {
		return usageErrorf("--interval must be positive")
	}
	view := logsView{loc: time.Local, plain: *plain}
	if *utc {
		view.loc = time.UTC
	}
	if !fs.Changed("timeout") {
		// As the real CLI, logs waits longer than other calls: a tail of
		// a large file takes time.
		g.timeoutMs = logsTimeoutMs
	}

	dialCtx, cancel := context.WithTimeout(ctx, g.timeout())
	s, err := a.connect(dialCtx, g, scopesFor("logs.tail"))
	cancel()
	if err != nil {
		return err
	}
	defer s.Close()

	params := map[string]any{"limit": *limit, "maxBytes": *maxBytes}
	tick := time.NewTicker(time.Duration(*intervalMs) * time.Millisecond)
	defer tick.Stop()
	for first := true; ; first = false {
		raw, res, err := s.tail(ctx, params)
		if err != nil {
			if *follow && ctx.Err() != nil {
				return nil // interrupted
			}
			return err
		}
		if err := a.printLogs(raw, res, view, g.json, *follow, first); err != nil {
			return err
		}
		if !*follow {
			return nil
		}
		params["cursor"] = res.Cursor
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// tail runs one logs.tail call within --timeout.
func (s *session) tail(ctx context.Context, params map[string]any) (json.RawMessage, logsTailResult, error) {
	var raw json.RawMessage
	var res logsTailResult
	callCtx, cancel := context.WithTimeout(ctx, s.flags.timeout())
	defer cancel()
	if err := s.call(callCtx, "logs.tail", params, &raw, false); err != nil {
		if ctx.Err() != nil {
			return nil, res, ctx.Err()
		}
		return nil, res, err
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, res, fmt.Errorf("decode logs.tail result: %w", err)
	}
	return raw, res, nil
}

// printLogs prints one poll. Text mode shows each JSON log line as
// "time level subsystem: message attrs"; other lines as they are. JSON
// mode writes JSON lines as OpenClaw's CLI does: a meta line, one line per
// log entry, and a notice when the tail was cut. Notices about rotation
// and skipped bytes go to stderr so stdout holds only log lines.
func (a *app) printLogs(raw json.RawMessage, res logsTailResult, view logsView, asJSON, follow, first bool) error {
	if asJSON {
		if first || res.Reset {
			if err := writeJSONLine(a.stdout, map[string]any{"type": "meta", "file": res.File, "sourceKind": "file", "cursor": res.Cursor, "size": res.Size}); err != nil {
				return err
			}
		}
		for _, line := range res.Lines {
			entry := parseLogLine(line)
			entry["type"] = "log"
			if err := writeJSONLine(a.stdout, entry); err != nil {
				return err
			}
		}
		if res.Truncated && !follow {
			return writeJSONLine(a.stdout, map[string]any{"type": "notice", "message": "Log tail truncated (increase --limit or --max-bytes)."})
		}
		return nil
	}
	if first && follow && res.File != "" {
		fmt.Fprintf(a.stderr, "Following %s (Ctrl-C to stop)\n", res.File)
	}
	if res.Reset && !first {
		fmt.Fprintln(a.stderr, "-- log file was rotated or truncated --")
	}
	if res.SkippedBytes > 0 {
		fmt.Fprintf(a.stderr, "-- skipped %d bytes --\n", res.SkippedBytes)
	}
	for _, line := range res.Lines {
		if view.plain {
			line = formatPlainLogLine(line, view.loc)
		} else {
			line = formatLogLine(line, view.loc)
		}
		if _, err := fmt.Fprintln(a.stdout, line); err != nil {
			return fmt.Errorf("write log line: %w", err)
		}
	}
	return nil
}

// logFields are the keys of a gateway log line shown in the prefix.
var logFields = []string{"time", "level", "subsystem", "message"}

// parseLogLine reads a JSON log line into time, level, subsystem,
// message and raw; a line that is not a JSON object keeps only raw.
func parseLogLine(line string) map[string]any {
	out := map[string]any{"raw": line}
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		out["message"] = line
		return out
	}
	for _, k := range logFields {
		if v, ok := m[k].(string); ok {
			out[k] = v
		}
	}
	if lvl, ok := out["level"].(string); ok {
		out["level"] = strings.ToLower(lvl)
	}
	return out
}

// formatLogLine renders a JSON log line for people, its time in loc;
// other lines pass through unchanged.
func formatLogLine(line string, loc *time.Location) string {
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		return line
	}
	str := func(k string) string { v, _ := m[k].(string); return v }
	var b strings.Builder
	if t, err := time.Parse(time.RFC3339Nano, str("time")); err == nil {
		b.WriteString(t.In(loc).Format("15:04:05.000"))
	} else {
		b.WriteString(str("time"))
	}
	fmt.Fprintf(&b, " %-5s ", strings.ToLower(str("level")))
	if sub := str("subsystem"); sub != "" {
		b.WriteString(sub + ": ")
	}
	b.WriteString(str("message"))
	keys := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(logFields, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := json.Marshal(m[k])
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, " %s=%s", k, v)
	}
	return b.String()
}

// formatPlainLogLine renders a JSON log line as the real CLI's --plain
// does: full timestamp (ISO 8601 in UTC, with the offset in local time),
// level, subsystem and message separated by spaces. Other lines pass
// through unchanged.
func formatPlainLogLine(line string, loc *time.Location) string {
	var obj map[string]any
	if json.Unmarshal([]byte(line), &obj) != nil {
		return line
	}
	m := parseLogLine(line)
	str := func(k string) string { v, _ := m[k].(string); return v }
	ts := str("time")
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		if loc == time.UTC {
			ts = t.UTC().Format("2006-01-02T15:04:05.000Z")
		} else {
			ts = t.In(loc).Format("2006-01-02T15:04:05.000-07:00")
		}
	}
	var parts []string
	for _, p := range []string{ts, str("level"), str("subsystem"), str("message")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}
