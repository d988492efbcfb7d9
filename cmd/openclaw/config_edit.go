package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// editConfig applies edit to the config file's text and writes the result,
// keeping comments and layout (config.Set and Unset only touch the bytes
// of the value). It refuses an edit that would add errors to the file, and
// one that races with another writer. It returns the file's path.
func editConfig(a *app, dev bool, key string, edit func(src []byte) ([]byte, error)) (string, error) {
	paths, err := cliPaths(dev)
	if err != nil {
		return "", err
	}
	path := paths.ConfigPath
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // write through a symlinked config
	}
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read config: %w", err)
	}
	out, err := edit(src)
	if err != nil {
		return "", err
	}
	opts := config.LoadOptions{IncludeRoots: paths.IncludeRoots}
	before := map[string]bool{}
	if src != nil {
		for _, is := range parseErrors(path, src, opts) {
			before[is.Path+"\x00"+is.Message] = true
		}
	}
	var added config.Issues
	for _, is := range parseErrors(path, out, opts) {
		if !before[is.Path+"\x00"+is.Message] {
			added = append(added, is)
		}
	}
	if len(added) > 0 {
		return "", fmt.Errorf("refusing to write %s: the change would make it invalid:\n%s", path, added)
	}
	if snap, _ := config.Parse(path, out, opts); snap != nil {
		for _, w := range snap.Warnings {
			if w.Path == key || strings.HasPrefix(w.Path, key+".") || strings.HasPrefix(key, w.Path+".") {
				fmt.Fprintf(a.stderr, "warning: %s\n", w)
			}
		}
	}
	if err := writeConfigFile(path, src, out); err != nil {
		return "", err
	}
	return path, nil
}

// parseErrors returns the errors config.Parse finds in src.
func parseErrors(path string, src []byte, opts config.LoadOptions) config.Issues {
	_, err := config.Parse(path, src, opts)
	var lerr *config.LoadError
	if errors.As(err, &lerr) {
		return lerr.Issues
	}
	if err != nil {
		return config.Issues{{File: path, Message: err.Error()}}
	}
	return nil
}

// writeConfigFile replaces path with data atomically, keeping the file's
// mode (0600 for a new file: it may hold secrets). It fails if the file no
// longer holds old, i.e. someone else wrote it since it was read.
func writeConfigFile(path string, old, data []byte) error {
	cur, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if old != nil {
			return fmt.Errorf("write config %s: the file was removed while editing; try again", path)
		}
	case err != nil:
		return fmt.Errorf("write config: %w", err)
	case !bytes.Equal(cur, old):
		return fmt.Errorf("write config %s: the file changed while editing; try again", path)
	}
	return config.WriteFile(path, data)
}
