package main

import (
	"context"
	"encoding/json"
)

// statusParams are the params status is sent with. Unlike the real CLI's
// online status (which leaves channels to `channels status`), ours asks
// for the channel summary so the channels line is the gateway's.
var statusParams = map[string]any{"includeCliProjection": true}

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
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(ctx, g, scopesFor("status"))
	if err != nil {
		return err
	}
	defer s.Close()
	var out json.RawMessage
	if err := s.call(ctx, "status", statusParams, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	// The gateway does not know the address the CLI reached it by.
	return formatStatus(a.stdout, out, s.target.url)
}
