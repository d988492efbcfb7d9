// Package backup writes, verifies and restores OpenClaw backup archives: a
// .tar.gz holding one root directory with a manifest.json and the payload
// (state directory, config file, workspaces) under payload/posix/<absolute
// source path>, as OpenClaw lays them out.
//
// The archive is made while the gateway runs. Its SQLite databases are
// never copied as files (a live WAL database copied byte by byte may miss
// committed pages or be torn): each is captured with VACUUM INTO, which
// reads one consistent snapshot through SQLite itself, and its -wal, -shm
// and -journal sidecars are left out. Every payload file's size and
// SHA-256 are recorded in the manifest, so Verify notices any change.
//
// Symbolic links are never followed, neither while reading the state (the
// tree is opened through os.Root, which refuses to leave it) nor when
// restoring: links are listed in the manifest, not archived, and Verify
// refuses an archive holding a link, a hard link, a device or a path that
// climbs out of the archive root.
package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// SchemaVersion is the manifest version written and understood.
const SchemaVersion = 1

// ManifestName is the manifest's name inside the archive root.
const ManifestName = "manifest.json"

// Options says what Create backs up and where the archive goes.
type Options struct {
	// StateDir and ConfigPath are the install's state directory and config
	// file.
	StateDir   string
	ConfigPath string
	// Workspaces are the configured agent workspaces; ones inside the
	// state directory are covered by it.
	Workspaces       []string
	IncludeWorkspace bool
	// OnlyConfig archives the config file alone.
	OnlyConfig bool
	// Output is the archive path or an existing directory to put it in;
	// "" means DefaultDir.
	Output string
	// DefaultDir is where the archive goes without Output (the working
	// directory); when it lies inside a backed-up tree, Home is used.
	DefaultDir string
	Home       string
	// DryRun plans without writing anything.
	DryRun bool
	// Now and RuntimeVersion stamp the manifest.
	Now            time.Time
	RuntimeVersion string
}

// Asset is one top-level source in the archive.
type Asset struct {
	Kind        string `json:"kind"`
	SourcePath  string `json:"sourcePath"`
	DisplayPath string `json:"displayPath,omitempty"`
	ArchivePath string `json:"archivePath"`
}

// Skipped is a source or entry left out, and why.
type Skipped struct {
	Kind        string `json:"kind"`
	SourcePath  string `json:"sourcePath"`
	DisplayPath string `json:"displayPath,omitempty"`
	Reason      string `json:"reason"`
}

// Link is a symbolic link found in a source tree: recorded, not archived.
type Link struct {
	SourcePath string `json:"sourcePath"`
	Target     string `json:"target"`
}

// Entry is one payload file with its digest.
type Entry struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Manifest is the archive's manifest.json. The first fields are
// OpenClaw's; Entries and Databases are ours, for verification.
type Manifest struct {
	SchemaVersion  int       `json:"schemaVersion"`
	CreatedAt      string    `json:"createdAt"`
	ArchiveRoot    string    `json:"archiveRoot"`
	RuntimeVersion string    `json:"runtimeVersion"`
	Platform       string    `json:"platform"`
	Options        Flags     `json:"options"`
	Paths          Paths     `json:"paths"`
	Assets         []Asset   `json:"assets"`
	Skipped        []Skipped `json:"skipped"`
	// ExternalSymbolicLinks are the links found in the sources (any
	// target): none is in the archive, so a restore never writes through one.
	ExternalSymbolicLinks []Link `json:"externalSymbolicLinks"`
	// Databases are the archive paths of the SQLite snapshots.
	Databases []string `json:"databases"`
	Entries   []Entry  `json:"entries"`
}

// Flags are the options the archive was made with.
type Flags struct {
	IncludeWorkspace bool `json:"includeWorkspace"`
	OnlyConfig       bool `json:"onlyConfig"`
}

// Paths are the install's resolved paths.
type Paths struct {
	StateDir      string   `json:"stateDir"`
	ConfigPath    string   `json:"configPath"`
	OAuthDir      string   `json:"oauthDir"`
	WorkspaceDirs []string `json:"workspaceDirs"`
}

// Result is what Create did, in OpenClaw's JSON shape.
type Result struct {
	CreatedAt            string    `json:"createdAt"`
	ArchiveRoot          string    `json:"archiveRoot"`
	ArchivePath          string    `json:"archivePath"`
	DryRun               bool      `json:"dryRun"`
	IncludeWorkspace     bool      `json:"includeWorkspace"`
	OnlyConfig           bool      `json:"onlyConfig"`
	Verified             bool      `json:"verified"`
	Assets               []Asset   `json:"assets"`
	Skipped              []Skipped `json:"skipped"`
	SkippedVolatileCount int       `json:"skippedVolatileCount"`
	Databases            []string  `json:"databases,omitempty"`
	EntryCount           int       `json:"entryCount,omitempty"`
	ExternalLinks        []Link    `json:"externalSymbolicLinks,omitempty"`
}

// Name is the archive root for a time: local time with its UTC offset,
// characters a file name can hold.
func Name(t time.Time) string {
	s := t.Format("2006-01-02T15-04-05.000-07:00")
	s = strings.ReplaceAll(s, ":", "-")
	return s + "-openclaw-backup"
}

// plannedAsset is one source with its resolved real path.
type plannedAsset struct {
	Asset
	real string
	dir  bool
}

// Create writes the archive (or, with DryRun, only plans it).
func Create(ctx context.Context, o Options) (*Result, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	root := Name(o.Now)
	res := &Result{
		CreatedAt:   o.Now.UTC().Format("2006-01-02T15:04:05.000Z"),
		ArchiveRoot: root, DryRun: o.DryRun, IncludeWorkspace: o.IncludeWorkspace && !o.OnlyConfig,
		OnlyConfig: o.OnlyConfig, Assets: []Asset{}, Skipped: []Skipped{},
	}
	assets, err := plan(o, root, res)
	if err != nil {
		return nil, err
	}
	out, err := outputPath(o, root, assets)
	if err != nil {
		return nil, err
	}
	res.ArchivePath = out
	for _, a := range assets {
		res.Assets = append(res.Assets, a.Asset)
	}
	if o.DryRun {
		return res, nil
	}
	if _, err := os.Lstat(out); err == nil {
		return nil, fmt.Errorf("backup archive %s already exists; an archive is never overwritten", out)
	}
	scratch, err := os.MkdirTemp("", "openclaw-backup-")
	if err != nil {
		return nil, fmt.Errorf("create backup scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)

	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create backup archive in %s: %w", filepath.Dir(out), err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("create backup archive %s: %w", tmp.Name(), err)
	}
	w := &writer{ctx: ctx, root: root, scratch: scratch, res: res}
	w.gz = gzip.NewWriter(tmp)
	w.tw = tar.NewWriter(w.gz)
	for _, a := range assets {
		if err := w.addAsset(a); err != nil {
			tmp.Close()
			return nil, err
		}
	}
	m := Manifest{
		SchemaVersion: SchemaVersion, CreatedAt: res.CreatedAt, ArchiveRoot: root,
		RuntimeVersion: o.RuntimeVersion, Platform: runtime.GOOS,
		Options: Flags{IncludeWorkspace: res.IncludeWorkspace, OnlyConfig: o.OnlyConfig},
		Paths: Paths{StateDir: o.StateDir, ConfigPath: o.ConfigPath, OAuthDir: filepath.Join(o.StateDir, "credentials"),
			WorkspaceDirs: append([]string{}, o.Workspaces...)},
		Assets: res.Assets, Skipped: res.Skipped, ExternalSymbolicLinks: append([]Link{}, w.links...),
		Databases: append([]string{}, w.dbs...), Entries: w.entries,
	}
	if m.Entries == nil {
		m.Entries = []Entry{}
	}
	mb, _ := json.MarshalIndent(m, "", "  ")
	mb = append(mb, '\n')
	hdr := &tar.Header{Name: root + "/" + ManifestName, Mode: 0o600, Size: int64(len(mb)), ModTime: o.Now, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := w.tw.WriteHeader(hdr); err == nil {
		_, err = w.tw.Write(mb)
	}
	if err == nil {
		err = w.tw.Close()
	}
	if err == nil {
		err = w.gz.Close()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write backup archive %s: %w", tmp.Name(), err)
	}
	// A hard link publishes the finished archive under its name without
	// ever replacing a file that appeared there meanwhile.
	if err := os.Link(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("publish backup archive %s: %w", out, err)
	}
	res.Databases = w.dbs
	res.EntryCount = w.count + 1
	res.ExternalLinks = w.links
	return res, nil
}

// plan resolves the sources: the state directory (covering the config,
// credentials and workspaces inside it), an outside config file, outside
// workspaces.
func plan(o Options, root string, res *Result) ([]plannedAsset, error) {
	display := func(p string) string {
		if o.Home != "" {
			if rel, ok := within(o.Home, p); ok {
				if rel == "." {
					return "~"
				}
				return "~/" + filepath.ToSlash(rel)
			}
		}
		return p
	}
	var assets []plannedAsset
	add := func(kind, p string, wantDir bool) error {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("resolve %s path %s: %w", kind, p, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if errors.Is(err, fs.ErrNotExist) {
			res.Skipped = append(res.Skipped, Skipped{Kind: kind, SourcePath: abs, DisplayPath: display(abs), Reason: "missing"})
			return nil
		}
		if err != nil {
			return fmt.Errorf("resolve %s path %s: %w", kind, abs, err)
		}
		for _, a := range assets {
			if _, ok := within(a.real, real); ok && a.dir {
				res.Skipped = append(res.Skipped, Skipped{Kind: kind, SourcePath: abs, DisplayPath: display(abs), Reason: "covered"})
				return nil
			}
		}
		st, err := os.Stat(real)
		if err != nil {
			return fmt.Errorf("read %s %s: %w", kind, abs, err)
		}
		if wantDir != st.IsDir() {
			what := "a file"
			if wantDir {
				what = "a directory"
			}
			return fmt.Errorf("%s %s is not %s", kind, abs, what)
		}
		assets = append(assets, plannedAsset{
			Asset: Asset{Kind: kind, SourcePath: abs, DisplayPath: display(abs), ArchivePath: payloadPath(root, abs)},
			real:  real, dir: wantDir,
		})
		return nil
	}
	if o.OnlyConfig {
		if err := add("config", o.ConfigPath, false); err != nil {
			return nil, err
		}
		if len(assets) == 0 {
			return nil, fmt.Errorf("no config file at %s to back up", o.ConfigPath)
		}
		return assets, nil
	}
	if err := add("state", o.StateDir, true); err != nil {
		return nil, err
	}
	if o.ConfigPath != "" {
		if err := add("config", o.ConfigPath, false); err != nil {
			return nil, err
		}
	}
	if o.IncludeWorkspace {
		for _, ws := range o.Workspaces {
			if err := add("workspace", ws, true); err != nil {
				return nil, err
			}
		}
	}
	if len(assets) == 0 {
		return nil, fmt.Errorf("nothing to back up: no state directory at %s", o.StateDir)
	}
	return assets, nil
}

// payloadPath is where an absolute source path lives in the archive.
func payloadPath(root, abs string) string {
	p := filepath.ToSlash(abs)
	if v := filepath.VolumeName(abs); v != "" {
		p = strings.TrimSuffix(strings.ToLower(v), ":") + "/" + filepath.ToSlash(strings.TrimPrefix(abs, v))
		return root + "/payload/windows/" + strings.TrimLeft(path.Clean(p), "/")
	}
	return root + "/payload/posix/" + strings.TrimLeft(path.Clean(p), "/")
}

// outputPath is the archive file: Output as a file, inside Output as a
// directory, or in the default directory. It must not lie inside a source,
// where the archive would contain itself.
func outputPath(o Options, root string, assets []plannedAsset) (string, error) {
	inside := func(p string) bool {
		real := realPath(p)
		for _, a := range assets {
			if _, ok := within(a.real, real); ok && a.dir {
				return true
			}
		}
		return false
	}
	name := root + ".tar.gz"
	if o.Output == "" {
		dir := o.DefaultDir
		if dir == "" || inside(dir) {
			dir = o.Home
		}
		if dir == "" || inside(dir) {
			return "", fmt.Errorf("no directory outside the backed-up trees to write the archive to; pass --output")
		}
		return filepath.Join(dir, name), nil
	}
	out, err := filepath.Abs(o.Output)
	if err != nil {
		return "", fmt.Errorf("resolve --output %s: %w", o.Output, err)
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		out = filepath.Join(out, name)
	} else if err == nil {
		return "", fmt.Errorf("--output %s already exists; an archive is never overwritten", out)
	} else if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return "", fmt.Errorf("--output %s: directory %s does not exist", o.Output, filepath.Dir(out))
	}
	if inside(out) {
		return "", fmt.Errorf("--output %s lies inside a backed-up directory; the archive would contain itself", out)
	}
	return out, nil
}

// realPath resolves the symbolic links of p's longest existing prefix.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rest := ""
	for cur := abs; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is base or under it, and p relative to base.
func within(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// writer streams assets into the tar.
type writer struct {
	ctx     context.Context
	root    string
	scratch string
	gz      *gzip.Writer
	tw      *tar.Writer
	res     *Result
	entries []Entry
	dbs     []string
	links   []Link
	count   int
	ndb     int
}

func (w *writer) addAsset(a plannedAsset) error {
	if !a.dir {
		// A single file: opened through its directory's root, so a link
		// swapped in for it is refused rather than followed.
		r, err := os.OpenRoot(filepath.Dir(a.real))
		if err != nil {
			return fmt.Errorf("open %s: %w", filepath.Dir(a.real), err)
		}
		defer r.Close()
		return w.addFile(r, filepath.Base(a.real), a.SourcePath, a.ArchivePath, true)
	}
	r, err := os.OpenRoot(a.real)
	if err != nil {
		return fmt.Errorf("open %s %s: %w", a.Kind, a.SourcePath, err)
	}
	defer r.Close()
	isState := a.Kind == "state"
	return fs.WalkDir(r.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && rel != "." {
				w.skip(a.Kind, filepath.Join(a.SourcePath, rel), "vanished")
				return nil
			}
			return fmt.Errorf("read %s: %w", filepath.Join(a.SourcePath, rel), err)
		}
		if err := w.ctx.Err(); err != nil {
			return err
		}
		src := filepath.Join(a.SourcePath, filepath.FromSlash(rel))
		name := a.ArchivePath
		if rel != "." {
			name += "/" + rel
		}
		if rel != "." && volatile(rel, d, isState) {
			w.res.SkippedVolatileCount++
			w.skip(a.Kind, src, "volatile")
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			target, _ := r.Readlink(rel)
			w.links = append(w.links, Link{SourcePath: src, Target: target})
			return nil
		case d.IsDir():
			w.count++
			return w.tw.WriteHeader(&tar.Header{Name: name + "/", Mode: 0o700, Typeflag: tar.TypeDir, Format: tar.FormatPAX})
		case t.IsRegular():
			if sqliteSidecar(rel) {
				return nil
			}
			return w.addFile(r, rel, src, name, false)
		default:
			w.skip(a.Kind, src, "special")
			return nil
		}
	})
}

func (w *writer) skip(kind, src, reason string) {
	w.res.Skipped = append(w.res.Skipped, Skipped{Kind: kind, SourcePath: src, Reason: reason})
}

// addFile archives one regular file, or the snapshot of a SQLite database.
func (w *writer) addFile(r *os.Root, rel, src, name string, required bool) error {
	f, err := r.Open(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			w.skip("file", src, "vanished")
			return nil
		}
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read %s: %w", src, err)
	}
	if !st.Mode().IsRegular() {
		w.skip("file", src, "special")
		return nil
	}
	var head [16]byte
	n, _ := io.ReadFull(f, head[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", src, err)
	}
	body, size := io.Reader(f), st.Size()
	if n == len(head) && bytes.Equal(head[:], sqliteMagic) {
		// A database: captured through SQLite, never as bytes.
		snap, err := w.snapshot(r, rel, src)
		if err != nil {
			return err
		}
		defer snap.Close()
		sst, err := snap.Stat()
		if err != nil {
			return fmt.Errorf("read snapshot of %s: %w", src, err)
		}
		body, size = snap, sst.Size()
		w.dbs = append(w.dbs, name)
	}
	hdr := &tar.Header{Name: name, Mode: int64(st.Mode().Perm() & 0o700), Size: size, ModTime: st.ModTime(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := w.tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("archive %s: %w", src, err)
	}
	h := sha256.New()
	copied, err := io.CopyN(io.MultiWriter(w.tw, h), body, size)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("archive %s: it shrank from %d to %d bytes while being read; retry the backup", src, size, copied)
		}
		return fmt.Errorf("archive %s: %w", src, err)
	}
	w.count++
	w.entries = append(w.entries, Entry{Path: name, Size: size, SHA256: hex.EncodeToString(h.Sum(nil))})
	return nil
}

// sqliteMagic opens every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// sqliteSidecar reports the journal files of a database, which its
// snapshot already accounts for.
func sqliteSidecar(rel string) bool {
	for _, s := range []string{"-wal", "-shm", "-journal"} {
		if strings.HasSuffix(rel, s) {
			base := strings.TrimSuffix(rel, s)
			return strings.HasSuffix(base, ".sqlite") || strings.HasSuffix(base, ".db") || strings.HasSuffix(base, ".sqlite3")
		}
	}
	return false
}

// volatile reports entries that change all the time or only make sense
// while a process runs: the state's tmp/ (the gateway's lock), logs,
// sockets, pid files and temporaries, Chromium's singleton files.
func volatile(rel string, d fs.DirEntry, isState bool) bool {
	base := path.Base(rel)
	if d.IsDir() {
		return isState && (rel == "tmp" || base == "node_modules" && strings.HasPrefix(rel, "extensions/"))
	}
	if strings.HasSuffix(base, ".sock") || strings.HasSuffix(base, ".pid") || strings.HasSuffix(base, ".tmp") || strings.Contains(base, ".tmp.") {
		return true
	}
	if isState {
		switch base {
		case "SingletonLock", "SingletonSocket", "SingletonCookie":
			return strings.HasPrefix(rel, "browser/")
		}
		if strings.HasPrefix(rel, "logs/") && (strings.HasSuffix(base, ".log") || strings.HasSuffix(base, ".jsonl")) {
			return true
		}
	}
	return false
}
