// Package config loads, checks, edits and watches the gateway's config file,
// ~/.openclaw/openclaw.json, which is shared with the OpenClaw CLI and
// written in JSON5.
//
// # Reading
//
// Load reads the file; Parse does the same from memory (tests, fuzzing,
// config.apply). Both run one pipeline:
//
//  1. JSON5 is rewritten as HuJSON (JSON with comments) by a small scanner
//     of our own that keeps a map of byte offsets, so every message points at
//     the user's line and column; tailscale/hujson then parses that.
//  2. $include members are replaced by the files they name (confined to the
//     config directory and IncludeRoots, at most 10 levels, 2 MB a file,
//     cycles refused).
//  3. ${VAR} in string values is substituted from LoadOptions.Getenv.
//  4. The result is decoded strictly into Config over Defaults(). Keys we
//     do not implement are checked against OpenClaw's own key list
//     (knownkeys.json, generated from `openclaw config schema`): a key
//     OpenClaw knows draws a "not implemented yet" warning and is kept in
//     Snapshot.Tree; a key nobody knows is an error (only a warning inside a
//     plugin's own section, such as channels.telegram).
//  5. Rules across keys are checked (no auth on a non-loopback bind, ...).
//
// Every error is collected, so one run reports them all in a *LoadError,
// each as file:line:col: key.path: message.
//
//	paths := config.ResolvePaths(os.Getenv, home, dev)
//	snap, err := config.Load(paths.ConfigPath, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
//	if err != nil {
//		return fmt.Errorf("load config: %w", err) // lists every issue
//	}
//	for _, w := range snap.Warnings {
//		log.Warn("config", "issue", w.String())
//	}
//	cfg := snap.Config
//
// # Writing
//
// Set, Unset and MergePatch edit the original text, changing only the bytes
// of the values involved so comments, key quoting and layout survive.
// They edit only the text given: a value that comes from an $include file is
// overridden by setting it in the including file (sibling keys win).
// DefaultFile is the commented file written on first run; Schema describes
// the implemented keys as JSON Schema; Redact hides secrets in a Tree.
//
// # Reloading
//
// Watcher (or Watch) reloads the file when it changes and hands valid
// snapshots to a callback; Diff tells which changes need a restart.
//
// # Concurrency
//
// Load, Parse, Set, Unset, MergePatch, Redact, Schema and DefaultFile keep
// no state and are safe to call from any goroutine. A Snapshot and its
// Config are not modified after Load returns and may be shared read-only;
// copy before changing. A Watcher runs its callback on its own goroutine,
// one call at a time.
//
// Set and friends do not lock the file: read, edit and write it under the
// caller's own lock, and compare Snapshot.Hash to notice edits made by
// someone else in between.
package config
