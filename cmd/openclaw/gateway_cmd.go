package main

import (
	"context"
	"encoding/json"
	"strings"
)

// gatewaySubcommands are the `openclaw gateway` subcommands besides
// running the gateway itself.
var gatewaySubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"run": func(ctx context.Context, a *app, args []string) error {
		return runGateway(ctx, a, withDev(a, args))
	},
	"call":   runGatewayCall,
	"health": runHealth,
}

// runGatewayGroup serves `openclaw gateway [run] [flags]` and
// `openclaw gateway call|health ...`.
func runGatewayGroup(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		a.cmd = "gateway run"
		return runGateway(ctx, a, withDev(a, args))
	}
	sub, rest, err := subcommand("gateway", args, gatewaySubcommands)
	if err != nil {
		return err
	}
	a.cmd = "gateway " + args[0]
	return sub(ctx, a, rest)
}

// withDev passes a global --dev (openclaw --dev gateway) on to the
// gateway's own flags.
func withDev(a *app, args []string) []string {
	if !a.dev {
		return args
	}
	return append([]string{"--dev"}, args...)
}

// runGatewayCall serves `openclaw gateway call METHOD [--params JSON]
// [--expect-final]`. It asks only for the scope the method needs, and
// prints the response payload as JSON.
func runGatewayCall(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw gateway call METHOD [--params JSON] [--expect-final] [--port PORT] [gateway flags]")
	g := fs.gatewayFlags()
	g.addPortFlag(fs.FlagSet)
	params := fs.String("params", "{}", "request params as a JSON `object`")
	final := fs.Bool("expect-final", false, "wait for the final answer of a two-stage method (agent)")
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	method := pos[0]
	raw := json.RawMessage(strings.TrimSpace(*params))
	if !json.Valid(raw) {
		return usageErrorf("--params is not valid JSON")
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, method, scopesFor(method), raw, &out, *final); err != nil {
		return err
	}
	if out == nil {
		out = json.RawMessage("null")
	}
	return writeJSON(a.stdout, out)
}
