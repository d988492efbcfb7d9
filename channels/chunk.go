package channels

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk modes accepted by Chunk. Any other value, including "", means
// ChunkLength, so a typo in config degrades to the safe default.
const (
	// ChunkLength packs as much text as fits into each chunk.
	ChunkLength = "length"
	// ChunkNewline starts a new chunk at every blank-line paragraph and
	// applies the length rules only to paragraphs that are too long.
	ChunkNewline = "newline"
)

// UTF16Len returns the length of s in UTF-16 code units, the unit Telegram
// and Discord use for their message limits. Runes outside the Basic
// Multilingual Plane (most emoji) count two; invalid UTF-8 bytes count one
// each, as the platforms see them replaced by U+FFFD.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += runeUnits(r)
	}
	return n
}

func runeUnits(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// Chunk splits an agent's Markdown reply into pieces of at most limit UTF-16
// code units each. limit <= 0 means no splitting.
//
// In ChunkLength mode each chunk holds as much as fits, broken at the last
// blank line that fits, else the last newline, else the last space; a word
// longer than limit is cut on a rune boundary. ChunkNewline breaks at every
// blank line first. A fenced code block is never broken if it fits in one
// chunk; a longer one is split at its newlines, closed at the end of one
// chunk and reopened with the same info string at the start of the next,
// and those added fence lines count against limit.
//
// Chunks carry no trailing whitespace and are never empty. Apart from the
// added fence lines, joining the chunks with the whitespace that was removed
// between them gives back text without its leading blank lines and trailing
// whitespace.
func Chunk(text string, limit int, mode string) []string {
	ps := chunkPieces(text, limit, mode)
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// chunkPiece is one chunk: body is a substring of the input; prefix and suffix
// are the fence lines added to reopen and close a split code block. Keeping
// them apart lets the tests check that no content was lost or invented.
type chunkPiece struct {
	prefix, body, suffix string
	start                int // byte offset of body in the input
}

func (p chunkPiece) String() string { return p.prefix + p.body + p.suffix }

func chunkPieces(text string, limit int, mode string) []chunkPiece {
	c := newChunker(text, limit)
	if limit <= 0 {
		start := skipBlankLines(text, 0)
		end := trimRightIndex(text, start, len(text))
		if end <= start {
			return nil
		}
		return []chunkPiece{{body: text[start:end], start: start}}
	}
	if mode != ChunkNewline {
		c.run(0, len(text))
		return c.out
	}
	// Paragraphs are separated by blank lines outside code fences; a fence
	// is one paragraph however many blank lines it holds.
	start := 0
	for i := 0; i < len(text); {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			break
		}
		lineEnd := i + nl
		next := lineEnd + 1
		if f := c.fenceAt(lineEnd); f == nil && next < len(text) && isBlankLine(text, next) {
			c.run(start, lineEnd)
			start = skipBlankLines(text, next)
			i = start
			continue
		}
		i = next
	}
	c.run(start, len(text))
	return c.out
}

// codeFence is a fenced code block found in the input.
type codeFence struct {
	start, end int    // [start, end): opening line start to closing line end (or end of text)
	bodyStart  int    // first byte after the opening line's newline
	closeStart int    // start of the closing line; end if unclosed
	open       string // the opening line, reused verbatim to reopen the block
	close      string // the codeFence that closes it in a chunk
	fits       bool   // the whole block fits in one chunk: never break inside
	splittable bool   // too long, but reopen+close overhead leaves room for content
}

type chunker struct {
	s      string
	limit  int
	cum    []int // cum[i] = UTF-16 units in s[:i] at rune starts, -1 inside a rune
	fences []codeFence
	out    []chunkPiece
}

func newChunker(s string, limit int) *chunker {
	c := &chunker{s: s, limit: limit}
	if limit <= 0 {
		return c
	}
	c.cum = make([]int, len(s)+1)
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		c.cum[i] = n
		for j := 1; j < size; j++ {
			c.cum[i+j] = -1
		}
		n += runeUnits(r)
		i += size
	}
	c.cum[len(s)] = n
	c.fences = findFences(s)
	for i := range c.fences {
		f := &c.fences[i]
		f.fits = c.units(f.start, trimRightIndex(s, f.start, f.end)) <= limit
		overhead := UTF16Len(f.open) + 1 + 1 + UTF16Len(f.close)
		// Two units: room for at least one rune of any size.
		f.splittable = !f.fits && overhead+2 <= limit
	}
	return c
}

func (c *chunker) units(from, to int) int { return c.cum[to] - c.cum[from] }

// fenceAt returns the fence whose span holds byte offset p, or nil.
func (c *chunker) fenceAt(p int) *codeFence {
	i := sort.Search(len(c.fences), func(i int) bool { return c.fences[i].end > p })
	if i < len(c.fences) && c.fences[i].start <= p {
		return &c.fences[i]
	}
	return nil
}

// breakKind orders the places a chunk may end, best first.
type breakKind int

const (
	breakParagraph breakKind = iota
	breakNewline
	breakSpace
	breakHard
)

// run chunks s[from:to] in length mode and appends the pieces to c.out.
func (c *chunker) run(from, to int) {
	s := c.s
	var open *codeFence // the split fence the next chunk must reopen
	start := skipBlankLines(s, from)
	for start < to {
		prefix := ""
		if open != nil {
			prefix = open.open + "\n"
		}
		end := trimRightIndex(s, start, to)
		if end <= start {
			return
		}
		budget := c.limit - UTF16Len(prefix)
		if c.units(start, end) <= budget {
			c.out = append(c.out, chunkPiece{prefix: prefix, body: s[start:end], start: start})
			return
		}
		// w is the furthest rune boundary whose prefix fits the budget.
		w := start
		for i := start + 1; i <= to; i++ {
			if c.cum[i] < 0 {
				continue
			}
			if c.units(start, i) > budget {
				break
			}
			w = i
		}

		p, kind, f, ok := c.findBreak(start, w, to, budget)
		if !ok {
			// Indentation alone fills the budget: drop it rather than
			// overflow, it is only whitespace.
			if trimmed := strings.TrimLeftFunc(s[start:to], unicode.IsSpace); len(trimmed) < to-start {
				start = to - len(trimmed)
				continue
			}
			// A limit smaller than one rune plus fence overhead: take one
			// rune so the loop always advances.
			_, size := utf8.DecodeRuneInString(s[start:])
			p, kind, f = start+size, breakHard, nil
		}
		body := s[start:trimRightIndex(s, start, p)]
		pc := chunkPiece{prefix: prefix, body: body, start: start}
		open = nil
		if f != nil {
			pc.suffix = "\n" + f.close
			open = f
		}
		c.out = append(c.out, pc)

		switch kind {
		case breakHard:
			start = p
		case breakSpace:
			for p < to && (s[p] == ' ' || s[p] == '\t') {
				p++
			}
			start = skipBlankLines(s, p)
		default:
			start = skipBlankLines(s, p+1)
		}
		if start > to {
			start = to
		}
	}
}

// findBreak picks where the chunk starting at start ends: a separator at p
// (the chunk is s[start:p]) or, for breakHard, a rune boundary p. It returns
// the split fence the chunk must close, if any; ok is false when no break
// keeps the chunk within budget.
func (c *chunker) findBreak(start, w, to, budget int) (int, breakKind, *codeFence, bool) {
	s := c.s
	for kind := breakParagraph; kind <= breakSpace; kind++ {
		for p := w; p > start; p-- {
			if p >= to {
				continue
			}
			ok := false
			switch kind {
			case breakParagraph:
				ok = s[p] == '\n' && p+1 < to && isBlankLine(s, p+1)
			case breakNewline:
				ok = s[p] == '\n'
			case breakSpace:
				ok = s[p] == ' ' || s[p] == '\t'
			}
			if !ok {
				continue
			}
			if f, valid := c.validBreak(start, p, budget); valid {
				return p, kind, f, true
			}
		}
	}
	for p := w; p > start; p-- {
		if c.cum[p] < 0 {
			continue
		}
		if f, valid := c.validBreak(start, p, budget); valid {
			return p, breakHard, f, true
		}
	}
	return 0, 0, nil, false
}

// validBreak reports whether the chunk s[start:p] may end at p, and the
// split fence it must close there.
func (c *chunker) validBreak(start, p, budget int) (*codeFence, bool) {
	s := c.s
	end := trimRightIndex(s, start, p)
	if end <= start {
		return nil, false
	}
	f := c.fenceAt(p)
	if f != nil && !f.splittable {
		if f.fits {
			return nil, false
		}
		f = nil // too long even to reopen: plain text
	}
	extra := 0
	if f != nil {
		// Only inside the body, and with some body in this chunk: a break in
		// the opening line, or one leaving an empty block on either side, is
		// no break at all.
		if p < f.bodyStart || p >= f.closeStart-1 && f.closeStart < f.end {
			return nil, false
		}
		if trimRightIndex(s, max(start, f.bodyStart), p) <= max(start, f.bodyStart) {
			return nil, false
		}
		extra = 1 + UTF16Len(f.close)
	}
	return f, c.units(start, end)+extra <= budget
}

// findFences locates fenced code blocks. Unlike CommonMark it accepts any
// indentation so fences nested in list items are kept whole too.
func findFences(s string) []codeFence {
	var out []codeFence
	var cur *codeFence
	var char byte
	var count int
	for i := 0; i < len(s); {
		lineEnd := strings.IndexByte(s[i:], '\n')
		if lineEnd < 0 {
			lineEnd = len(s)
		} else {
			lineEnd += i
		}
		line := strings.TrimRight(s[i:lineEnd], " \t\r")
		trimmed := strings.TrimLeft(line, " \t")
		indent := line[:len(line)-len(trimmed)]
		run := 0
		for run < len(trimmed) && (trimmed[run] == '`' || trimmed[run] == '~') && trimmed[run] == trimmed[0] {
			run++
		}
		if cur == nil {
			if run >= 3 && !(trimmed[0] == '`' && strings.Contains(trimmed[run:], "`")) {
				char, count = trimmed[0], run
				cur = &codeFence{
					start:     i,
					bodyStart: min(lineEnd+1, len(s)),
					open:      line,
					close:     indent + strings.Repeat(string(char), count),
				}
			}
		} else if run >= count && trimmed[0] == char && run == len(trimmed) {
			cur.closeStart, cur.end = i, lineEnd
			out = append(out, *cur)
			cur = nil
		}
		i = lineEnd + 1
	}
	if cur != nil {
		cur.closeStart, cur.end = len(s), len(s)
		out = append(out, *cur)
	}
	return out
}

// isBlankLine reports whether the line starting at i holds only whitespace
// and ends with a newline or the end of the text.
func isBlankLine(s string, i int) bool {
	for _, r := range s[i:] {
		if r == '\n' {
			return true
		}
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// skipBlankLines advances i past whitespace-only lines, keeping the
// indentation of the first line with content (it matters to Markdown).
func skipBlankLines(s string, i int) int {
	for i < len(s) {
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			if strings.TrimSpace(s[i:]) == "" {
				return len(s)
			}
			return i
		}
		if strings.TrimSpace(s[i:i+nl]) != "" {
			return i
		}
		i += nl + 1
	}
	return i
}

func trimRightIndex(s string, from, to int) int {
	return from + len(strings.TrimRightFunc(s[from:to], unicode.IsSpace))
}
