package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

type applyPatchArgs struct {
	Patch string `json:"patch" jsonschema:"description=The patch text from *** Begin Patch to *** End Patch"`
}

func newApplyPatch(w opener) tools.Tool {
	return tools.NewTyped(spec("apply_patch", "Apply patch",
		"Apply a multi-file patch to the workspace: *** Begin Patch / *** Add File: path (lines prefixed +) / *** Update File: path (optional *** Move to: path; hunks after @@ with ' ' context / '-' removed / '+' added lines) / *** Delete File: path / *** End Patch. All changes apply or none do.",
		true),
		func(ctx context.Context, c tools.Call, a applyPatchArgs) (tools.Result, error) {
			ops, err := parsePatch(a.Patch)
			if err != nil {
				return tools.Result{}, fmt.Errorf("parse patch: %w", err)
			}
			ws, err := w.open(c.Who)
			if err != nil {
				return tools.Result{}, err
			}
			defer ws.Close()
			text, err := ws.applyPatch(ctx, ops)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: text}, nil
		})
}

// change is one validated file change: the file at path ends up holding
// data, or is removed when remove is set.
type change struct {
	path   string
	data   []byte
	remove bool
}

// original is a touched file as it was before the patch.
type original struct {
	path   string
	exists bool
	data   []byte
	perm   iofs.FileMode
}

// applyPatch validates every operation against the current files, then
// writes; if a write fails it restores what it already changed.
func (ws *Workspace) applyPatch(ctx context.Context, ops []fileOp) (string, error) {
	var (
		changes []change
		origs   []original
		summary []string
		seen    = map[string]int{} // path → patch line that touched it
	)
	claim := func(rel string, line int) error {
		if err := ws.writable(rel); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if prev, ok := seen[rel]; ok {
			return fmt.Errorf("line %d: %s is already changed by the section at line %d", line, displayPath(rel), prev)
		}
		seen[rel] = line
		o := original{path: rel}
		if fi, err := ws.lstat(ctx, rel); err == nil {
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("line %d: %s is not a regular file", line, displayPath(rel))
			}
			data, err := ws.readAll(ctx, rel)
			if err != nil {
				return fmt.Errorf("line %d: read %s: %w", line, displayPath(rel), err)
			}
			o.exists, o.data, o.perm = true, data, fi.Mode().Perm()
		} else if !errors.Is(err, iofs.ErrNotExist) {
			return fmt.Errorf("line %d: %s: %w", line, displayPath(rel), err)
		}
		origs = append(origs, o)
		return nil
	}
	current := func() *original { return &origs[len(origs)-1] }

	for _, op := range ops {
		rel, err := ws.rel(op.path)
		if err != nil {
			return "", fmt.Errorf("line %d: %w", op.line, err)
		}
		name := displayPath(rel)
		if err := claim(rel, op.line); err != nil {
			return "", err
		}
		o := current()
		switch op.kind {
		case opAdd:
			if o.exists {
				return "", fmt.Errorf("line %d: Add File %s: the file already exists; use Update File", op.line, name)
			}
			changes = append(changes, change{path: rel, data: []byte(joinLines(op.lines, true))})
			summary = append(summary, "A "+name)
		case opDelete:
			if !o.exists {
				return "", fmt.Errorf("line %d: Delete File %s: no such file", op.line, name)
			}
			changes = append(changes, change{path: rel, remove: true})
			summary = append(summary, "D "+name)
		case opUpdate:
			if !o.exists {
				return "", fmt.Errorf("line %d: Update File %s: no such file", op.line, name)
			}
			data, err := applyChunks(string(o.data), op.chunks)
			if err != nil {
				return "", fmt.Errorf("Update File %s: %w", name, err)
			}
			if op.moveTo == "" {
				changes = append(changes, change{path: rel, data: []byte(data)})
				summary = append(summary, "M "+name)
				break
			}
			dst, err := ws.rel(op.moveTo)
			if err != nil {
				return "", fmt.Errorf("line %d: Move to: %w", op.line, err)
			}
			if err := claim(dst, op.line); err != nil {
				return "", err
			}
			if current().exists {
				return "", fmt.Errorf("line %d: Move to %s: the file already exists", op.line, displayPath(dst))
			}
			changes = append(changes, change{path: dst, data: []byte(data)}, change{path: rel, remove: true})
			summary = append(summary, "R "+name+" -> "+displayPath(dst))
		}
	}

	for i, c := range changes {
		var err error
		if c.remove {
			err = ws.remove(ctx, c.path)
		} else {
			err = ws.put(ctx, c.path, c.data, true)
		}
		if err != nil {
			rerr := ws.restore(ctx, origs)
			msg := fmt.Sprintf("apply patch: %s: %v; no file was changed", displayPath(c.path), err)
			if rerr != nil {
				msg = fmt.Sprintf("apply patch: %s: %v; restoring the %d earlier changes failed too: %v", displayPath(c.path), err, i, rerr)
			}
			return "", errors.New(msg)
		}
	}
	return "applied patch:\n" + strings.Join(summary, "\n"), nil
}

// restore puts every touched file back as it was.
func (ws *Workspace) restore(ctx context.Context, origs []original) error {
	var errs []error
	for i := len(origs) - 1; i >= 0; i-- {
		o := origs[i]
		if o.exists {
			if err := ws.put(ctx, o.path, o.data, true); err != nil {
				errs = append(errs, err)
				continue
			}
			// A remote write keeps the mode of the file it replaces.
			if ws.remote != nil {
				continue
			}
			if err := ws.root.Chmod(o.path, o.perm); err != nil {
				errs = append(errs, err)
			}
		} else if err := ws.remove(ctx, o.path); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// applyChunks applies an update's chunks in order to text.
func applyChunks(text string, chunks []chunk) (string, error) {
	trailingNL := text == "" || strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	var out []string
	cursor := 0
	for i, c := range chunks {
		from := cursor
		if c.header != "" {
			h := findLines(lines, []string{c.header}, cursor, false)
			if h < 0 {
				return "", fmt.Errorf("hunk %d (line %d): context %q not found", i+1, c.line, c.header)
			}
			from = h + 1
			if len(c.old) > 0 && len(lines) > h && matchLine(lines[h], c.old[0]) {
				from = h // the header line is the hunk's first context line
			}
		}
		at := len(lines)
		if len(c.old) > 0 {
			at = findLines(lines, c.old, from, c.atEOF)
			if at < 0 {
				return "", fmt.Errorf("hunk %d (line %d): its context and removed lines do not match the file:\n%s", i+1, c.line, clip(strings.Join(c.old, "\n")))
			}
		} else if c.header != "" {
			at = from
		}
		out = append(out, lines[cursor:at]...)
		k := at // context lines keep the file's own text
		for j, kind := range c.body {
			switch kind {
			case ' ':
				out = append(out, lines[k])
				k++
			case '-':
				k++
			case '+':
				out = append(out, c.new[countNew(c.body[:j])])
			}
		}
		cursor = at + len(c.old)
	}
	out = append(out, lines[cursor:]...)
	return joinLines(out, trailingNL), nil
}

// findLines finds want in lines at or after from, exactly first and then
// ignoring surrounding whitespace. With atEOF only a match that ends the
// file counts. It returns -1 when there is none.
func findLines(lines, want []string, from int, atEOF bool) int {
	for _, eq := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return strings.TrimRight(a, " \t") == strings.TrimRight(b, " \t") },
		matchLine,
	} {
		start, end := from, len(lines)-len(want)
		if atEOF {
			start = max(from, end)
		}
	next:
		for i := start; i <= end; i++ {
			for j, w := range want {
				if !eq(lines[i+j], w) {
					continue next
				}
			}
			return i
		}
	}
	return -1
}

// countNew counts the lines of body that are in the new text.
func countNew(body []byte) int {
	n := 0
	for _, k := range body {
		if k != '-' {
			n++
		}
	}
	return n
}

func matchLine(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

func joinLines(lines []string, trailingNL bool) string {
	s := strings.Join(lines, "\n")
	if trailingNL && len(lines) > 0 {
		s += "\n"
	}
	return s
}
