package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools"
)

// Defaults of read.
const (
	defaultMaxLines = 2000
	defaultMaxChars = 50000
	// sniffBytes is how much of a file is checked for NUL bytes.
	sniffBytes = 8000
	// countLimit bounds how far past the page read scans to count lines.
	countLimit = 32 << 20
)

type readArgs struct {
	Path        string `json:"path" jsonschema:"description=File path relative to the workspace"`
	StartLine   int    `json:"startLine,omitempty" jsonschema:"description=First line to return (1-based; default 1),minimum=1"`
	MaxLines    int    `json:"maxLines,omitempty" jsonschema:"description=Most lines to return (default 2000),minimum=1"`
	StartColumn int    `json:"startColumn,omitempty" jsonschema:"description=First character to return inside startLine (1-based; default 1) for paging through a very long line,minimum=1"`
	MaxChars    int    `json:"maxChars,omitempty" jsonschema:"description=Most characters to return not counting line breaks (default 50000),minimum=1"`
}

func newRead(w opener) tools.Tool {
	return tools.NewTyped(spec("read", "Read file",
		"Read a text file in the workspace. Long files come in pages: when the answer is truncated it ends with nextStartLine (and nextStartColumn inside a very long line) to pass back as startLine and startColumn.",
		false),
		func(ctx context.Context, c tools.Call, a readArgs) (tools.Result, error) {
			ws, err := w.open(c.Who)
			if err != nil {
				return tools.Result{}, err
			}
			defer ws.Close()
			text, err := ws.read(ctx, a, c.MaxChars)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: text}, nil
		})
}

// readFrameChars is room for a page's header and footer besides the
// path: what read keeps free of the caller's cap so the hints survive.
const readFrameChars = 200

// read answers one page. limit is the caller's cap on the whole answer
// (0: none): the page is cut to fit under it with its header and its
// nextStartLine/nextStartColumn footer, never cut after them.
func (ws *Workspace) read(ctx context.Context, a readArgs, limit int) (string, error) {
	if a.StartLine < 0 || a.MaxLines < 0 || a.StartColumn < 0 || a.MaxChars < 0 {
		return "", errors.New("startLine, maxLines, startColumn and maxChars must be positive")
	}
	startLine, startCol := max(a.StartLine, 1), max(a.StartColumn, 1)
	maxLines, maxChars := a.MaxLines, a.MaxChars
	if maxLines == 0 {
		maxLines = defaultMaxLines
	}
	if maxChars == 0 {
		maxChars = defaultMaxChars
	}
	rel, err := ws.rel(a.Path)
	if err != nil {
		return "", err
	}
	name := displayPath(rel)
	var (
		src  io.Reader
		size int64
	)
	if ws.remote != nil {
		// The remote side refuses folders, devices and linked files.
		data, err := ws.readAll(ctx, rel)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", name, err)
		}
		src, size = bytes.NewReader(data), int64(len(data))
	} else {
		f, err := ws.Open(rel)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", name, err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return "", fmt.Errorf("read %s: %w", name, err)
		}
		if fi.IsDir() {
			return "", fmt.Errorf("read %s: it is a directory", name)
		}
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("read %s: not a regular file", name)
		}
		src, size = f, fi.Size()
	}
	br := bufio.NewReaderSize(src, 64<<10)
	if head, _ := br.Peek(sniffBytes); bytes.IndexByte(head, 0) >= 0 {
		return fmt.Sprintf("[%s: binary file, %d bytes; read shows text files only]", name, size), nil
	}
	if size == 0 {
		return fmt.Sprintf("[%s: empty file]", name), nil
	}
	p := pager{br: br, line: 1}
	if err := p.skipLines(startLine); err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	if err := p.skipColumns(startCol); err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	maxRunes := -1 // no cap
	if limit > 0 {
		maxRunes = max(1, limit-readFrameChars-utf8.RuneCountInString(name))
	}
	body, next, err := p.page(maxLines, maxChars, maxRunes)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	total, counted := p.countRest(next)

	var b strings.Builder
	fmt.Fprintf(&b, "[%s: ", name)
	if p.last == startLine {
		fmt.Fprintf(&b, "line %d", startLine)
	} else {
		fmt.Fprintf(&b, "lines %d-%d", startLine, p.last)
	}
	if counted {
		fmt.Fprintf(&b, " of %d", total)
	}
	if startCol > 1 {
		fmt.Fprintf(&b, ", from column %d", startCol)
	}
	b.WriteString("]\n")
	b.WriteString(strings.TrimSuffix(body, "\n"))
	switch {
	case next.line == 0:
	case next.col > 1 && p.capped:
		fmt.Fprintf(&b, "\n[truncated to fit the result limit inside line %d: nextStartLine=%d nextStartColumn=%d]", next.line, next.line, next.col)
	case next.col > 1:
		fmt.Fprintf(&b, "\n[truncated at maxChars inside line %d: nextStartLine=%d nextStartColumn=%d]", next.line, next.line, next.col)
	default:
		fmt.Fprintf(&b, "\n[truncated: nextStartLine=%d]", next.line)
	}
	return b.String(), nil
}

// pager walks a text file by lines and characters (runes).
type pager struct {
	br   *bufio.Reader
	line int // line of the next rune
	col  int // column of the next rune
	last int // last line any output came from
	// capped says the page ended at the caller's cap, not at maxChars.
	capped bool
}

// position is where the next page starts; line 0 means there is none.
type position struct{ line, col int }

func (p *pager) skipLines(start int) error {
	for p.line < start {
		chunk, err := p.br.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			total := p.line - 1
			if len(chunk) > 0 {
				total++
			}
			return fmt.Errorf("startLine %d is past the end of the file (%d lines)", start, total)
		case err != nil:
			return err
		}
		p.line++
	}
	if _, err := p.br.Peek(1); err == io.EOF {
		return fmt.Errorf("startLine %d is past the end of the file (%d lines)", start, p.line-1)
	}
	return nil
}

func (p *pager) skipColumns(start int) error {
	p.col = 1
	for p.col < start {
		r, _, err := p.br.ReadRune()
		if err == io.EOF || r == '\n' {
			return fmt.Errorf("startColumn %d is past the end of line %d (%d characters)", start, p.line, p.col-1)
		}
		if err != nil {
			return err
		}
		p.col++
	}
	return nil
}

// page reads up to maxLines lines and maxChars characters (not counting
// line breaks), and at most maxRunes characters in all when maxRunes is
// not negative, and says where the rest starts.
func (p *pager) page(maxLines, maxChars, maxRunes int) (string, position, error) {
	var b strings.Builder
	lines, chars, runes := 1, 0, 0
	p.last = p.line
	for {
		if chars >= maxChars || (maxRunes >= 0 && runes >= maxRunes) {
			p.capped = chars < maxChars
			r, _, err := p.br.ReadRune()
			if err == io.EOF {
				return b.String(), position{}, nil
			}
			if err != nil {
				return "", position{}, err
			}
			if r != '\n' {
				p.br.UnreadRune()
				return b.String(), position{p.line, p.col}, nil
			}
			b.WriteByte('\n')
			p.line, p.col = p.line+1, 1
			if _, err := p.br.Peek(1); err == io.EOF {
				return b.String(), position{}, nil
			}
			return b.String(), position{p.line, 1}, nil
		}
		r, _, err := p.br.ReadRune()
		if err == io.EOF {
			return b.String(), position{}, nil
		}
		if err != nil {
			return "", position{}, err
		}
		b.WriteRune(r)
		runes++
		if r != '\n' {
			chars++
			p.col++
			continue
		}
		p.line, p.col = p.line+1, 1
		if _, err := p.br.Peek(1); err == io.EOF {
			return b.String(), position{}, nil
		}
		if lines == maxLines {
			return b.String(), position{p.line, 1}, nil
		}
		lines++
		p.last = p.line
	}
}

// countRest counts the file's lines by scanning what is left, up to
// countLimit bytes.
func (p *pager) countRest(next position) (int, bool) {
	if next.line == 0 {
		return p.last, true
	}
	// Lines before the next rune's line, plus that line and those after.
	total := p.line - 1
	var buf [32 << 10]byte
	scanned, midLine := 0, true
	for {
		n, err := p.br.Read(buf[:])
		scanned += n
		chunk := buf[:n]
		total += bytes.Count(chunk, []byte{'\n'})
		if n > 0 {
			midLine = chunk[n-1] != '\n'
		}
		if err != nil {
			break
		}
		if scanned > countLimit {
			return 0, false
		}
	}
	if midLine {
		total++
	}
	return total, true
}
