// Package docextract holds DocumentExtractTool (a MateClaw tool name):
// it returns the text of a PDF, DOCX or XLSX file in the caller's
// workspace, and passes plain text (markdown, CSV, …) through.
//
// The format is taken from the file's content (magic bytes, zip entries),
// never from its extension alone, so a renamed file is still read
// correctly and an unknown one is refused with the type that was seen.
// Files are opened only through the workspace's os.Root, so paths that
// escape it are refused. Third-party parsers run under recover: a
// malformed file must give the model an error, never crash the gateway.
package docextract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// Limits of one call.
const (
	// MaxFileBytes is the largest file read: bigger ones would hold the
	// parsers' memory for little gain in what a model can read anyway.
	MaxFileBytes = 50 << 20
	// DefaultMaxChars and CapMaxChars bound the text handed back.
	DefaultMaxChars = 50000
	CapMaxChars     = 200000
)

// Args are DocumentExtractTool's arguments.
type Args struct {
	Path     string `json:"path" jsonschema:"description=File path inside your workspace (PDF\\, DOCX\\, XLSX or plain text)"`
	MaxChars int    `json:"maxChars,omitempty" jsonschema:"description=Most characters of text to return (default 50000\\, at most 200000)"`
	Sheet    string `json:"sheet,omitempty" jsonschema:"description=XLSX only: the one sheet to read (default all sheets)"`
	Pages    string `json:"pages,omitempty" jsonschema:"description=PDF only: pages to read such as 1-3 or 2 or 1-3\\,7 (default all)"`
}

// Tools returns DocumentExtractTool. workspace maps a caller to its
// workspace directory.
func Tools(workspace func(who tools.Who) (string, error)) []tools.Tool {
	t := tools.NewTyped(tools.Spec{
		Name:  "DocumentExtractTool",
		Label: "Extract document text",
		Description: "Extract the text of a PDF, DOCX or XLSX file (or plain text) in your workspace. " +
			"XLSX sheets come as '## SheetName' sections of tab-separated rows; DOCX headings as markdown '#'. " +
			"Use pages (PDF) or sheet (XLSX) to read part of a large document.",
		Tier:    tools.TierCore,
		Source:  tools.SourceCore,
		Timeout: tools.TimeoutFast,
		Groups:  []string{"group:fs"},
	}, func(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
		dir, err := workspace(c.Who)
		if err != nil {
			return tools.Result{}, fmt.Errorf("resolve workspace: %w", err)
		}
		ws, err := fs.OpenWorkspace(dir)
		if err != nil {
			return tools.Result{}, err
		}
		defer ws.Close()
		text, err := run(ctx, ws, a, c.MaxChars)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: text}, nil
	})
	return []tools.Tool{t}
}

// run reads the file named by a inside ws and renders its text in at
// most limit characters (0: no limit).
func run(ctx context.Context, ws *fs.Workspace, a Args, limit int) (string, error) {
	maxChars := a.MaxChars
	switch {
	case maxChars < 0:
		return "", fmt.Errorf("maxChars %d is negative", maxChars)
	case maxChars == 0:
		maxChars = DefaultMaxChars
	case maxChars > CapMaxChars:
		maxChars = CapMaxChars
	}
	rel, err := ws.Rel(a.Path)
	if err != nil {
		return "", err
	}
	// Stat before Open: opening a FIFO or device would block the call.
	st, err := ws.Root().Stat(rel)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", rel, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (%s)", rel, st.Mode().Type())
	}
	if st.Size() > MaxFileBytes {
		return "", fmt.Errorf("%s is %.1f MB; documents over %d MB are not extracted", rel, float64(st.Size())/(1<<20), MaxFileBytes>>20)
	}
	f, err := ws.Open(rel)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", rel, err)
	}
	defer f.Close()
	// Read through a limit as well: the file may grow after Stat.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	if len(data) > MaxFileBytes {
		return "", fmt.Errorf("%s is over %d MB; documents that large are not extracted", rel, MaxFileBytes>>20)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("extract %s: %w", rel, err)
	}
	// The parsers look at ctx only between pages and sheets; one slow
	// page must not hold the call past its timeout, so the call returns
	// when ctx ends and the parse finishes (and is dropped) on its own.
	type outcome struct {
		d   document
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		d, err := extract(ctx, data, options{sheet: a.Sheet, pages: a.Pages})
		done <- outcome{d, err}
	}()
	select {
	case <-ctx.Done():
		return "", fmt.Errorf("extract %s: %w", rel, ctx.Err())
	case o := <-done:
		if o.err != nil {
			return "", fmt.Errorf("extract %s: %w", rel, o.err)
		}
		return renderWithin(rel, o.d, maxChars, limit), nil
	}
}

// options are the per-format selections of a call.
type options struct {
	sheet string
	pages string
}

// document is what a format's extractor found.
type document struct {
	format string
	// parts describes the document's size, e.g. "pages: 3 (showing 1-2)".
	parts string
	text  string
	// total is the length in runes of the whole text when text holds
	// only its start (0: text is all of it).
	total int
	// more says how to read what a truncated text left out, beyond a
	// bigger maxChars (e.g. "use pages" for a PDF).
	more string
}

// errUnknownFormat is returned for files no extractor reads.
var errUnknownFormat = errors.New("unsupported format")

// extract detects data's format and extracts its text. A panic in a
// parser becomes an error: malformed documents are common and must not
// take down the gateway.
func extract(ctx context.Context, data []byte, o options) (d document, err error) {
	kind := detect(data)
	defer func() {
		if p := recover(); p != nil {
			d, err = document{}, fmt.Errorf("%s parser failed on malformed input: %v", kind, p)
		}
	}()
	switch kind {
	case kindPDF:
		return extractPDF(ctx, data, o.pages)
	case kindDOCX:
		return extractDOCX(data)
	case kindXLSX:
		return extractXLSX(ctx, data, o.sheet)
	case kindText:
		s := strings.TrimPrefix(string(data), "\uFEFF")
		return document{format: "text", parts: fmt.Sprintf("lines: %d", strings.Count(s, "\n")+1), text: s, more: "page through it with read (startLine)"}, nil
	}
	return document{}, fmt.Errorf("%w: detected %s; DocumentExtractTool reads PDF, DOCX, XLSX and plain text", errUnknownFormat, kind)
}

// renderWithin renders d in at most limit characters (0: no limit): the
// text gives up the room its header and note need, and the note names
// the most one answer can show, so it survives the runner's cap.
func renderWithin(rel string, d document, maxChars, limit int) string {
	ceiling := CapMaxChars
	out := render(rel, d, maxChars, ceiling)
	for range 4 {
		over := utf8.RuneCountInString(out) - limit
		if limit <= 0 || over <= 0 || maxChars == 0 {
			break
		}
		maxChars = max(0, maxChars-over-16) // the note's numbers may grow
		ceiling = min(ceiling, maxChars)
		out = render(rel, d, maxChars, ceiling)
	}
	return out
}

// render puts the header on d's text and cuts it to maxChars runes;
// ceiling is the most maxChars one answer can show.
func render(rel string, d document, maxChars, ceiling int) string {
	text := d.text
	total := max(utf8.RuneCountInString(text), d.total)
	var note string
	if total > maxChars {
		cut := 0
		for i := range text {
			if cut == maxChars {
				text = text[:i]
				break
			}
			cut++
		}
		note = fmt.Sprintf("truncated: showing the first %d of %d characters", maxChars, total)
		var ways []string
		if maxChars < ceiling {
			ways = append(ways, fmt.Sprintf("call again with a larger maxChars (at most %d)", ceiling))
		}
		if d.more != "" {
			ways = append(ways, d.more)
		}
		if len(ways) > 0 {
			note += "; to read more, " + strings.Join(ways, " or ")
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "file: %s\nformat: %s\n", rel, d.format)
	if d.parts != "" {
		fmt.Fprintf(&b, "%s\n", d.parts)
	}
	if note != "" {
		fmt.Fprintf(&b, "%s\n", note)
	}
	b.WriteString("\n")
	b.WriteString(text)
	if note != "" {
		b.WriteString("\n[… truncated]")
	}
	return b.String()
}
