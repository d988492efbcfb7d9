package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// fs.listDir is the directory browser of the node: the gateway's own
// fs.listDir RPC relays {path} to a node that declares it and checks the
// answer against FsListDirResult, so the shapes below are exactly the
// protocol schema's (FsListDirParams/FsListDirResult).
const (
	CmdFsListDir = "fs.listDir"
	// MaxListDirEntries caps the entries of one listing; a larger
	// directory is cut after sorting and flagged truncated.
	MaxListDirEntries = 5000
	// maxListDirScan caps the directory entries read at all (files
	// included), so a huge directory costs bounded time and memory.
	maxListDirScan = 200_000
	listDirBatch   = 512
)

// dirListing is the fs.listDir result.
type dirListing struct {
	Path    string     `json:"path"`             // the listed directory, cleaned
	Parent  string     `json:"parent,omitempty"` // absent at a filesystem root
	Home    string     `json:"home"`             // the node user's home directory
	Entries []dirEntry `json:"entries"`
	// Truncated is set only when entries were cut (more than the limit,
	// or more than maxListDirScan directory entries). It is not in the
	// schema; a normal listing never carries it.
	Truncated bool `json:"truncated,omitempty"`
}

// dirEntry is one subdirectory: a directory, or a symlink whose target
// is a directory (path is the link's own path, never its target).
type dirEntry struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Hidden bool   `json:"hidden,omitempty"` // name starts with "."
}

// listDir serves fs.listDir {path?, limit?}: the subdirectories of an
// absolute directory (default: the home directory), non-hidden first,
// then by name. Files are not listed. Symlinks are reported under their
// own path when their target is a directory; nothing is resolved or
// descended into.
func (h *Host) listDir(ctx context.Context, raw json.RawMessage, timeout time.Duration) (any, *protocol.Error) {
	var p struct {
		Path  json.RawMessage `json:"path"`
		Limit json.RawMessage `json:"limit"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	var path string
	if len(p.Path) > 0 {
		if string(bytes.TrimSpace(p.Path)) == "null" || json.Unmarshal(p.Path, &path) != nil {
			return nil, invalid("fs.listDir path must be a string")
		}
	}
	limit := MaxListDirEntries
	if len(p.Limit) > 0 && string(bytes.TrimSpace(p.Limit)) != "null" {
		if json.Unmarshal(p.Limit, &limit) != nil || limit < 1 || limit > MaxListDirEntries {
			return nil, invalid("fs.listDir limit must be an integer from 1 to %d", MaxListDirEntries)
		}
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}

	home := homeDir()
	if path == "" {
		if home == "" {
			return nil, invalid("fs.listDir path required: the node's home directory is unknown")
		}
		path = home
	}
	if strings.ContainsRune(path, 0) {
		return nil, invalid("fs.listDir path contains a NUL byte")
	}
	if !filepath.IsAbs(path) {
		return nil, invalid("fs.listDir path must be absolute: %q", path)
	}
	dir := filepath.Clean(path)
	if home == "" {
		home = filepath.VolumeName(dir) + string(filepath.Separator)
	}

	// The directory itself may be a symlink to a directory, as on the real
	// node host: an absolute path names what it names, and there is no
	// root on a node host that a link could lead out of.
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fsError(dir, err)
	}
	if !st.IsDir() {
		return nil, invalid("fs.listDir %s is not a directory", dir)
	}
	entries, truncated, perr := readSubdirs(ctx, dir)
	if perr != nil {
		return nil, perr
	}
	slices.SortFunc(entries, func(a, b dirEntry) int {
		if a.Hidden != b.Hidden {
			if a.Hidden {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(entries) > limit {
		entries, truncated = entries[:limit], true
	}
	out := dirListing{Path: dir, Home: home, Entries: entries, Truncated: truncated}
	if parent := filepath.Dir(dir); parent != dir {
		out.Parent = parent
	}
	return out, nil
}

// readSubdirs reads dir in batches and keeps its subdirectories; it stops
// after maxListDirScan entries and reports that as truncated.
func readSubdirs(ctx context.Context, dir string) ([]dirEntry, bool, *protocol.Error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false, fsError(dir, err)
	}
	defer f.Close()
	entries := []dirEntry{}
	scanned := 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, ctxError(dir, err)
		}
		batch, err := f.ReadDir(listDirBatch)
		for _, d := range batch {
			full := filepath.Join(dir, d.Name())
			isDir := d.IsDir()
			if d.Type()&fs.ModeSymlink != 0 {
				// Only learn whether the target is a directory.
				t, serr := os.Stat(full)
				isDir = serr == nil && t.IsDir()
			}
			if isDir {
				entries = append(entries, dirEntry{Name: d.Name(), Path: full, Hidden: strings.HasPrefix(d.Name(), ".")})
			}
		}
		scanned += len(batch)
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			return entries, false, nil
		}
		if err != nil {
			return nil, false, fsError(dir, err)
		}
		if scanned >= maxListDirScan {
			return entries, true, nil
		}
	}
}

// fsError turns a failure to stat, open or read dir into an
// INVALID_REQUEST error that says what is wrong with the path.
func fsError(dir string, err error) *protocol.Error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return invalid("fs.listDir %s does not exist", dir)
	case errors.Is(err, fs.ErrPermission):
		return invalid("fs.listDir %s is not readable: permission denied", dir)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return invalid("fs.listDir %s is not readable: %v", dir, err)
}

func ctxError(dir string, err error) *protocol.Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return protocol.Errorf(protocol.CodeTimeout, "TIMEOUT: fs.listDir %s timed out", dir)
	}
	return unavailable("fs.listDir %s cancelled: %v", dir, err)
}

// homeDir is the node user's home directory: $HOME (%USERPROFILE% on
// Windows), else the user database's, else "".
func homeDir() string {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return home
	}
	if u, err := user.Current(); err == nil {
		return u.HomeDir
	}
	return ""
}
