package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// permTarget is one file or folder that must be private to its owner.
type permTarget struct {
	Path string
	Dir  bool
	// Kind names the target in audit check ids (fs.<kind>.perms_*).
	Kind string
	// What says what it holds, for details.
	What string
}

// permTargets lists what must be private: the state directory, the
// config and the files it includes, the database with its WAL files,
// the exec approvals, the device identities and the log file. Files that
// do not exist are left out.
func (in *Install) permTargets() []permTarget {
	st := in.Paths.StateDir
	ts := []permTarget{
		{Path: st, Dir: true, Kind: "state_dir", What: "the whole state"},
		{Path: in.Paths.ConfigPath, Kind: "config", What: "tokens and private settings"},
	}
	if in.Snap != nil {
		for _, inc := range in.Snap.Includes {
			ts = append(ts, permTarget{Path: inc, Kind: "config_include", What: "included settings and secrets"})
		}
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		ts = append(ts, permTarget{Path: in.DBPath() + suffix, Kind: "sessions_store", What: "sessions, transcripts and device tokens"})
	}
	ts = append(ts,
		permTarget{Path: in.ExecApprovalsPath(), Kind: "exec_approvals", What: "the exec allowlist"},
		permTarget{Path: filepath.Join(st, "identity"), Dir: true, Kind: "identity_dir", What: "device private keys"},
		permTarget{Path: filepath.Join(st, "credentials"), Dir: true, Kind: "credentials_dir", What: "channel credentials"},
		permTarget{Path: in.LogFile(), Kind: "log_file", What: "redacted but still private logs"},
	)
	var out []permTarget
	for _, t := range ts {
		if _, err := os.Lstat(t.Path); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// permState is what Lstat says about a target.
type permState struct {
	Symlink bool
	Mode    fs.FileMode // permission bits
}

func (s permState) worldWritable() bool { return s.Mode&0o002 != 0 }
func (s permState) groupWritable() bool { return s.Mode&0o020 != 0 }
func (s permState) worldReadable() bool { return s.Mode&0o004 != 0 }
func (s permState) groupReadable() bool { return s.Mode&0o040 != 0 }
func (s permState) open() bool          { return s.Mode&0o077 != 0 }

// permsApply says whether POSIX modes mean anything here.
var permsApply = runtime.GOOS != "windows"

func inspectPerm(path string) (permState, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return permState{}, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return permState{Symlink: true}, nil
	}
	return permState{Mode: fi.Mode().Perm()}, nil
}

// FixAction is one change a fix made or skipped, in OpenClaw's shape:
// kind "chmod" with the mode it set, ok when it was applied, skipped
// saying why not ("already", "symlink", "missing", "not-a-directory",
// "not-a-file").
type FixAction struct {
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Mode    uint32 `json:"mode,omitempty"`
	OK      bool   `json:"ok"`
	Skipped string `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// String is the action as the text output shows it.
func (a FixAction) String() string {
	mode := fmt.Sprintf("%03o", a.Mode)
	switch {
	case a.OK:
		return fmt.Sprintf("chmod %s %s", mode, a.Path)
	case a.Skipped != "":
		return fmt.Sprintf("skip chmod %s %s (%s)", mode, a.Path, a.Skipped)
	}
	return fmt.Sprintf("chmod %s %s failed: %s", mode, a.Path, a.Error)
}

// tighten takes the group and other bits off a target. It only ever
// removes bits, so it cannot loosen anything: 0644 becomes 0600, 0755
// 0700, and 0400 stays 0400. A symlink is left alone (chmod would change
// its target, which may be anything).
func tighten(t permTarget) FixAction {
	a := FixAction{Kind: "chmod", Path: t.Path}
	fi, err := os.Lstat(t.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		a.Skipped = "missing"
		return a
	case err != nil:
		a.Error = err.Error()
		return a
	}
	mode := fi.Mode().Perm()
	a.Mode = uint32(mode &^ 0o077)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		a.Skipped = "symlink"
	case t.Dir && !fi.IsDir():
		a.Skipped = "not-a-directory"
	case !t.Dir && !fi.Mode().IsRegular():
		a.Skipped = "not-a-file"
	case mode&0o077 == 0:
		a.Skipped = "already"
	default:
		if err := os.Chmod(t.Path, mode&^0o077); err != nil {
			a.Error = err.Error()
		} else {
			a.OK = true
		}
	}
	return a
}

// tightenAll tightens every target that is open to others.
func (in *Install) tightenAll() []FixAction {
	if !permsApply {
		return nil
	}
	var out []FixAction
	for _, t := range in.permTargets() {
		out = append(out, tighten(t))
	}
	return out
}

// describeMode is "path mode=644".
func describeMode(path string, m fs.FileMode) string {
	return fmt.Sprintf("%s mode=%03o", path, m)
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") }
