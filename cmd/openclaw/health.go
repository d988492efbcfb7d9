package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// statusParams are the params status is sent with. Unlike the real CLI's
// online status (which leaves channels to `channels status`), ours asks
// for the channel summary so the channels line is the gateway's.
var statusParams = map[string]any{"includeCliProjection": true}

// runHealth serves `openclaw health [--verbose] [--json]` and `openclaw
// gateway health`. --verbose (or --debug) asks the gateway for a live
// probe instead of its cached snapshot and prints where the CLI connected
// (to stderr, so --json stays one document); the JSON is the snapshot
// unchanged either way.
func runHealth(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw health [--verbose] [gateway flags]")
	g := fs.gatewayFlags()
	if a.cmd == "gateway health" {
		g.addPortFlag(fs.FlagSet)
	}
	verbose := fs.Bool("verbose", false, "force a live probe of every channel account and show the connection")
	debug := fs.Bool("debug", false, "alias for --verbose")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	*verbose = *verbose || *debug
	// Like the real CLI, health is sent without params unless it must
	// probe.
	var params any
	if *verbose {
		params = map[string]any{"probe": true}
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(ctx, g, scopesFor("health"))
	if err != nil {
		return err
	}
	defer s.Close()
	var out json.RawMessage
	if err := s.call(ctx, "health", params, &out, false); err != nil {
		return err
	}
	if *verbose {
		fmt.Fprintf(a.stderr, "Gateway target: %s (live probe)\n", s.target)
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	if err := formatHealth(a.stdout, out); err != nil {
		return err
	}
	if *verbose {
		return formatHealthSessions(a.stdout, out)
	}
	return nil
}

// formatHealthSessions prints, for --verbose, every agent's recent
// sessions with their age on the gateway's clock.
func formatHealthSessions(w io.Writer, raw json.RawMessage) error {
	var h struct {
		Agents []struct {
			AgentID  string `json:"agentId"`
			Sessions *struct {
				Path   string `json:"path"`
				Recent []struct {
					Key   string `json:"key"`
					AgeMs int64  `json:"age"`
				} `json:"recent"`
			} `json:"sessions"`
		} `json:"agents"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("decode health: %w", err)
	}
	for _, ag := range h.Agents {
		if ag.Sessions == nil {
			continue
		}
		fmt.Fprintf(w, "Sessions of %s (%s):\n", ag.AgentID, orDash(ag.Sessions.Path))
		if len(ag.Sessions.Recent) == 0 {
			fmt.Fprintln(w, "  none")
		}
		for _, r := range ag.Sessions.Recent {
			fmt.Fprintf(w, "  %s  %s ago\n", r.Key, (time.Duration(r.AgeMs) * time.Millisecond).Round(time.Second))
		}
	}
	return nil
}
