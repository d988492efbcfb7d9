package config

import (
	"path/filepath"
	"strings"
)

// Paths are the locations the gateway reads its config and state from.
type Paths struct {
	// Home is the home directory used: OPENCLAW_HOME when set, else the
	// home passed to ResolvePaths.
	Home string
	// StateDir holds config, credentials and databases: OPENCLAW_STATE_DIR
	// when set, else ~/.openclaw (~/.openclaw-dev with --dev, or
	// ~/.openclaw-<name> with OPENCLAW_PROFILE=<name>).
	StateDir string
	// ConfigPath is the config file: OPENCLAW_CONFIG_PATH when set, else
	// <StateDir>/openclaw.json.
	ConfigPath string
	// IncludeRoots are extra directories $include may read from, from
	// OPENCLAW_INCLUDE_ROOTS (a list separated like PATH).
	IncludeRoots []string
}

// ConfigFileName is the config file's name inside the state directory.
const ConfigFileName = "openclaw.json"

// ResolvePaths works out Paths from environment variables (through getenv),
// the user's home directory and the --dev flag. Values from the environment
// are trimmed, a leading ~ is expanded, and relative paths are made
// absolute against the working directory.
func ResolvePaths(getenv func(string) string, home string, dev bool) Paths {
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	if h := env("OPENCLAW_HOME"); h != "" {
		home = expandHome(h, home)
	}
	p := Paths{Home: home}
	switch dir := env("OPENCLAW_STATE_DIR"); {
	case dir != "":
		p.StateDir = expandHome(dir, home)
	case dev:
		p.StateDir = filepath.Join(home, ".openclaw-dev")
	case validProfile(env("OPENCLAW_PROFILE")):
		p.StateDir = filepath.Join(home, ".openclaw-"+env("OPENCLAW_PROFILE"))
	default:
		p.StateDir = filepath.Join(home, ".openclaw")
	}
	p.ConfigPath = filepath.Join(p.StateDir, ConfigFileName)
	if c := env("OPENCLAW_CONFIG_PATH"); c != "" {
		p.ConfigPath = expandHome(c, home)
	}
	for _, r := range filepath.SplitList(env("OPENCLAW_INCLUDE_ROOTS")) {
		if r = strings.TrimSpace(r); r != "" {
			p.IncludeRoots = append(p.IncludeRoots, expandHome(r, home))
		}
	}
	return p
}

// DefaultLogFile is where logs go when logging.file is empty.
func (p Paths) DefaultLogFile() string {
	return filepath.Join(p.StateDir, "logs", "gateway.log")
}

// expandHome expands a leading ~ and makes the path absolute and clean.
func expandHome(path, home string) string {
	if path == "~" {
		path = home
	} else if rest, ok := strings.CutPrefix(path, "~"+string(filepath.Separator)); ok {
		path = filepath.Join(home, rest)
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// validProfile accepts OPENCLAW_PROFILE names that are safe in a directory
// name; "default" means no profile.
func validProfile(name string) bool {
	if name == "" || name == "default" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')) {
			return false
		}
	}
	return true
}
