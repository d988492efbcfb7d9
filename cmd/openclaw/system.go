package main

import (
	"context"
	"encoding/json"
)

// runSystem serves `openclaw system presence [--json]`.
func runSystem(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("system", args, map[string]func(context.Context, *app, []string) error{
		"presence": runSystemPresence,
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
