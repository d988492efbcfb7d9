package memory

import "strings"

// chunkTarget is the size, in bytes, that a chunk grows to before a
// paragraph break ends it.
const chunkTarget = 1000

// chunk is a run of lines of one file; lines are 1-based and inclusive.
type chunk struct {
	startLine, endLine int
	text               string
}

// block is a paragraph, a fenced code block or a heading with what
// follows it up to a blank line; section says a heading starts it.
type block struct {
	start, end int // 0-based line indexes, inclusive
	size       int
	section    bool
}

// chunkMarkdown cuts Markdown into chunks of about chunkTarget bytes. A
// heading always starts a new chunk; otherwise paragraphs are packed
// together until the next would pass the target. A paragraph longer than
// the target is cut between lines, so a chunk passes the target only
// when one line does.
func chunkMarkdown(src string) []chunk {
	lines := strings.Split(src, "\n")
	var out []chunk
	var cur *block
	emit := func() {
		if cur == nil {
			return
		}
		out = append(out, chunk{
			startLine: cur.start + 1,
			endLine:   cur.end + 1,
			text:      strings.Join(lines[cur.start:cur.end+1], "\n"),
		})
		cur = nil
	}
	add := func(b block) {
		if cur != nil && (b.section || cur.size+b.size > chunkTarget) {
			emit()
		}
		if cur == nil {
			cur = &b
			return
		}
		cur.end, cur.size = b.end, cur.size+b.size
	}
	for _, b := range blocks(lines) {
		add(b)
	}
	emit()
	return out
}

// blocks splits lines into blocks at blank lines and headings outside
// code fences, and cuts blocks that would pass chunkTarget.
func blocks(lines []string) []block {
	var out []block
	var cur *block
	end := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		size := len(line) + 1
		if fence == "" {
			switch {
			case trimmed == "":
				end()
				continue
			case isHeading(line):
				end()
				cur = &block{start: i, end: i, size: size, section: true}
				continue
			}
		}
		if f := fenceMarker(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
		}
		if cur != nil && cur.size+size > chunkTarget {
			end()
		}
		if cur == nil {
			cur = &block{start: i, end: i, size: size}
			continue
		}
		cur.end, cur.size = i, cur.size+size
	}
	end()
	return out
}

// isHeading reports whether line is an ATX heading ("# Title").
func isHeading(line string) bool {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return false
	}
	n := len(s) - len(strings.TrimLeft(s, "#"))
	if n == 0 || n > 6 {
		return false
	}
	return n == len(s) || s[n] == ' ' || s[n] == '\t' || s[n] == '\r'
}

// fenceMarker returns the fence a line opens or closes ("```" or "~~~"),
// or "".
func fenceMarker(trimmed string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			return f
		}
	}
	return ""
}
