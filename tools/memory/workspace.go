package memory

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// WorkspaceArgs are WorkspaceMemoryTool's arguments.
type WorkspaceArgs struct {
	Action  string  `json:"action" jsonschema:"enum=read,enum=write,enum=edit,enum=list,description=read | write | edit | list"`
	Path    string  `json:"path,omitempty" jsonschema:"description=Markdown file relative to the workspace such as MEMORY.md or memory/2026-11-30.md; for list an optional directory (default the whole workspace)"`
	Content *string `json:"content,omitempty" jsonschema:"description=write: the whole new content of the file"`
	OldText string  `json:"oldText,omitempty" jsonschema:"description=edit: exact text to replace; it must occur exactly once"`
	NewText *string `json:"newText,omitempty" jsonschema:"description=edit: the text to put in its place"`
}

func newWorkspaceMemory(w workspaceFunc, ix *index) tools.Tool {
	return tools.NewTyped(spec("WorkspaceMemoryTool", "Workspace memory",
		"Read, write, edit or list the Markdown memory files in your workspace (MEMORY.md, PROFILE.md, "+
			"daily notes like memory/2026-11-30.md). Only .md files; writes and edits are atomic."),
		func(ctx context.Context, c tools.Call, a WorkspaceArgs) (tools.Result, error) {
			ws, err := w.open(c.Who)
			if err != nil {
				return tools.Result{}, err
			}
			defer ws.Close()
			var text string
			switch a.Action {
			case "read":
				text, err = ws.read(a.Path)
			case "write":
				text, err = ws.write(a)
			case "edit":
				text, err = ws.edit(a)
			case "list":
				text, err = ws.list(ctx, a.Path)
			default:
				return tools.Result{}, fmt.Errorf("unknown action %q: use read, write, edit or list", a.Action)
			}
			if err != nil {
				return tools.Result{}, err
			}
			if a.Action == "write" || a.Action == "edit" {
				// Make the next search re-read the file even if its size and
				// mtime happen to match. Failing to is harmless: the stat
				// check still catches almost every change.
				if rel, err := ws.rel(a.Path, true); err == nil {
					ix.forget(ctx, c.Who.AgentID, rel)
				}
			}
			return tools.Result{Text: text}, nil
		})
}

func (ws *workspace) read(p string) (string, error) {
	rel, err := ws.rel(p, true)
	if err != nil {
		return "", err
	}
	fi, err := ws.Root().Stat(rel)
	if errors.Is(err, iofs.ErrNotExist) {
		return "", fmt.Errorf("read %s: the file does not exist (use action list to see the memory files)", rel)
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("read %s: it is a directory", rel)
	}
	if fi.Size() > maxFileBytes {
		return "", fmt.Errorf("read %s: %d bytes is over the %d-byte limit; use memory_get to read it by lines", rel, fi.Size(), maxFileBytes)
	}
	data, err := ws.ReadFile(rel)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	return string(data), nil
}

func (ws *workspace) write(a WorkspaceArgs) (string, error) {
	rel, err := ws.rel(a.Path, true)
	if err != nil {
		return "", err
	}
	if a.Content == nil {
		return "", fmt.Errorf("write %s: content is required", rel)
	}
	if len(*a.Content) > maxFileBytes {
		return "", fmt.Errorf("write %s: %d bytes is over the %d-byte limit", rel, len(*a.Content), maxFileBytes)
	}
	if err := fs.WriteAtomic(ws.Root(), rel, []byte(*a.Content), true); err != nil {
		return "", fmt.Errorf("write %s: %w", rel, err)
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(*a.Content), rel), nil
}

func (ws *workspace) edit(a WorkspaceArgs) (string, error) {
	rel, err := ws.rel(a.Path, true)
	if err != nil {
		return "", err
	}
	switch {
	case a.OldText == "":
		return "", fmt.Errorf("edit %s: oldText is required", rel)
	case a.NewText == nil:
		return "", fmt.Errorf("edit %s: newText is required (use \"\" to delete oldText)", rel)
	}
	data, err := ws.ReadFile(rel)
	if errors.Is(err, iofs.ErrNotExist) {
		return "", fmt.Errorf("edit %s: the file does not exist (use action write to create it)", rel)
	}
	if err != nil {
		return "", fmt.Errorf("edit %s: %w", rel, err)
	}
	old := string(data)
	switch n := strings.Count(old, a.OldText); n {
	case 0:
		return "", fmt.Errorf("edit %s: oldText was not found", rel)
	case 1:
	default:
		return "", fmt.Errorf("edit %s: oldText occurs %d times; include more context so it matches once", rel, n)
	}
	updated := strings.Replace(old, a.OldText, *a.NewText, 1)
	if len(updated) > maxFileBytes {
		return "", fmt.Errorf("edit %s: the result would be over the %d-byte limit", rel, maxFileBytes)
	}
	if err := fs.WriteAtomic(ws.Root(), rel, []byte(updated), true); err != nil {
		return "", fmt.Errorf("edit %s: %w", rel, err)
	}
	return "edited " + rel, nil
}

func (ws *workspace) list(ctx context.Context, p string) (string, error) {
	dir := "."
	if p != "" {
		var err error
		if dir, err = ws.rel(p, false); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	err := walk(ctx, ws.Root(), dir, func(rel string, fi iofs.FileInfo) error {
		fmt.Fprintf(&b, "%s\t%d bytes\t%s\n", rel, fi.Size(), fi.ModTime().UTC().Format("2006-01-02 15:04"))
		return nil
	})
	if errors.Is(err, iofs.ErrNotExist) && dir != "." {
		return "", fmt.Errorf("list %s: no such directory", dir)
	}
	if err != nil {
		return "", fmt.Errorf("list %s: %w", dir, err)
	}
	if b.Len() == 0 {
		return "no memory files yet", nil
	}
	return b.String(), nil
}
