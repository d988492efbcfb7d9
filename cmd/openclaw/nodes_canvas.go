package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// runNodesCanvas serves `openclaw nodes canvas present|hide|navigate|eval|snapshot|a2ui push|a2ui reset`.
// Each goes through the gateway's canvas tool (tools.invoke), so --node
// names a canvas node and without it the gateway picks the only
// connected canvas node or its built-in renderer.
func runNodesCanvas(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("nodes canvas", args, map[string]func(context.Context, *app, []string) error{
		"present":  canvasAction("present", "url", "[URL]"),
		"hide":     canvasAction("hide", "", ""),
		"navigate": canvasAction("navigate", "url", "URL"),
		"eval":     canvasAction("eval", "javaScript", "JS"),
		"snapshot": canvasAction("snapshot", "", ""),
		"a2ui":     runCanvasA2UI,
	})
	if err != nil {
		return err
	}
	a.cmd = "nodes canvas " + args[0]
	return sub(ctx, a, rest)
}

func runCanvasA2UI(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("nodes canvas a2ui", args, map[string]func(context.Context, *app, []string) error{
		"push":  runCanvasPush,
		"reset": canvasAction("a2ui_reset", "", ""),
	})
	if err != nil {
		return err
	}
	a.cmd = "nodes canvas a2ui " + args[0]
	return sub(ctx, a, rest)
}

// canvasAction builds a subcommand taking one optional or required
// positional argument sent as field.
func canvasAction(action, field, arg string) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		fs := newFlagSet(a, strings.TrimSpace("openclaw "+a.cmd+" "+arg)+" [--node NODE] [gateway flags]")
		g := fs.gatewayFlags()
		node := fs.String("node", "", "the canvas node (default: the only connected one, else the gateway's built-in canvas)")
		minArgs, maxArgs := 0, 0
		if field != "" {
			maxArgs = 1
			if !strings.HasPrefix(arg, "[") {
				minArgs = 1
			}
		}
		pos, err := fs.parse(args, minArgs, maxArgs)
		if err != nil {
			return err
		}
		params := map[string]any{"action": action}
		if len(pos) == 1 {
			params[field] = pos[0]
		}
		return invokeCanvas(ctx, a, g, *node, params)
	}
}

func runCanvasPush(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw nodes canvas a2ui push (--text TEXT | --jsonl FILE) [--node NODE] [gateway flags]")
	g := fs.gatewayFlags()
	node := fs.String("node", "", "the canvas node (default: the only connected one, else the gateway's built-in canvas)")
	text := fs.String("text", "", "show this text as a one-component surface")
	file := fs.String("jsonl", "", "A2UI v0.8 JSONL file to push (- for stdin)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	params := map[string]any{"action": "a2ui_push"}
	switch {
	case *text != "" && *file != "":
		return usageErrorf("--text or --jsonl, not both")
	case *text != "":
		params["text"] = *text
	case *file != "":
		var b []byte
		var err error
		if *file == "-" {
			// The canvas takes at most 1 MiB of JSONL; one byte more
			// lets the gateway say it is too long.
			b, err = io.ReadAll(io.LimitReader(a.stdin, 1<<20+1))
		} else {
			b, err = os.ReadFile(*file)
		}
		if err != nil {
			return fmt.Errorf("--jsonl: %w", err)
		}
		params["jsonl"] = string(b)
	default:
		return usageErrorf("--text or --jsonl is required")
	}
	return invokeCanvas(ctx, a, g, *node, params)
}

// invokeCanvas runs the canvas tool and prints its answer.
func invokeCanvas(ctx context.Context, a *app, g *gatewayFlags, node string, params map[string]any) error {
	if node != "" {
		params["node"] = node
	}
	var out struct {
		OK     bool   `json:"ok"`
		Output string `json:"output"`
	}
	var raw json.RawMessage
	const method = "tools.invoke"
	if err := a.callOnce(ctx, g, method, writeScope, map[string]any{"name": "canvas", "args": params}, &raw, false); err != nil { // the canvas needs no owner
		return err
	}
	if g.json {
		return writeJSON(a.stdout, raw)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("tools.invoke answer: %w", err)
	}
	if !out.OK {
		return errors.New(out.Output)
	}
	fmt.Fprintln(a.stdout, out.Output)
	return nil
}
