package memory

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
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

// workspace is one call's view of the caller's workspace, confined the
// same way as the file tools'.
type workspace struct{ *fs.Workspace }

// open resolves and opens the caller's workspace. The caller closes it.
func (f workspaceFunc) open(who tools.Who) (*workspace, error) {
	dir, err := f(who)
	if err != nil {
		return nil, fmt.Errorf("resolve workspace: %w", err)
	}
	w, err := fs.OpenWorkspace(dir)
	if err != nil {
		return nil, err
	}
	return &workspace{w}, nil
}

// rel turns a path named by the model into a clean slash-separated path
// relative to the workspace, or refuses it. With md, the path must name a
// Markdown file.
func (w *workspace) rel(p string, md bool) (string, error) {
	r, err := w.Rel(p)
	if err != nil {
		return "", err
	}
	if md && !isMarkdown(r) {
		return "", fmt.Errorf("path %q is not a Markdown file: memory files end in .md", p)
	}
	return r, nil
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

// IndexStats counts what the search index holds for an agent: Markdown
// files indexed and their chunks. The index is refreshed when the agent
// searches, so these are the figures of its last search.
func IndexStats(ctx context.Context, db *sql.DB, agentID string) (files, chunks int, err error) {
	if err := db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM memory_files WHERE agent_id = ?),
		(SELECT COUNT(*) FROM memory_chunks WHERE agent_id = ?)`, agentID, agentID).Scan(&files, &chunks); err != nil {
		return 0, 0, fmt.Errorf("memory index stats of %q: %w", agentID, err)
	}
	return files, chunks, nil
}
