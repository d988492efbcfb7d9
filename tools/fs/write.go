package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

type writeArgs struct {
	Path    string `json:"path" jsonschema:"description=File path relative to the workspace"`
	Content string `json:"content" jsonschema:"description=The whole new content of the file"`
	// CreateDirs is a pointer so that its default can be true.
	CreateDirs *bool `json:"createDirs,omitempty" jsonschema:"description=Create missing parent directories (default true)"`
}

func newWrite(w opener) tools.Tool {
	return tools.NewTyped(spec("write", "Write file",
		"Create or replace a file in the workspace with the given content. The write is atomic.",
		true),
		func(ctx context.Context, c tools.Call, a writeArgs) (tools.Result, error) {
			ws, err := w.open(c.Who)
			if err != nil {
				return tools.Result{}, err
			}
			defer ws.Close()
			rel, err := ws.rel(a.Path)
			if err != nil {
				return tools.Result{}, err
			}
			if err := ws.writable(rel); err != nil {
				return tools.Result{}, err
			}
			name := displayPath(rel)
			mkdirs := a.CreateDirs == nil || *a.CreateDirs
			if !mkdirs {
				if dir := filepath.Dir(rel); dir != "." {
					if _, err := ws.stat(ctx, dir); errors.Is(err, iofs.ErrNotExist) {
						return tools.Result{}, fmt.Errorf("write %s: directory %s does not exist (createDirs is false)", name, displayPath(dir))
					}
				}
			}
			if err := ws.put(ctx, rel, []byte(a.Content), mkdirs); err != nil {
				return tools.Result{}, fmt.Errorf("write %s: %w", name, err)
			}
			return tools.Result{Text: fmt.Sprintf("wrote %d bytes to %s", len(a.Content), name)}, nil
		})
}

type editArgs struct {
	Path       string `json:"path" jsonschema:"description=File path relative to the workspace"`
	OldText    string `json:"oldText" jsonschema:"description=Exact text to find; include enough context to match one place"`
	NewText    string `json:"newText" jsonschema:"description=Text to put in its place"`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"description=Replace every match instead of requiring exactly one"`
}

func newEdit(w opener) tools.Tool {
	return tools.NewTyped(spec("edit", "Edit file",
		"Replace oldText with newText in a workspace file. oldText must match exactly one place unless replaceAll is set.",
		true),
		func(ctx context.Context, c tools.Call, a editArgs) (tools.Result, error) {
			ws, err := w.open(c.Who)
			if err != nil {
				return tools.Result{}, err
			}
			defer ws.Close()
			text, err := ws.edit(ctx, a)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: text}, nil
		})
}

func (ws *Workspace) edit(ctx context.Context, a editArgs) (string, error) {
	rel, err := ws.rel(a.Path)
	if err != nil {
		return "", err
	}
	if err := ws.writable(rel); err != nil {
		return "", err
	}
	name := displayPath(rel)
	if a.OldText == "" {
		return "", fmt.Errorf("edit %s: oldText is empty", name)
	}
	data, err := ws.readAll(ctx, rel)
	if err != nil {
		return "", fmt.Errorf("edit %s: %w", name, err)
	}
	old := string(data)
	n := strings.Count(old, a.OldText)
	switch {
	case n == 0:
		return "", fmt.Errorf("oldText not found in %s", name)
	case n > 1 && !a.ReplaceAll:
		return "", fmt.Errorf("oldText matches %d places in %s; add context or set replaceAll", n, name)
	}
	var updated string
	if a.ReplaceAll {
		updated = strings.ReplaceAll(old, a.OldText, a.NewText)
	} else {
		updated = strings.Replace(old, a.OldText, a.NewText, 1)
	}
	if err := ws.put(ctx, rel, []byte(updated), false); err != nil {
		return "", fmt.Errorf("edit %s: %w", name, err)
	}
	if n == 1 {
		return fmt.Sprintf("replaced 1 match in %s", name), nil
	}
	return fmt.Sprintf("replaced %d matches in %s", n, name), nil
}
