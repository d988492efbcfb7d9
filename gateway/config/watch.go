package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a Watcher waits after the last change to the
// config file before reloading it, so an editor's burst of writes, renames
// and chmods turns into one reload.
const DefaultDebounce = 200 * time.Millisecond

// Watcher reloads the config file when it, or a file it includes, changes.
// It watches the directories rather than the files, because editors save by
// writing a new file and renaming it over the old one.
//
// A reload that fails (a syntax error, an invalid value, a vanished file)
// keeps the running config and logs every issue. A valid new config goes
// to Apply unless gateway.reload.mode is "off" in the running config; use
// Diff in Apply to find changes that need a restart.
type Watcher struct {
	// Path is the config file.
	Path string
	// Options are passed to Load.
	Options LoadOptions
	// Logger receives reload results; nil discards them.
	Logger *slog.Logger
	// Apply installs a new config. An error leaves the running config in
	// place (and is logged); the next change is tried again.
	Apply func(*Snapshot) error
	// Outcome, if set, hears how each reload ended: nil when the running
	// config is the file's (applied, or the file is back to it), else why
	// the running config was kept (the file did not load, is gone, or
	// Apply refused it).
	Outcome func(error)
	// Current is the running config. When nil, Run loads it first (without
	// calling Apply), so only later changes are applied.
	Current *Snapshot
	// Debounce overrides DefaultDebounce when positive.
	Debounce time.Duration

	ready func() // test hook: called once the directories are watched
}

// Watch runs a Watcher on path until ctx is done; see Watcher.
func Watch(ctx context.Context, path string, opts LoadOptions, log *slog.Logger, apply func(*Snapshot) error) error {
	w := &Watcher{Path: path, Options: opts, Logger: log, Apply: apply}
	return w.Run(ctx)
}

// Run watches until ctx is done, then returns nil. It returns an error only
// when watching cannot start.
func (w *Watcher) Run(ctx context.Context) error {
	log := w.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "config")
	path, err := filepath.Abs(w.Path)
	if err != nil {
		return fmt.Errorf("watch config %s: %w", w.Path, err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch config %s: %w", path, err)
	}
	defer fw.Close()
	if err := fw.Add(filepath.Dir(path)); err != nil {
		return fmt.Errorf("watch config directory %s: %w", filepath.Dir(path), err)
	}
	dirs := map[string]bool{filepath.Dir(path): true}
	current := w.Current
	if current == nil {
		current, err = Load(path, w.Options)
		if err != nil {
			log.Warn("config is not valid; waiting for a good version", "path", path, "error", err)
			current = nil
		}
	}
	watched := func(snap *Snapshot) map[string]bool {
		files := map[string]bool{path: true}
		if snap == nil {
			return files
		}
		for _, inc := range snap.Includes {
			files[inc] = true
			if dir := filepath.Dir(inc); !dirs[dir] {
				if err := fw.Add(dir); err != nil {
					log.Warn("cannot watch included config directory", "dir", dir, "error", err)
					continue
				}
				dirs[dir] = true
			}
		}
		return files
	}
	files := watched(current)
	if w.ready != nil {
		w.ready()
	}

	debounce := w.Debounce
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if files[filepath.Clean(ev.Name)] && ev.Op != fsnotify.Chmod {
				timer.Reset(debounce)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			log.Warn("config watch error", "error", err)
		case <-timer.C:
			if next := w.reload(log, path, current); next != nil {
				current = next
				files = watched(current)
			}
		}
	}
}

func (w *Watcher) outcome(err error) {
	if w.Outcome != nil {
		w.Outcome(err)
	}
}

// reload loads the file and applies it; it returns the new running snapshot,
// or nil when the running one stays.
func (w *Watcher) reload(log *slog.Logger, path string, current *Snapshot) *Snapshot {
	snap, err := Load(path, w.Options)
	if err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			log.Error("config reload failed; keeping the running config", "path", path,
				"errors", len(le.Issues), "issues", le.Issues.String())
		} else {
			log.Error("config reload failed; keeping the running config", "path", path, "error", err)
		}
		w.outcome(err)
		return nil
	}
	if !snap.Exists {
		log.Warn("config file is gone; keeping the running config", "path", path)
		w.outcome(errors.New("the config file is gone"))
		return nil
	}
	if current != nil && current.Config != nil {
		if current.Hash == snap.Hash && reflect.DeepEqual(current.Tree, snap.Tree) {
			w.outcome(nil)
			return nil
		}
		if current.Config.Gateway.Reload.Mode == "off" {
			log.Info("config file changed; gateway.reload.mode is off, so restart to apply it", "path", path)
			return nil
		}
	}
	for _, issue := range snap.Warnings {
		log.Warn("config warning", "issue", issue.String())
	}
	if w.Apply != nil {
		if err := w.Apply(snap); err != nil {
			log.Error("applying the reloaded config failed; keeping the running config", "path", path, "error", err)
			w.outcome(err)
			return nil
		}
	}
	log.Info("config reloaded", "path", path, "hash", snap.Hash)
	w.outcome(nil)
	return snap
}
