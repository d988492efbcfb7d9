package fs

import (
	"fmt"
	"strings"
)

// The markers of OpenClaw's multi-file patch format.
const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	updateFile = "*** Update File: "
	deleteFile = "*** Delete File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

type opKind int

const (
	opAdd opKind = iota
	opUpdate
	opDelete
)

// fileOp is one file section of a patch.
type fileOp struct {
	kind   opKind
	path   string
	moveTo string   // update only; "" when the file stays
	lines  []string // add only: the new file's lines
	chunks []chunk  // update only
	line   int      // patch line of the section header
}

// chunk is one @@ section of an update: old lines (context and removed)
// are replaced by new lines (context and added).
type chunk struct {
	header string // text after "@@ ", a line to find before the chunk
	old    []string
	new    []string
	body   []byte // per line: ' ', '-' or '+'
	atEOF  bool   // "*** End of File": the chunk ends the file
	line   int    // patch line where the chunk starts
}

// parsePatch parses a patch. Errors name the 1-based patch line.
func parsePatch(text string) ([]fileOp, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != beginPatch {
		return nil, fmt.Errorf("line 1: the patch must start with %q", beginPatch)
	}
	last := len(lines) - 1
	if last == 0 || strings.TrimSpace(lines[last]) != endPatch {
		return nil, fmt.Errorf("line %d: the patch must end with %q", last+1, endPatch)
	}
	var ops []fileOp
	i := 1
	for i < last {
		l, n := lines[i], i+1
		switch {
		case strings.HasPrefix(l, addFile):
			op := fileOp{kind: opAdd, path: strings.TrimSpace(l[len(addFile):]), line: n}
			i++
			for ; i < last && !strings.HasPrefix(lines[i], "*** "); i++ {
				if j := blankRun(lines, i, last); j > i {
					i = j - 1
					continue
				}
				if !strings.HasPrefix(lines[i], "+") {
					return nil, fmt.Errorf("line %d: every line of an added file must start with '+'", i+1)
				}
				op.lines = append(op.lines, lines[i][1:])
			}
			ops = append(ops, op)
		case strings.HasPrefix(l, deleteFile):
			ops = append(ops, fileOp{kind: opDelete, path: strings.TrimSpace(l[len(deleteFile):]), line: n})
			i++
		case strings.HasPrefix(l, updateFile):
			op := fileOp{kind: opUpdate, path: strings.TrimSpace(l[len(updateFile):]), line: n}
			i++
			if i < last && strings.HasPrefix(lines[i], moveTo) {
				op.moveTo = strings.TrimSpace(lines[i][len(moveTo):])
				if op.moveTo == "" {
					return nil, fmt.Errorf("line %d: %q needs a path", i+1, strings.TrimSpace(moveTo))
				}
				i++
			}
			var err error
			if op.chunks, i, err = parseChunks(lines, i, last); err != nil {
				return nil, err
			}
			for _, c := range op.chunks {
				if len(c.old) == 0 && len(c.new) == 0 {
					return nil, fmt.Errorf("line %d: empty hunk", c.line)
				}
			}
			if len(op.chunks) == 0 && op.moveTo == "" {
				return nil, fmt.Errorf("line %d: Update File %s has no changes", n, op.path)
			}
			ops = append(ops, op)
		case strings.TrimSpace(l) == "":
			i++
		default:
			return nil, fmt.Errorf("line %d: expected a file header (%q, %q or %q), got %q", n,
				strings.TrimSpace(addFile), strings.TrimSpace(updateFile), strings.TrimSpace(deleteFile), clip(l))
		}
		if len(ops) > 0 && ops[len(ops)-1].path == "" {
			return nil, fmt.Errorf("line %d: the file header needs a path", n)
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("line %d: the patch changes no files", last+1)
	}
	return ops, nil
}

// parseChunks reads the chunks of an update from lines[i:last] and
// returns where the next file section starts.
func parseChunks(lines []string, i, last int) ([]chunk, int, error) {
	var chunks []chunk
	var cur *chunk
	for ; i < last; i++ {
		l, n := lines[i], i+1
		switch {
		case l == endOfFile:
			if cur == nil {
				return nil, i, fmt.Errorf("line %d: %q outside a hunk", n, endOfFile)
			}
			cur.atEOF = true
			continue
		case strings.HasPrefix(l, "*** "):
			return chunks, i, nil
		case l == "@@" || strings.HasPrefix(l, "@@ "):
			chunks = append(chunks, chunk{header: strings.TrimSpace(strings.TrimPrefix(l, "@@")), line: n})
			cur = &chunks[len(chunks)-1]
			continue
		}
		if j := blankRun(lines, i, last); j > i {
			i = j - 1
			continue
		}
		if cur == nil { // the first hunk may leave out its @@ line
			chunks = append(chunks, chunk{line: n})
			cur = &chunks[len(chunks)-1]
		} else if cur.atEOF {
			return nil, i, fmt.Errorf("line %d: hunk lines after %q", n, endOfFile)
		}
		if l == "" { // an empty context line whose leading space was lost
			l = " "
		}
		switch l[0] {
		case ' ':
			cur.old = append(cur.old, l[1:])
			cur.new = append(cur.new, l[1:])
		case '-':
			cur.old = append(cur.old, l[1:])
		case '+':
			cur.new = append(cur.new, l[1:])
		default:
			return nil, i, fmt.Errorf("line %d: a hunk line must start with ' ', '-' or '+', got %q", n, clip(l))
		}
		cur.body = append(cur.body, l[0])
	}
	return chunks, i, nil
}

// blankRun returns the end of the blank lines starting at i when only a
// section header or the end of the patch follows them, and i otherwise:
// blank lines between sections separate them.
func blankRun(lines []string, i, last int) int {
	j := i
	for j < last && strings.TrimSpace(lines[j]) == "" {
		j++
	}
	if j > i && (j == last || strings.HasPrefix(lines[j], "*** ")) {
		return j
	}
	return i
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
