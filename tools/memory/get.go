package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools"
)

// Limits of memory_get: lines returned by one call, and the largest file
// it reads.
const (
	maxGetLines = 2000
	maxGetBytes = 16 << 20
)

// GetArgs are memory_get's arguments.
type GetArgs struct {
	Path      string `json:"path" jsonschema:"description=Markdown file relative to the workspace, as memory_search reports it"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"minimum=1,description=First line to return, 1-based (default 1)"`
	Lines     int    `json:"lines,omitempty" jsonschema:"minimum=1,maximum=2000,description=How many lines to return (default to the end of the file; at most 2000)"`
}

// getResult is what memory_get returns, as JSON.
type getResult struct {
	Path       string `json:"path"`
	StartLine  int    `json:"startLine"`
	EndLine    int    `json:"endLine"`
	TotalLines int    `json:"totalLines"`
	Text       string `json:"text"`
	// NextStartLine is set when lines remain past EndLine.
	NextStartLine int `json:"nextStartLine,omitempty"`
	// Note says when a line was too long for one answer.
	Note string `json:"note,omitempty"`
}

// encode is r's JSON in at most limit characters (0: no limit): lines
// past what fits are left to nextStartLine, and a single line longer than
// the whole answer is cut with a note, so the hint survives the runner's
// cap instead of pointing past lines it cut.
func (r getResult) encode(limit int) ([]byte, error) {
	for range 32 {
		out, err := json.Marshal(r)
		if err != nil || limit <= 0 {
			return out, err
		}
		over := utf8.RuneCount(out) - limit
		if over <= 0 {
			return out, nil
		}
		lines := strings.Split(r.Text, "\n")
		if len(lines) > 1 {
			drop, cut := 0, 0
			for drop < len(lines)-1 && cut < over {
				cut += utf8.RuneCountInString(lines[len(lines)-1-drop]) + 1
				drop++
			}
			r.Text = strings.Join(lines[:len(lines)-drop], "\n")
			r.EndLine -= drop
			r.NextStartLine = r.EndLine + 1
			continue
		}
		text := []rune(r.Text)
		keep := max(0, len(text)-over-160)
		if r.Note == "" {
			r.Note = fmt.Sprintf("line %d has %d characters, more than one answer holds: it is cut; the read tool pages through it with startColumn", r.StartLine, len(text))
		}
		r.Text = string(text[:keep])
	}
	return json.Marshal(r)
}

func newGet(w workspaceFunc) tools.Tool {
	return tools.NewTyped(spec("memory_get", "Read memory",
		"Read lines of a Markdown memory file in your workspace, such as a passage memory_search found."),
		func(ctx context.Context, c tools.Call, a GetArgs) (tools.Result, error) {
			ws, err := w.open(c.Who)
			if err != nil {
				return tools.Result{}, err
			}
			defer ws.Close()
			res, err := ws.get(a)
			if err != nil {
				return tools.Result{}, err
			}
			out, err := res.encode(c.MaxChars)
			if err != nil {
				return tools.Result{}, fmt.Errorf("encode result: %w", err)
			}
			return tools.Result{Text: string(out)}, nil
		})
}

func (ws *workspace) get(a GetArgs) (getResult, error) {
	rel, err := ws.rel(a.Path, true)
	if err != nil {
		return getResult{}, err
	}
	if a.StartLine < 0 || a.Lines < 0 {
		return getResult{}, fmt.Errorf("memory_get %s: startLine and lines must be positive", rel)
	}
	fi, err := ws.Root().Stat(rel)
	if errors.Is(err, iofs.ErrNotExist) {
		return getResult{}, fmt.Errorf("memory_get %s: the file does not exist", rel)
	}
	if err != nil {
		return getResult{}, fmt.Errorf("memory_get %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxGetBytes {
		return getResult{}, fmt.Errorf("memory_get %s: not a regular file of at most %d bytes", rel, maxGetBytes)
	}
	data, err := ws.ReadFile(rel)
	if err != nil {
		return getResult{}, fmt.Errorf("memory_get %s: %w", rel, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(data) == 0 {
		lines = nil
	}
	start := max(a.StartLine, 1)
	n := a.Lines
	if n == 0 || n > maxGetLines {
		n = maxGetLines
	}
	res := getResult{Path: rel, StartLine: start, TotalLines: len(lines)}
	if start > len(lines) {
		if len(lines) == 0 && start == 1 {
			return res, nil
		}
		return getResult{}, fmt.Errorf("memory_get %s: startLine %d is past the end (%d lines)", rel, start, len(lines))
	}
	end := min(start-1+n, len(lines))
	res.EndLine = end
	res.Text = strings.Join(lines[start-1:end], "\n")
	if end < len(lines) {
		res.NextStartLine = end + 1
	}
	return res, nil
}
