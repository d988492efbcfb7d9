package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces the config file at path with data so that a reader,
// or the gateway's watcher, never sees half a file: it writes a temporary
// file beside it, syncs it and renames it over. The file keeps its mode;
// a new one gets 0600, in a directory created with 0700. Checking that
// nobody else changed the file meanwhile is the caller's job (compare
// Snapshot.Hash or the bytes read).
func WriteFile(path string, data []byte) error {
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write config: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".openclaw-*.json.tmp")
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	err = tmp.Chmod(mode)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}
