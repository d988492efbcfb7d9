package main

import (
	"context"
	"encoding/json"
)

// statusParams are the params the real CLI sends with status.
var statusParams = map[string]any{"includeChannelSummary": false, "includeCliProjection": true}

// runHealth serves `openclaw health [--json]`.
func runHealth(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw health [gateway flags]")
	g := fs.gatewayFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	var out json.RawMessage
	// Like the real CLI, health is sent without params.
	if err := a.callOnce(ctx, g, "health", scopesFor("health"), nil, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return formatHealth(a.stdout, out)
}

// runStatus serves `openclaw status [--json]`.
func runStatus(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw status [gateway flags]")
	g := fs.gatewayFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "status", scopesFor("status"), statusParams, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return formatStatus(a.stdout, out)
}
