package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// runSystem serves `openclaw system presence|event|heartbeat ...`.
func runSystem(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("system", args, map[string]func(context.Context, *app, []string) error{
		"presence":  runSystemPresence,
		"event":     runSystemEvent,
		"heartbeat": runSystemHeartbeat,
	})
	if err != nil {
		return err
	}
	a.cmd = "system " + args[0]
	return sub(ctx, a, rest)
}

func runSystemPresence(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw system presence [gateway flags]")
	g := fs.gatewayFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	var out json.RawMessage
	const method = "system-presence"
	if err := a.callOnce(ctx, g, method, scopesFor(method), map[string]any{}, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return formatPresence(a.stdout, out)
}

// runSystemEvent serves `openclaw system event --text T [--mode now|next-heartbeat]`:
// a note into an agent's main session (wake), acted on at once with
// --mode now, else at the next heartbeat.
func runSystemEvent(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw system event --text TEXT [--mode now|next-heartbeat] [--session-key KEY] [--agent ID] [gateway flags]")
	g := fs.gatewayFlags()
	text := fs.String("text", "", "the system event text")
	mode := fs.String("mode", "next-heartbeat", "now (run a heartbeat at once) or next-heartbeat")
	key := fs.String("session-key", "", "the session to put it in (default: the agent's main session)")
	agent := fs.String("agent", "", "the agent (default: the session's, else the default agent)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if strings.TrimSpace(*text) == "" {
		return usageErrorf("--text is required")
	}
	if *mode != "now" && *mode != "next-heartbeat" {
		return usageErrorf("--mode must be now or next-heartbeat, not %q", *mode)
	}
	params := map[string]any{"mode": *mode, "text": *text}
	if *key != "" {
		params["sessionKey"] = *key
	}
	if *agent != "" {
		params["agentId"] = strings.ToLower(*agent)
	}
	var out json.RawMessage
	const method = "wake"
	if err := a.callOnce(ctx, g, method, scopesFor(method), params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	if *mode == "now" {
		fmt.Fprintln(a.stdout, "Queued; a heartbeat runs now.")
	} else {
		fmt.Fprintln(a.stdout, "Queued for the next heartbeat.")
	}
	return nil
}

// runSystemHeartbeat serves `openclaw system heartbeat last|enable|disable`.
func runSystemHeartbeat(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("system heartbeat", args, map[string]func(context.Context, *app, []string) error{
		"last":    runHeartbeatLast,
		"enable":  runHeartbeatSwitch(true),
		"disable": runHeartbeatSwitch(false),
	})
	if err != nil {
		return err
	}
	a.cmd = "system heartbeat " + args[0]
	return sub(ctx, a, rest)
}

func runHeartbeatLast(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw system heartbeat last [gateway flags]")
	g := fs.gatewayFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	var out json.RawMessage
	const method = "last-heartbeat"
	if err := a.callOnce(ctx, g, method, scopesFor(method), map[string]any{}, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	var ev struct {
		TS         int64  `json:"ts"`
		AgentID    string `json:"agentId"`
		Status     string `json:"status"`
		Reason     string `json:"reason"`
		Trigger    string `json:"trigger"`
		Preview    string `json:"preview"`
		DurationMs int64  `json:"durationMs"`
		Channel    string `json:"channel"`
		To         string `json:"to"`
	}
	if string(out) == "null" || len(out) == 0 {
		fmt.Fprintln(a.stdout, "No heartbeat has run since the gateway started.")
		return nil
	}
	if err := json.Unmarshal(out, &ev); err != nil {
		return fmt.Errorf("last-heartbeat answer: %w", err)
	}
	fmt.Fprintf(a.stdout, "%s  agent %s  %s", time.UnixMilli(ev.TS).Format(time.DateTime), ev.AgentID, ev.Status)
	if ev.Reason != "" {
		fmt.Fprintf(a.stdout, " (%s)", ev.Reason)
	}
	fmt.Fprintf(a.stdout, "  %s", cronDuration(ev.DurationMs))
	if ev.Trigger != "" {
		fmt.Fprintf(a.stdout, "  trigger %s", ev.Trigger)
	}
	if ev.Channel != "" {
		fmt.Fprintf(a.stdout, "  to %s %s", ev.Channel, ev.To)
	}
	fmt.Fprintln(a.stdout)
	if ev.Preview != "" {
		fmt.Fprintf(a.stdout, "  %s\n", cronCell(ev.Preview, 200))
	}
	return nil
}

func runHeartbeatSwitch(enabled bool) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		fs := newFlagSet(a, "openclaw "+a.cmd+" [gateway flags]")
		g := fs.gatewayFlags()
		if _, err := fs.parse(args, 0, 0); err != nil {
			return err
		}
		var out json.RawMessage
		const method = "set-heartbeats"
		if err := a.callOnce(ctx, g, method, scopesFor(method), map[string]any{"enabled": enabled}, &out, false); err != nil {
			return err
		}
		if g.json {
			return writeJSON(a.stdout, out)
		}
		if enabled {
			fmt.Fprintln(a.stdout, "Heartbeats enabled.")
		} else {
			fmt.Fprintln(a.stdout, "Heartbeats disabled until enabled again or the gateway restarts.")
		}
		return nil
	}
}
