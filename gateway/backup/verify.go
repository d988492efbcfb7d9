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
	"sort"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// VerifyResult is what Verify found, in OpenClaw's JSON shape plus the
// number of databases checked.
type VerifyResult struct {
	OK               bool   `json:"ok"`
	ArchivePath      string `json:"archivePath"`
	ArchiveRoot      string `json:"archiveRoot"`
	CreatedAt        string `json:"createdAt"`
	RuntimeVersion   string `json:"runtimeVersion"`
	AssetCount       int    `json:"assetCount"`
	EntryCount       int    `json:"entryCount"`
	SymlinkCount     int    `json:"symlinkCount"`
	DatabasesChecked int    `json:"databasesChecked"`
}

// InvalidError is an archive that fails verification: what is wrong and
// which entry.
type InvalidError struct {
	Archive string
	Reason  string
}

func (e *InvalidError) Error() string {
	return "backup archive " + e.Archive + " is not valid: " + e.Reason
}

func invalid(archive, format string, args ...any) error {
	return &InvalidError{Archive: archive, Reason: fmt.Sprintf(format, args...)}
}

// maxManifest bounds the manifest read into memory.
const maxManifest = 64 << 20

// scanned is one pass over an archive.
type scanned struct {
	root     string
	manifest Manifest
	files    map[string]Entry
	dirs     map[string]bool
	count    int
	// databases is how many SQLite files passed the integrity check.
	databases int
}

// Verify checks an archive: one root, exactly one manifest, only plain
// files and directories with names that stay inside the root, every
// payload file listed in the manifest with its size and SHA-256 and none
// unlisted, every asset present, and every database snapshot passing
// PRAGMA integrity_check.
func Verify(ctx context.Context, archive string) (*VerifyResult, error) {
	scratch, err := os.MkdirTemp("", "openclaw-verify-")
	if err != nil {
		return nil, fmt.Errorf("create verification scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	s, err := scan(ctx, archive, scratch, nil)
	if err != nil {
		return nil, err
	}
	return &VerifyResult{
		OK: true, ArchivePath: archive, ArchiveRoot: s.root, CreatedAt: s.manifest.CreatedAt,
		RuntimeVersion: s.manifest.RuntimeVersion, AssetCount: len(s.manifest.Assets), EntryCount: s.count,
		DatabasesChecked: s.databases,
	}, nil
}

// extractor receives each verified entry of the archive during a scan.
type extractor interface {
	dir(name string) error
	file(name string, r io.Reader) error
}

// scan reads the archive once. Databases are copied to scratch and
// checked once the manifest (the last entry) has named them; with x set,
// every entry is also handed to it.
func scan(ctx context.Context, archive, scratch string, x extractor) (*scanned, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, fmt.Errorf("open backup archive: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, invalid(archive, "not a gzip file: %v", err)
	}
	tr := tar.NewReader(gz)
	s := &scanned{files: map[string]Entry{}, dirs: map[string]bool{}}
	dbCopies := map[string]string{}
	var manifest []byte
	seen := map[string]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, invalid(archive, "unreadable tar data after %d entries: %v", s.count, err)
		}
		s.count++
		name, err := checkName(h.Name)
		if err != nil {
			return nil, invalid(archive, "entry %q: %v", h.Name, err)
		}
		top, _, _ := strings.Cut(name, "/")
		if s.root == "" {
			s.root = top
		} else if top != s.root {
			return nil, invalid(archive, "entry %q is outside the archive root %q", h.Name, s.root)
		}
		if seen[name] {
			return nil, invalid(archive, "entry %q appears twice", h.Name)
		}
		seen[name] = true
		switch h.Typeflag {
		case tar.TypeDir:
			if name != s.root && !strings.HasPrefix(name, s.root+"/payload") {
				return nil, invalid(archive, "directory entry %q is outside payload/", h.Name)
			}
			s.dirs[name] = true
			if x != nil {
				if err := x.dir(name); err != nil {
					return nil, err
				}
			}
			continue
		case tar.TypeReg:
		case tar.TypeSymlink, tar.TypeLink:
			return nil, invalid(archive, "entry %q is a link (to %q); backup archives hold no links", h.Name, h.Linkname)
		default:
			return nil, invalid(archive, "entry %q has type %q; only files and directories are allowed", h.Name, string(h.Typeflag))
		}
		if name == s.root+"/"+ManifestName {
			if h.Size > maxManifest {
				return nil, invalid(archive, "manifest is %d bytes", h.Size)
			}
			if manifest, err = io.ReadAll(tr); err != nil {
				return nil, invalid(archive, "read manifest: %v", err)
			}
			continue
		}
		if !strings.HasPrefix(name, s.root+"/payload/") {
			return nil, invalid(archive, "entry %q is neither the manifest nor under payload/", h.Name)
		}
		if manifest != nil {
			return nil, invalid(archive, "entry %q follows the manifest", h.Name)
		}
		hash := sha256.New()
		sinks := []io.Writer{hash}
		var db *os.File
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		head := make([]byte, len(sqliteMagic))
		n, _ := io.ReadFull(tr, head)
		body := io.MultiReader(bytes.NewReader(head[:n]), tr)
		if n == len(head) && bytes.Equal(head, sqliteMagic) {
			p := filepath.Join(scratch, "db-"+strconv.Itoa(len(dbCopies)+1)+".sqlite")
			if db, err = os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err != nil {
				return nil, fmt.Errorf("verify %s: %w", name, err)
			}
			dbCopies[name] = p
			sinks = append(sinks, db)
		}
		if x != nil {
			go func() { err := x.file(name, pr); pr.CloseWithError(err); done <- err }()
			sinks = append(sinks, pw)
		}
		size, cerr := io.Copy(io.MultiWriter(sinks...), body)
		pw.CloseWithError(cerr)
		if x != nil {
			if err := <-done; err != nil && cerr == nil {
				cerr = err
			}
		}
		if db != nil {
			if err := db.Close(); cerr == nil {
				cerr = err
			}
		}
		if cerr != nil {
			return nil, fmt.Errorf("read entry %s of %s: %w", name, archive, cerr)
		}
		s.files[name] = Entry{Path: name, Size: size, SHA256: hex.EncodeToString(hash.Sum(nil))}
	}
	if s.root == "" {
		return nil, invalid(archive, "it is empty")
	}
	if manifest == nil {
		return nil, invalid(archive, "no %s/%s", s.root, ManifestName)
	}
	if err := json.Unmarshal(manifest, &s.manifest); err != nil {
		return nil, invalid(archive, "manifest is not JSON: %v", err)
	}
	m := &s.manifest
	if m.SchemaVersion != SchemaVersion {
		return nil, invalid(archive, "manifest schemaVersion %d (this build reads %d)", m.SchemaVersion, SchemaVersion)
	}
	if m.ArchiveRoot != s.root {
		return nil, invalid(archive, "manifest names root %q but the entries are under %q", m.ArchiveRoot, s.root)
	}
	// OpenClaw's own archives carry no digests; ours always list their
	// entries (an empty list included), and then nothing unlisted passes.
	declared := map[string]bool{}
	for _, e := range m.Entries {
		got, ok := s.files[e.Path]
		if !ok {
			return nil, invalid(archive, "manifest lists %s, which is not in the archive", e.Path)
		}
		if got.Size != e.Size || got.SHA256 != e.SHA256 {
			return nil, invalid(archive, "%s does not match the manifest (size %d, sha256 %s; manifest: %d, %s)", e.Path, got.Size, got.SHA256, e.Size, e.SHA256)
		}
		declared[e.Path] = true
	}
	for name := range s.files {
		if m.Entries != nil && !declared[name] {
			return nil, invalid(archive, "entry %s is not listed in the manifest", name)
		}
	}
	for _, a := range m.Assets {
		if _, ok := s.files[a.ArchivePath]; !ok && !s.dirs[a.ArchivePath] {
			return nil, invalid(archive, "asset %s (%s) is missing from the archive", a.ArchivePath, a.Kind)
		}
	}
	for _, name := range m.Databases {
		if _, ok := dbCopies[name]; !ok {
			return nil, invalid(archive, "database %s listed in the manifest is not a SQLite file in the archive", name)
		}
	}
	// Every SQLite file is checked, listed or not.
	names := make([]string, 0, len(dbCopies))
	for name := range dbCopies {
		names = append(names, name)
	}
	sort.Strings(names)
	s.databases = len(names)
	for _, name := range names {
		p := dbCopies[name]
		problems, err := store.IntegrityCheck(ctx, p)
		if err != nil {
			return nil, invalid(archive, "database %s: %v", name, err)
		}
		if len(problems) > 0 {
			return nil, invalid(archive, "database %s fails PRAGMA integrity_check: %s", name, strings.Join(problems, "; "))
		}
	}
	return s, nil
}

// checkName refuses entry names that could land outside the extraction
// directory: absolute paths, drive letters, backslashes (a separator on
// Windows), ".." and empty components.
func checkName(name string) (string, error) {
	switch {
	case name == "":
		return "", errors.New("empty name")
	case strings.ContainsRune(name, 0):
		return "", errors.New("NUL in name")
	case strings.HasPrefix(name, "/"):
		return "", errors.New("absolute path")
	case strings.ContainsRune(name, '\\'):
		return "", errors.New("backslash in name")
	case len(name) > 1 && name[1] == ':':
		return "", errors.New("drive letter in name")
	}
	trimmed := strings.TrimSuffix(name, "/")
	for _, c := range strings.Split(trimmed, "/") {
		switch c {
		case "..":
			return "", errors.New("path climbs out with ..")
		case "", ".":
			return "", errors.New("empty or . path component")
		}
	}
	if path.Clean(trimmed) != trimmed {
		return "", errors.New("name is not clean")
	}
	return trimmed, nil
}

// RestoreResult is what Restore wrote.
type RestoreResult struct {
	OK          bool   `json:"ok"`
	ArchivePath string `json:"archivePath"`
	ArchiveRoot string `json:"archiveRoot"`
	TargetPath  string `json:"targetPath"`
	EntryCount  int    `json:"entryCount"`
	// SymbolicLinks are the links the source had; they are not recreated.
	SymbolicLinks []Link `json:"symbolicLinks"`
}

// Restore verifies the archive, then extracts it into target, which must
// not exist or be an empty directory, and must not lie inside any of
// protect (the live state directory). Extraction goes through os.Root, so
// no entry can be written outside target, and checks each file against the
// manifest again: an archive changed between the two passes leaves
// nothing behind.
func Restore(ctx context.Context, archive, target string, protect []string) (*RestoreResult, error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return nil, fmt.Errorf("resolve --target %s: %w", target, err)
	}
	for _, p := range protect {
		if _, ok := within(realPath(p), realPath(abs)); ok {
			return nil, fmt.Errorf("--target %s lies inside the live directory %s; restore into a fresh directory elsewhere", abs, p)
		}
	}
	if _, err := Verify(ctx, archive); err != nil {
		return nil, err
	}
	created := false
	switch ents, err := os.ReadDir(abs); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(abs, 0o700); err != nil {
			return nil, fmt.Errorf("create --target %s: %w", abs, err)
		}
		created = true
	case err != nil:
		return nil, fmt.Errorf("read --target %s: %w", abs, err)
	case len(ents) > 0:
		return nil, fmt.Errorf("--target %s is not empty; restore writes only into a fresh directory", abs)
	}
	cleanup := func() {
		if created {
			os.RemoveAll(abs)
			return
		}
		ents, _ := os.ReadDir(abs)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(abs, e.Name()))
		}
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("open --target %s: %w", abs, err)
	}
	defer root.Close()
	scratch, err := os.MkdirTemp("", "openclaw-restore-")
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("create restore scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	s, err := scan(ctx, archive, scratch, rootExtractor{root})
	if err != nil {
		cleanup()
		return nil, err
	}
	return &RestoreResult{OK: true, ArchivePath: archive, ArchiveRoot: s.root, TargetPath: abs, EntryCount: s.count,
		SymbolicLinks: append([]Link{}, s.manifest.ExternalSymbolicLinks...)}, nil
}

// rootExtractor writes entries inside one directory; directories and
// files are private to the user, whatever the archive says.
type rootExtractor struct{ r *os.Root }

func (x rootExtractor) dir(name string) error {
	if err := x.r.MkdirAll(filepath.FromSlash(name), 0o700); err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	return nil
}

func (x rootExtractor) file(name string, body io.Reader) error {
	p := filepath.FromSlash(name)
	if err := x.r.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	f, err := x.r.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	_, err = io.Copy(f, body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	return nil
}
