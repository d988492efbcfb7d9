package fs

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
)

// ErrHardLinked is wrapped by the errors of OpenRead, ReadFile and
// CheckLinks for a file with more than one hard link. The caller reports
// it; the fix is the user's (see CheckLinks).
var ErrHardLinked = errors.New("the file has more than one hard link")

// CheckLinks refuses a regular file that has more than one hard link.
//
// An os.Root keeps symlinks from leading out of the workspace, but a hard
// link is not a link to follow: it is the other file itself, under a
// second name inside the workspace. Whether that other name lies outside
// cannot be told from the inode, so every regular file with more than one
// link is refused; what an agent writes has one (writes replace a file
// through a rename, so a write also breaks a link), and a file copied in
// has one. Directories always have several links and are not refused.
// The caller's error names the file.
func CheckLinks(fi iofs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return nil
	}
	if n, ok := linkCount(fi); ok && n > 1 {
		return fmt.Errorf("refused: %w (%d), so it may be a file outside the workspace under a name inside it; "+
			"to use it here, replace it with a copy (cp, not ln)", ErrHardLinked, n)
	}
	return nil
}

// OpenRead opens name for reading through root, refusing a regular file
// with more than one hard link (see CheckLinks). The check is made on the
// opened file, so the file checked is the file read. Every tool that
// reads a workspace file for the model goes through it, or through
// ReadFile or the Workspace methods of the same names.
func OpenRead(root *os.Root, name string) (*os.File, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = CheckLinks(fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the whole file name through root, as OpenRead opens it.
func ReadFile(root *os.Root, name string) ([]byte, error) {
	f, err := OpenRead(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Open is OpenRead in the workspace.
func (w *Workspace) Open(name string) (*os.File, error) { return OpenRead(w.root, name) }

// ReadFile is ReadFile in the workspace.
func (w *Workspace) ReadFile(name string) ([]byte, error) { return ReadFile(w.root, name) }

// The operations the file tools share between a local workspace (through
// its os.Root) and a remote one. rel is a clean workspace-relative path.

func (w *Workspace) readAll(ctx context.Context, rel string) ([]byte, error) {
	if w.remote != nil {
		return w.remote.ReadFile(ctx, filepath.ToSlash(rel))
	}
	return w.ReadFile(rel)
}

func (w *Workspace) put(ctx context.Context, rel string, data []byte, mkdirs bool) error {
	if w.remote != nil {
		return w.remote.WriteFile(ctx, filepath.ToSlash(rel), data, mkdirs)
	}
	return WriteAtomic(w.root, rel, data, mkdirs)
}

func (w *Workspace) remove(ctx context.Context, rel string) error {
	if w.remote != nil {
		return w.remote.Remove(ctx, filepath.ToSlash(rel))
	}
	return w.root.Remove(rel)
}

// lstat is root.Lstat locally; a remote Stat resolves symlinks (inside
// the workspace only), so a link there counts as what it points to.
func (w *Workspace) lstat(ctx context.Context, rel string) (iofs.FileInfo, error) {
	if w.remote != nil {
		return w.remote.Stat(ctx, filepath.ToSlash(rel))
	}
	return w.root.Lstat(rel)
}

func (w *Workspace) stat(ctx context.Context, rel string) (iofs.FileInfo, error) {
	if w.remote != nil {
		return w.remote.Stat(ctx, filepath.ToSlash(rel))
	}
	return w.root.Stat(rel)
}
