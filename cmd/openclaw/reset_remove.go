package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/service"
	"github.com/openclaw-go/openclaw/gateway/statelock"
)

// The deleting half of reset and uninstall. Everything inside the state
// directory is removed through an os.Root opened on it, so a symbolic
// link in the state (planted by a tool, a plugin or a model that can
// write files there) is removed as a link and never followed to what it
// names. Paths outside the state directory are only ever the config file
// the environment names and, for uninstall --workspace, workspaces that
// pass safeWorkspace.

// removal is one path to delete; keep are paths under it that stay.
type removal struct {
	path string
	keep []string
	// outside marks a path outside the state directory.
	outside bool
}

// insideDir reports whether p is dir or under it, with p relative to dir.
func insideDir(dir, p string) (string, bool) {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// removeInState deletes target, which must be stateDir or lie inside it,
// leaving the keep paths (and the directories leading to them).
func removeInState(stateDir, target string, keep []string) error {
	rel, ok := insideDir(stateDir, target)
	if !ok {
		return fmt.Errorf("refusing to remove %s: it is outside the state directory %s", target, stateDir)
	}
	root, err := os.OpenRoot(stateDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open state directory %s: %w", stateDir, err)
	}
	defer root.Close()
	var keepRel []string
	for _, k := range keep {
		if r, ok := insideDir(target, k); ok && r != "." {
			kr, _ := insideDir(stateDir, k)
			keepRel = append(keepRel, filepath.ToSlash(kr))
		}
	}
	if err := removeUnder(root, filepath.ToSlash(rel), keepRel); err != nil {
		return fmt.Errorf("remove %s: %w", target, err)
	}
	if rel == "." && len(keepRel) == 0 {
		// The emptied state directory itself (a link to it: the link).
		if err := os.Remove(stateDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", stateDir, err)
		}
	}
	return nil
}

// removeUnder removes rel inside root except the keep paths. A directory
// holding a kept path is descended into (never through a link); anything
// else goes with root.RemoveAll, which removes a link, not its target.
func removeUnder(root *os.Root, rel string, keep []string) error {
	holdsKept := false
	for _, k := range keep {
		if k == rel {
			return nil
		}
		if rel == "." || strings.HasPrefix(k, rel+"/") {
			holdsKept = true
		}
	}
	if !holdsKept {
		if rel == "." {
			return removeChildren(root, rel, nil)
		}
		err := root.RemoveAll(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	fi, err := root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return root.RemoveAll(rel)
	}
	return removeChildren(root, rel, keep)
}

func removeChildren(root *os.Root, rel string, keep []string) error {
	f, err := root.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return err
	}
	for _, e := range ents {
		child := e.Name()
		if rel != "." {
			child = rel + "/" + e.Name()
		}
		if err := removeUnder(root, child, keep); err != nil {
			return err
		}
	}
	return nil
}

// removeConfigFile deletes the config file where the environment puts it
// outside the state directory: one file (or the link naming it), never a
// directory.
func removeConfigFile(p string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("refusing to remove the config path %s: it is a directory", p)
	}
	return os.Remove(p)
}

// safeWorkspace refuses workspace paths whose removal would take more
// than a workspace: the filesystem root, the home directory or one of its
// ancestors, or a directory holding the state.
func safeWorkspace(ws, home, stateDir string) error {
	clean := filepath.Clean(ws)
	if !filepath.IsAbs(clean) {
		return fmt.Errorf("workspace %q is not an absolute path", ws)
	}
	if clean == filepath.Dir(clean) {
		return fmt.Errorf("refusing to remove workspace %s: it is the filesystem root", ws)
	}
	if home != "" {
		if _, ok := insideDir(clean, home); ok {
			return fmt.Errorf("refusing to remove workspace %s: it holds the home directory %s", ws, home)
		}
	}
	if _, ok := insideDir(clean, stateDir); ok {
		return fmt.Errorf("refusing to remove workspace %s: it holds the state directory %s", ws, stateDir)
	}
	return nil
}

// removeWorkspaceOutside deletes a workspace outside the state directory
// (a link there: the link).
func removeWorkspaceOutside(ws, home, stateDir string) error {
	if err := safeWorkspace(ws, home, stateDir); err != nil {
		return err
	}
	if err := os.RemoveAll(ws); err != nil {
		return fmt.Errorf("remove workspace %s: %w", ws, err)
	}
	return nil
}

// gatewayHoldsState refuses while a gateway runs on the state: deleting
// its database and credentials under it would leave it writing into
// unlinked files and recreating half a state.
func gatewayHoldsState(stateDir string) error {
	if owner, ok := statelock.Read(stateDir); ok {
		return fmt.Errorf("a gateway is running on %s (%s); stop it first (`openclaw gateway stop`, or end the process)", stateDir, owner)
	}
	return nil
}

// stopManagedGateway stops the gateway service when one is installed and
// running; no service manager here means nothing to stop.
func (a *app) stopManagedGateway(ctx context.Context) (bool, error) {
	t, err := a.serviceTarget()
	if err != nil {
		return false, nil
	}
	s := a.lifecycleSpec(t, service.Gateway)
	st, err := t.m.Status(ctx, s)
	if err != nil || !st.Active {
		return false, nil
	}
	if err := t.m.Stop(ctx, s, false); err != nil {
		return false, fmt.Errorf("stop the gateway service: %w", err)
	}
	return true, nil
}

// tildePath shows p with the home directory as ~.
func tildePath(p, home string) string {
	if home != "" {
		if rel, ok := insideDir(home, p); ok {
			if rel == "." {
				return "~"
			}
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return p
}
