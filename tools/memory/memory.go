package memory

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/tools"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the memory component's tables.
func Migrations() store.Migrations {
	return store.FromDir("memory", migrationFiles, "migrations")
}

// Tools returns WorkspaceMemoryTool, memory_search and memory_get.
// workspace maps the caller to its workspace directory, which is created
// (0700) if missing; db holds the search index and must have had
// [Migrations] applied.
func Tools(workspace func(who tools.Who) (string, error), db *sql.DB) []tools.Tool {
	w := workspaceFunc(workspace)
	ix := &index{db: db}
	return []tools.Tool{newWorkspaceMemory(w, ix), newSearch(w, ix), newGet(w)}
}

func spec(name, label, desc string) tools.Spec {
	return tools.Spec{
		Name:        name,
		Label:       label,
		Description: desc,
		Tier:        tools.TierCore,
		Timeout:     tools.TimeoutFast,
		Source:      tools.SourceCore,
		Groups:      []string{"group:memory"},
	}
}

// Limits.
const (
	maxFileBytes = 1 << 20 // largest file written, read whole or indexed
	maxFiles     = 5000    // most Markdown files walked in one workspace
)

type workspaceFunc func(who tools.Who) (string, error)

// workspace is one call's view of the caller's workspace.
type workspace struct {
	dir  string
	root *os.Root
}

// open resolves and opens the caller's workspace. The caller closes it.
func (f workspaceFunc) open(who tools.Who) (*workspace, error) {
	dir, err := f(who)
	if err != nil {
		return nil, fmt.Errorf("resolve workspace: %w", err)
	}
	if dir == "" {
		return nil, errors.New("resolve workspace: no workspace directory for this agent")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return &workspace{dir: dir, root: root}, nil
}

func (w *workspace) Close() error { return w.root.Close() }

// rel turns a path named by the model into a clean slash-separated path
// relative to the workspace, or refuses it. With md, the path must name a
// Markdown file. The check is lexical; the os.Root refuses symlink escapes.
func (w *workspace) rel(p string, md bool) (string, error) {
	switch {
	case p == "":
		return "", errors.New("path is empty")
	case strings.ContainsAny(p, "\x00\\"):
		return "", fmt.Errorf("path %q must be a plain path with forward slashes", p)
	}
	r := p
	if filepath.IsAbs(p) {
		var ok bool
		if r, ok = w.inside(p); !ok {
			return "", fmt.Errorf("path %q is outside the workspace", p)
		}
	}
	r = filepath.Clean(filepath.FromSlash(r))
	if !filepath.IsLocal(r) && r != "." {
		return "", fmt.Errorf("path %q is outside the workspace", p)
	}
	r = filepath.ToSlash(r)
	if md && !isMarkdown(r) {
		return "", fmt.Errorf("path %q is not a Markdown file: memory files end in .md", p)
	}
	return r, nil
}

// inside returns the absolute path abs relative to the workspace, if it
// lies lexically inside it as named or with its symlinks resolved.
func (w *workspace) inside(abs string) (string, bool) {
	bases := []string{w.dir}
	if a, err := filepath.Abs(w.dir); err == nil {
		bases = append(bases, a)
	}
	if r, err := filepath.EvalSymlinks(w.dir); err == nil {
		bases = append(bases, r)
	}
	for _, b := range bases {
		if r, err := filepath.Rel(b, filepath.Clean(abs)); err == nil && (filepath.IsLocal(r) || r == ".") {
			return r, true
		}
	}
	return "", false
}

func isMarkdown(p string) bool { return strings.EqualFold(path.Ext(p), ".md") }

// walk calls fn for each regular Markdown file under dir (a clean
// relative path, "." for all), skipping hidden directories, in lexical
// order. It stops with an error past maxFiles.
func walk(ctx context.Context, root *os.Root, dir string, fn func(rel string, fi iofs.FileInfo) error) error {
	n := 0
	return iofs.WalkDir(root.FS(), dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return iofs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isMarkdown(p) {
			return nil
		}
		if n++; n > maxFiles {
			return fmt.Errorf("more than %d Markdown files in the workspace", maxFiles)
		}
		fi, err := d.Info()
		if errors.Is(err, iofs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		return fn(p, fi)
	})
}

// writeAtomic replaces rel with data through a temporary file in the
// same directory, creating missing parents 0700. A new file gets mode
// 0600; a replaced one keeps its mode.
func writeAtomic(root *os.Root, rel string, data []byte) error {
	dir := path.Dir(rel)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create directory %s: %w", dir, err)
		}
	}
	perm := iofs.FileMode(0o600)
	if fi, err := root.Stat(rel); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		perm = fi.Mode().Perm()
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, ".memory-"+hex.EncodeToString(rnd[:])+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // the umask may have narrowed it
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}
