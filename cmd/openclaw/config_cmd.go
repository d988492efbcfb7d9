package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// The config commands work on the local file directly, like the real CLI;
// no gateway is needed. A running gateway picks edits up by hot reload.

var configSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"get":      runConfigGet,
	"set":      runConfigSet,
	"unset":    runConfigUnset,
	"validate": runConfigValidate,
	"schema":   runConfigSchema,
	"file":     runConfigFile,
}

// runConfig serves `openclaw config get|set|unset|validate|schema|file`.
func runConfig(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("config", args, configSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "config " + args[0]
	return sub(ctx, a, rest)
}

// configFlags are the flags every config subcommand has.
type configFlags struct {
	dev  bool
	json bool
}

func (fs *flagSet) configFlags() *configFlags {
	f := &configFlags{}
	fs.BoolVar(&f.dev, "dev", fs.app.dev, "use the dev profile (~/.openclaw-dev)")
	fs.BoolVar(&f.json, "json", false, "print machine-readable JSON")
	return f
}

// loadConfig loads the config file for reading. A file with errors still
// gives its tree (with a warning on stderr) when it could be parsed.
func (a *app) loadConfig(dev bool) (config.Paths, *config.Snapshot, error) {
	paths, err := cliPaths(dev)
	if err != nil {
		return paths, nil, err
	}
	snap, err := config.Load(paths.ConfigPath, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
	var lerr *config.LoadError
	switch {
	case err == nil:
	case errors.As(err, &lerr) && snap != nil && snap.Tree != nil:
		fmt.Fprintf(a.stderr, "warning: %s has %d error(s); run `openclaw config validate`\n",
			paths.ConfigPath, len(lerr.Issues))
	default:
		return paths, nil, err
	}
	return paths, snap, nil
}

func runConfigGet(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw config get [PATH] [--json]")
	f := fs.configFlags()
	pos, err := fs.parse(args, 0, 1)
	if err != nil {
		return err
	}
	_, snap, err := a.loadConfig(f.dev)
	if err != nil {
		return err
	}
	var v any = config.Redact(snap.Tree)
	if len(pos) == 1 {
		segs, err := config.ParsePath(pos[0])
		if err != nil {
			return usageErrorf("%v", err)
		}
		var ok bool
		if v, ok = lookupPath(v, segs); !ok {
			return fmt.Errorf("no value at %s", pos[0])
		}
	}
	if f.json {
		return writeJSON(a.stdout, v)
	}
	switch x := v.(type) {
	case string:
		_, err = fmt.Fprintln(a.stdout, x)
	case map[string]any, []any:
		err = writeJSON(a.stdout, x)
	default:
		b, _ := json.Marshal(x)
		_, err = fmt.Fprintln(a.stdout, string(b))
	}
	return err
}

// lookupPath walks a JSON tree along ParsePath segments.
func lookupPath(v any, segs []string) (any, bool) {
	for _, s := range segs {
		switch node := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = node[s]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
			if err != nil || !strings.HasPrefix(s, "[") || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func runConfigSet(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw config set PATH VALUE [--strict-json]")
	f := fs.configFlags()
	strict := fs.Bool("strict-json", false, "VALUE must be JSON (otherwise JSON5, falling back to a string)")
	pos, err := fs.parse(args, 2, 2)
	if err != nil {
		return err
	}
	key := pos[0]
	if _, err := config.ParsePath(key); err != nil {
		return usageErrorf("%v", err)
	}
	value, err := parseConfigValue(pos[1], *strict)
	if err != nil {
		return err
	}
	path, err := editConfig(a, f.dev, key, func(src []byte) ([]byte, error) {
		return config.Set(src, key, value)
	})
	if err != nil {
		return err
	}
	// The value is not echoed: it may be a secret.
	return a.printEdit(f.json, "Set", key, path)
}

func runConfigUnset(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw config unset PATH")
	f := fs.configFlags()
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	key := pos[0]
	segs, err := config.ParsePath(key)
	if err != nil {
		return usageErrorf("%v", err)
	}
	path, err := editConfig(a, f.dev, key, func(src []byte) ([]byte, error) {
		out, err := config.Unset(src, key)
		if errors.Is(err, config.ErrNotFound) {
			// As OpenClaw: a key the file does not set is an error, and
			// the file is left as it was.
			return nil, fmt.Errorf("Config path not found: %s. Nothing was changed. Run `openclaw config get` to see what the file sets", key)
		}
		if err != nil {
			return nil, err
		}
		return pruneEmptied(out, segs)
	})
	if err != nil {
		return err
	}
	return a.printEdit(f.json, "Removed", key, path)
}

// pruneEmptied removes the objects above an unset key that it left
// empty, innermost first, so unsetting logging.file does not leave
// `logging: {}` behind. Objects that were empty before are not touched:
// they held the key.
func pruneEmptied(src []byte, segs []string) ([]byte, error) {
	for n := len(segs) - 1; n > 0; n-- {
		tree, err := config.ParseObject(src)
		if err != nil {
			return src, nil // the edit's own check reports it
		}
		v, ok := lookupPath(tree, segs[:n])
		if obj, isObj := v.(map[string]any); !ok || !isObj || len(obj) > 0 {
			break
		}
		if src, err = config.Unset(src, joinSegs(segs[:n])); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// joinSegs turns ParsePath segments back into a key path.
func joinSegs(segs []string) string {
	var p string
	for _, s := range segs {
		if strings.HasPrefix(s, "[") {
			p += s
		} else {
			p = config.JoinPath(p, s)
		}
	}
	return p
}

func (a *app) printEdit(asJSON bool, verb, key, path string) error {
	if asJSON {
		return writeJSON(a.stdout, map[string]any{"ok": true, "path": path, "key": key})
	}
	_, err := fmt.Fprintf(a.stdout, "%s %s in %s\n", verb, key, path)
	return err
}

// parseConfigValue reads a command-line value: JSON with --strict-json,
// else JSON5, else the text as a string.
func parseConfigValue(s string, strict bool) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err == nil {
		return v, nil
	} else if strict {
		return nil, usageErrorf("value is not valid JSON: %v", err)
	}
	// A JSON5 value parses as the only member of an object.
	if m, err := config.ParseObject([]byte("{v:\n" + s + "\n}")); err == nil && len(m) == 1 {
		if v, ok := m["v"]; ok {
			return v, nil
		}
	}
	return s, nil
}

func runConfigValidate(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw config validate [--json]")
	f := fs.configFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	paths, err := cliPaths(f.dev)
	if err != nil {
		return err
	}
	snap, err := config.Load(paths.ConfigPath, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
	var lerr *config.LoadError
	if err != nil && !errors.As(err, &lerr) {
		return err
	}
	var errs config.Issues
	if lerr != nil {
		errs = lerr.Issues
	}
	exists := snap != nil && snap.Exists
	var warns []config.Issue
	if snap != nil {
		warns = snap.Warnings
	}
	if f.json {
		list := make([]map[string]any, 0, len(errs)+len(warns))
		for _, is := range append(append(config.Issues{}, errs...), warns...) {
			list = append(list, map[string]any{"severity": is.Severity.String(), "file": is.File,
				"line": is.Line, "column": is.Column, "path": is.Path, "message": is.Message})
		}
		if err := writeJSON(a.stdout, map[string]any{"ok": len(errs) == 0, "path": paths.ConfigPath,
			"exists": exists, "issues": list}); err != nil {
			return err
		}
	} else {
		for _, is := range errs {
			fmt.Fprintf(a.stdout, "error: %s\n", is)
		}
		for _, is := range warns {
			fmt.Fprintf(a.stdout, "warning: %s\n", is)
		}
		switch {
		case !exists:
			fmt.Fprintf(a.stdout, "No config file at %s; the defaults apply.\n", paths.ConfigPath)
		case len(errs) == 0:
			fmt.Fprintf(a.stdout, "%s is valid (%s).\n", paths.ConfigPath, plural(len(warns), "warning"))
		default:
			fmt.Fprintf(a.stdout, "%s is invalid: %s, %s.\n", paths.ConfigPath,
				plural(len(errs), "error"), plural(len(warns), "warning"))
		}
	}
	if len(errs) > 0 {
		return reported(fmt.Errorf("config has %s", plural(len(errs), "error")))
	}
	return nil
}

func runConfigSchema(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw config schema")
	fs.configFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	_, err := a.stdout.Write(config.Schema())
	return err
}

func runConfigFile(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw config file [--json]")
	f := fs.configFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	paths, err := cliPaths(f.dev)
	if err != nil {
		return err
	}
	if f.json {
		_, statErr := os.Stat(paths.ConfigPath)
		return writeJSON(a.stdout, map[string]any{"path": paths.ConfigPath, "exists": statErr == nil,
			"stateDir": paths.StateDir})
	}
	_, err = fmt.Fprintln(a.stdout, paths.ConfigPath)
	return err
}
