package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkFileModes: the state directory and the files in it that hold
// secrets are the owner's alone (0700 and 0600); --fix takes the group and
// other bits off.
func checkFileModes(_ context.Context, r *run) Check {
	c := Check{ID: "core/doctor/state-integrity", Title: "State integrity", Path: r.in.Paths.StateDir}
	if !permsApply {
		c.Status, c.Detail = StatusSkip, "file modes are not checked on Windows"
		return c
	}
	if _, err := os.Stat(r.in.Paths.StateDir); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail = StatusSkip, fmt.Sprintf("no state directory at %s yet", r.in.Paths.StateDir)
		return c
	}
	detect := func() (open, links []string) {
		for _, t := range r.in.permTargets() {
			st, err := inspectPerm(t.Path)
			switch {
			case err != nil:
				continue
			case st.Symlink:
				links = append(links, fmt.Sprintf("- %s is a symlink; its target is another place whose permissions matter", t.Path))
			case st.open():
				want := "600"
				if t.Dir {
					want = "700"
				}
				open = append(open, fmt.Sprintf("- %s (%s) is open to other users; recommend chmod %s", describeMode(t.Path, st.Mode), t.What, want))
			}
		}
		return open, links
	}
	open, links := detect()
	if len(open) == 0 && len(links) == 0 {
		c.Status, c.Detail = StatusOK, "the state directory is 0700 and its private files 0600"
		return c
	}
	if len(open) > 0 && r.Fix {
		var done []string
		var errs []string
		for _, a := range r.in.tightenAll() {
			switch {
			case a.OK:
				done = append(done, a.String())
			case a.Error != "":
				errs = append(errs, a.String())
			}
		}
		c.Fix = &Fix{Applied: len(done) > 0, Detail: joinLines(done)}
		if len(errs) > 0 {
			c.Fix.Error = joinLines(errs)
		}
		open, links = detect()
	}
	c.Status = StatusWarn
	if len(open) == 0 && len(links) == 0 {
		c.Status = StatusOK
		c.Detail = "the state directory is 0700 and its private files 0600"
		return c
	}
	c.Detail = joinLines(append(open, links...))
	if len(open) > 0 {
		c.FixHint = "Run `openclaw doctor --fix` (or `openclaw security audit --fix`) to tighten them."
	}
	return c
}

// Free space thresholds, as OpenClaw's doctor has them.
const (
	diskCritical = 100 << 20
	diskLow      = 500 << 20
)

// checkDiskSpace: the state directory's file system has room for config
// writes, transcripts and the database's growth.
func checkDiskSpace(_ context.Context, r *run) Check {
	c := Check{ID: "core/doctor/disk-space", Title: "Disk space", Path: r.in.Paths.StateDir}
	dir := existingParent(r.in.Paths.StateDir)
	free, err := r.DiskFree(dir)
	if err != nil {
		c.Status, c.Detail = StatusSkip, fmt.Sprintf("cannot read the free space of %s: %v", dir, err)
		return c
	}
	switch {
	case free < diskCritical:
		c.Status = StatusFail
		c.Detail = fmt.Sprintf("only %s free on the partition holding %s; config writes, transcripts and log rotation may fail", formatBytes(free), r.in.Paths.StateDir)
		c.FixHint = "Free up disk space now to avoid losing data."
	case free < diskLow:
		c.Status = StatusWarn
		c.Detail = fmt.Sprintf("low disk space: %s free on the partition holding %s", formatBytes(free), r.in.Paths.StateDir)
		c.FixHint = "Free some space before config and session writes start failing."
	default:
		c.Status, c.Detail = StatusOK, fmt.Sprintf("%s free", formatBytes(free))
	}
	return c
}

// existingParent is path or its nearest ancestor that exists.
func existingParent(path string) string {
	for {
		if _, err := os.Stat(path); err == nil {
			return path
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
}

func formatBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
