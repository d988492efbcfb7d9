package doctor

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// Install is one local install as the checks see it: where it lives and
// its config as loaded.
type Install struct {
	Paths config.Paths
	// Getenv is the environment the config is read with.
	Getenv func(string) string
	// Snap is the config as loaded; nil when the file could not be read at
	// all (LoadErr says why). With syntax or schema errors Snap is set
	// but Snap.Config is nil.
	Snap    *config.Snapshot
	LoadErr error
}

// Load reads the install's config. It never fails: what went wrong is in
// LoadErr, for the checks to report.
func Load(paths config.Paths, getenv func(string) string) *Install {
	if getenv == nil {
		getenv = os.Getenv
	}
	in := &Install{Paths: paths, Getenv: getenv}
	in.Snap, in.LoadErr = config.Load(paths.ConfigPath, config.LoadOptions{Getenv: getenv, IncludeRoots: paths.IncludeRoots})
	return in
}

// Config is the decoded config, or nil when it did not load.
func (in *Install) Config() *config.Config {
	if in.Snap == nil {
		return nil
	}
	return in.Snap.Config
}

// Tree is the resolved config tree (empty when it did not parse).
func (in *Install) Tree() map[string]any {
	if in.Snap == nil || in.Snap.Tree == nil {
		return map[string]any{}
	}
	return in.Snap.Tree
}

// DBPath is the state database.
func (in *Install) DBPath() string { return filepath.Join(in.Paths.StateDir, store.FileName) }

// ExecApprovalsPath is the exec approvals file.
func (in *Install) ExecApprovalsPath() string {
	return filepath.Join(in.Paths.StateDir, "exec-approvals.json")
}

// LogFile is the gateway's log file.
func (in *Install) LogFile() string {
	if c := in.Config(); c != nil && c.Logging.File != "" {
		return c.Logging.File
	}
	return in.Paths.DefaultLogFile()
}

// syntaxOnly reports whether the load failed before any schema check: the
// file is not JSON5 at all.
func (in *Install) loadError() *config.LoadError {
	var le *config.LoadError
	if errors.As(in.LoadErr, &le) {
		return le
	}
	return nil
}
