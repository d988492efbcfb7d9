package fs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/openclaw-go/openclaw/tools"
)

// Tools returns read, write, edit and apply_patch. workspace maps the
// caller to its workspace directory, which is created (0700) if missing.
// write, edit and apply_patch refuse to change anything in a reserved
// folder.
func Tools(workspace func(who tools.Who) (string, error), reserved ...Reserved) []tools.Tool {
	return ToolsWith(Config{Workspace: workspace, Reserved: reserved})
}

// Config is what the file tools need from the gateway.
type Config struct {
	// Workspace maps the caller to the folder its file tools act in: its
	// agent's workspace, or its sandbox's.
	Workspace func(who tools.Who) (string, error)
	// ReadOnly, when it gives a reason, refuses the caller every change
	// (a sandbox with workspaceAccess "ro"); nil refuses nothing.
	ReadOnly func(who tools.Who) string
	// Mount gives the workspace's absolute path inside the caller's
	// sandbox ("/workspace", "/agent"), so that paths under it name
	// workspace files; nil or "" for a caller on the host.
	Mount func(who tools.Who) string
	// Remote gives the caller's workspace when it lives on another
	// machine (an ssh sandbox's); nil, or a nil Remote, means Workspace.
	Remote   func(who tools.Who) (Remote, error)
	Reserved []Reserved
}

// Remote is a workspace the gateway cannot open itself: an ssh sandbox's,
// which lives on the remote host. rel is always a clean, slash-separated
// path inside the workspace, checked lexically here; each method keeps it
// inside on the remote side too, where its symlinks are resolved.
type Remote interface {
	// Dir is the workspace's path over there, for absolute paths.
	Dir() string
	// Stat describes rel, its symlinks resolved.
	Stat(ctx context.Context, rel string) (iofs.FileInfo, error)
	ReadFile(ctx context.Context, rel string) ([]byte, error)
	// WriteFile replaces rel atomically, creating missing folders when
	// mkdirs is set.
	WriteFile(ctx context.Context, rel string, data []byte, mkdirs bool) error
	// Remove deletes rel, a symlink itself rather than its target.
	Remove(ctx context.Context, rel string) error
}

// ToolsWith returns read, write, edit and apply_patch over cfg.
func ToolsWith(cfg Config) []tools.Tool {
	w := opener{dir: cfg.Workspace, readOnly: cfg.ReadOnly, mount: cfg.Mount, remote: cfg.Remote, reserved: cfg.Reserved}
	return []tools.Tool{newRead(w), newWrite(w), newEdit(w), newApplyPatch(w)}
}

// Reserved is a top-level workspace folder the file tools may read but
// not change, because another tool owns writes there: skills/ belongs to
// skill_manage, which asks a person first, since a skill is instructions
// and scripts later runs follow.
type Reserved struct {
	Dir string // folder name, matched without regard to case (as macOS and Windows file systems do)
	Use string // what to do instead, for the model: "use skill_manage"
}

func spec(name, label, desc string, dangerous bool) tools.Spec {
	return tools.Spec{
		Name:        name,
		Label:       label,
		Description: desc,
		Tier:        tools.TierCore,
		Dangerous:   dangerous,
		Timeout:     tools.TimeoutFast,
		Source:      tools.SourceCore,
		Groups:      []string{"group:fs"},
	}
}

// opener opens a caller's workspace with the reserved folders set.
type opener struct {
	dir      func(who tools.Who) (string, error)
	readOnly func(who tools.Who) string
	mount    func(who tools.Who) string
	remote   func(who tools.Who) (Remote, error)
	reserved []Reserved
}

// Workspace is one call's handle on an agent's workspace: the directory
// and an os.Root that keeps every open inside it, symlinks included. The
// memory tools share it so that both confine paths the same way.
type Workspace struct {
	dir      string
	root     *os.Root
	reserved []Reserved
	readOnly string // why nothing may change, or ""
	mount    string // the workspace's path inside the caller's sandbox, or ""
	// remote, when set, holds the files instead of root (which is nil).
	remote Remote
}

// open resolves and opens the caller's workspace. The caller closes it.
func (o opener) open(who tools.Who) (*Workspace, error) {
	ws, err := o.openDir(who)
	if err != nil {
		return nil, err
	}
	ws.reserved = o.reserved
	if o.readOnly != nil {
		ws.readOnly = o.readOnly(who)
	}
	if o.mount != nil {
		ws.mount = o.mount(who)
	}
	return ws, nil
}

func (o opener) openDir(who tools.Who) (*Workspace, error) {
	if o.remote != nil {
		r, err := o.remote(who)
		if err != nil {
			return nil, fmt.Errorf("resolve workspace: %w", err)
		}
		if r != nil {
			return &Workspace{dir: r.Dir(), remote: r}, nil
		}
	}
	dir, err := o.dir(who)
	if err != nil {
		return nil, fmt.Errorf("resolve workspace: %w", err)
	}
	return OpenWorkspace(dir)
}

// writable refuses rel, a clean workspace-relative path about to be
// written, created or removed, when it lies in a reserved folder: named
// so (in any case), or reached through a symlinked folder that leads
// there. The deepest folder of rel that exists decides where the file
// really lands; the folders below it are made as named.
func (w *Workspace) writable(rel string) error {
	if w.readOnly != "" {
		return fmt.Errorf("%s: the workspace is read-only here: %s", displayPath(rel), w.readOnly)
	}
	if len(w.reserved) == 0 {
		return nil
	}
	inReserved := func(p string) *Reserved {
		top, _, _ := strings.Cut(filepath.ToSlash(p), "/")
		for i, r := range w.reserved {
			if strings.EqualFold(top, r.Dir) {
				return &w.reserved[i]
			}
		}
		return nil
	}
	if r := inReserved(rel); r != nil {
		return fmt.Errorf("%s is in %s/, which the file tools do not change: %s", displayPath(rel), r.Dir, r.Use)
	}
	if w.remote != nil {
		// The remote side's folders are not the gateway's: a reserved
		// folder there is only a copy the gateway does not load.
		return nil
	}
	base, err := filepath.EvalSymlinks(w.dir)
	if err != nil {
		return nil // the os.Root refuses what cannot be resolved
	}
	for d := filepath.Dir(rel); ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(filepath.Join(w.dir, d)); err == nil {
			if r2, err := filepath.Rel(base, real); err == nil {
				if r := inReserved(r2); r != nil {
					return fmt.Errorf("%s leads into %s/, which the file tools do not change: %s", displayPath(rel), r.Dir, r.Use)
				}
			}
			return nil
		}
		if d == "." {
			return nil
		}
	}
}

// OpenWorkspace creates dir if missing (0700) and opens it as a
// Workspace. The caller closes it.
func OpenWorkspace(dir string) (*Workspace, error) {
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
	return &Workspace{dir: dir, root: root}, nil
}

// Root is the os.Root every file operation must go through.
func (w *Workspace) Root() *os.Root { return w.root }

// Rel is rel for other tool packages: a path named by the model, made
// relative to the workspace (slash-separated) or refused with a reason.
func (w *Workspace) Rel(p string) (string, error) {
	r, err := w.rel(p)
	return filepath.ToSlash(r), err
}

func (w *Workspace) Close() error {
	if w.root == nil {
		return nil
	}
	return w.root.Close()
}

// Limits on paths, checked before the kernel sees them.
const (
	maxPathBytes = 4096
	maxNameBytes = 255
)

// rel turns a path named by the model into a clean path relative to the
// workspace, or refuses it with an error naming it. It is a lexical
// check only; the os.Root does the symlink-safe part.
func (w *Workspace) rel(p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("path is empty")
	case strings.IndexByte(p, 0) >= 0:
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	case len(p) > maxPathBytes:
		return "", fmt.Errorf("path %q… is too long (%d bytes; the limit is %d)", p[:40], len(p), maxPathBytes)
	case strings.IndexByte(p, '\\') >= 0:
		return "", fmt.Errorf("path %q contains a backslash; use forward slashes relative to the workspace", p)
	}
	orig := p
	if w.mount != "" {
		// A sandboxed caller names its files as its commands see them.
		if rest, ok := strings.CutPrefix(p, w.mount); ok && (rest == "" || rest[0] == '/') {
			p = "." + rest
		}
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		r, ok := w.inside(p)
		if !ok {
			return "", fmt.Errorf("path %q is outside the workspace", orig)
		}
		p = r
	}
	c := filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsLocal(c) {
		return "", fmt.Errorf("path %q is outside the workspace", orig)
	}
	for _, part := range strings.Split(filepath.ToSlash(c), "/") {
		if len(part) > maxNameBytes {
			return "", fmt.Errorf("path %q has a name longer than %d bytes", orig[:min(len(orig), 40)]+"…", maxNameBytes)
		}
	}
	return c, nil
}

// inside reports whether the absolute path abs lies lexically in the
// workspace, as named or with its symlinks resolved, and returns it
// relative to the workspace.
func (w *Workspace) inside(abs string) (string, bool) {
	bases := []string{w.dir}
	if w.remote == nil {
		if a, err := filepath.Abs(w.dir); err == nil {
			bases = append(bases, a)
		}
		if r, err := filepath.EvalSymlinks(w.dir); err == nil {
			bases = append(bases, r)
		}
	}
	for _, b := range bases {
		r, err := filepath.Rel(b, filepath.Clean(abs))
		if err == nil && filepath.IsLocal(r) {
			return r, true
		}
	}
	return "", false
}

// WriteAtomic replaces rel with data through a temporary file in the same
// directory. A new file gets mode 0600; a replaced regular file keeps its
// mode. With mkdirs, missing parents are created 0700.
func WriteAtomic(root *os.Root, rel string, data []byte, mkdirs bool) error {
	dir := filepath.Dir(rel)
	if mkdirs && dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create directory %s: %w", filepath.ToSlash(dir), err)
		}
	}
	perm := iofs.FileMode(0o600)
	if fi, err := root.Stat(rel); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", filepath.ToSlash(rel))
		}
		if fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, ".openclaw-"+hex.EncodeToString(rnd[:])+".tmp")
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

// displayPath is how a workspace-relative path appears in results.
func displayPath(rel string) string { return filepath.ToSlash(rel) }

// WriteNew writes data to dir/<name>.<ext>, or the first free
// dir/<name>-N.<ext>, creating dir: a file the user may still be
// downloading is never replaced. The name is claimed with O_EXCL, so two
// concurrent calls cannot pick the same one. It returns the path written,
// slash-separated and relative to root.
func WriteNew(root *os.Root, dir, name, ext string, data []byte) (string, error) {
	if err := root.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s in workspace: %w", dir, err)
	}
	for i := 1; i <= 1000; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s-%d", name, i)
		}
		rel := path.Join(dir, n+"."+ext)
		f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("reserve %s in workspace: %w", rel, err)
		}
		f.Close()
		if err := WriteAtomic(root, rel, data, false); err != nil {
			root.Remove(rel)
			return "", fmt.Errorf("write %s in workspace: %w", rel, err)
		}
		return rel, nil
	}
	return "", fmt.Errorf("no free file name for %s.%s in %s", name, ext, dir)
}

// ExportName picks a file's base name (no extension) for WriteNew. A
// filename the model gave keeps only its last element, so a directory in
// it cannot point elsewhere, and loses a trailing .ext. Without one, the
// first usable seed (a title, the first heading) is slugged, lower-cased
// and given a random suffix, so repeated renders get distinct names.
func ExportName(filename, ext string, seeds ...string) string {
	if filename != "" {
		f := path.Base(strings.ReplaceAll(filename, "\\", "/"))
		if strings.EqualFold(path.Ext(f), "."+ext) {
			f = f[:len(f)-len(ext)-1]
		}
		if s := slug(f, true); s != "" {
			return s
		}
	}
	s := ""
	for _, seed := range seeds {
		if s = strings.ToLower(slug(seed, false)); s != "" {
			break
		}
	}
	if s == "" {
		s = "export"
	}
	var rnd [3]byte
	rand.Read(rnd[:])
	return s + "-" + hex.EncodeToString(rnd[:])
}

// slug keeps letters, digits, '-' and '_' (and '.' when keepDots), maps
// runs of anything else to one '-', stops at 60 runes, and trims dashes
// and dots from the ends: a leading dot would make a hidden file or "..".
func slug(s string, keepDots bool) string {
	var b strings.Builder
	dash, n := false, 0
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || (keepDots && r == '.')) {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
			continue
		}
		b.WriteRune(r)
		dash = false
		if n++; n >= 60 {
			break
		}
	}
	return strings.Trim(b.String(), "-.")
}
