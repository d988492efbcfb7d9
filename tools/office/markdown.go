package office

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// The renderers share one small document model, so each walks the
// goldmark AST's quirks only once, here.

type blockKind int

const (
	kHeading blockKind = iota
	kPara
	kItem // one list item; level and ordered/number say where it sits
	kTable
	kCode
	kRule // thematic break (---)
)

type run struct {
	text               string
	bold, italic, code bool
}

type block struct {
	kind    blockKind
	level   int // heading level, or list nesting depth (0-based)
	ordered bool
	number  int
	runs    []run
	rows    [][]string // table cells, header first
	code    string
}

// plain is the block's text without formatting.
func (b block) plain() string {
	if b.kind == kCode {
		return b.code
	}
	var s strings.Builder
	for _, r := range b.runs {
		s.WriteString(r.text)
	}
	return s.String()
}

var md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

func parseMarkdown(src []byte) []block {
	doc := md.Parser().Parse(text.NewReader(src))
	var out []block
	var visit func(c ast.Node, depth int)
	walk := func(n ast.Node, depth int) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			visit(c, depth)
		}
	}
	visit = func(c ast.Node, depth int) {
		switch v := c.(type) {
		case *ast.Heading:
			out = append(out, block{kind: kHeading, level: v.Level, runs: inlines(v, src)})
		case *ast.Paragraph, *ast.TextBlock:
			out = append(out, block{kind: kPara, runs: inlines(c, src)})
		case *ast.ThematicBreak:
			out = append(out, block{kind: kRule})
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			out = append(out, block{kind: kCode, code: strings.TrimRight(linesOf(c, src), "\n")})
		case *ast.List:
			num := v.Start
			for it := v.FirstChild(); it != nil; it = it.NextSibling() {
				// The item's first paragraph is its text; anything after
				// it (nested lists, more paragraphs) follows one level in.
				first := it.FirstChild()
				b := block{kind: kItem, level: depth, ordered: v.IsOrdered(), number: num}
				rest := first
				if first != nil && (first.Kind() == ast.KindParagraph || first.Kind() == ast.KindTextBlock) {
					b.runs = inlines(first, src)
					rest = first.NextSibling()
				}
				out = append(out, b)
				for ; rest != nil; rest = rest.NextSibling() {
					if rest.Kind() == ast.KindParagraph || rest.Kind() == ast.KindTextBlock {
						out = append(out, block{kind: kItem, level: depth + 1, number: -1, runs: inlines(rest, src)})
						continue
					}
					visit(rest, depth+1)
				}
				num++
			}
		case *east.Table:
			var rows [][]string
			for r := v.FirstChild(); r != nil; r = r.NextSibling() {
				var row []string
				for cell := r.FirstChild(); cell != nil; cell = cell.NextSibling() {
					row = append(row, plainRuns(inlines(cell, src)))
				}
				rows = append(rows, row)
			}
			out = append(out, block{kind: kTable, rows: rows})
		default:
			// Blockquotes and anything else: render their content.
			walk(c, depth)
		}
	}
	walk(doc, 0)
	return out
}

func linesOf(n ast.Node, src []byte) string {
	var b strings.Builder
	l := n.Lines()
	for i := 0; i < l.Len(); i++ {
		seg := l.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

func plainRuns(rs []run) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.text)
	}
	return strings.TrimSpace(b.String())
}

// inlines flattens a block's inline children into runs carrying
// bold/italic/code flags.
func inlines(n ast.Node, src []byte) []run {
	var out []run
	var walk func(n ast.Node, bold, italic bool)
	walk = func(n ast.Node, bold, italic bool) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch v := c.(type) {
			case *ast.Text:
				t := string(v.Value(src))
				if v.SoftLineBreak() || v.HardLineBreak() {
					t += " "
				}
				out = append(out, run{text: t, bold: bold, italic: italic})
			case *ast.String:
				out = append(out, run{text: string(v.Value), bold: bold, italic: italic})
			case *ast.CodeSpan:
				var b strings.Builder
				for t := v.FirstChild(); t != nil; t = t.NextSibling() {
					if tx, ok := t.(*ast.Text); ok {
						b.Write(tx.Value(src))
					} else if s, ok := t.(*ast.String); ok {
						b.Write(s.Value)
					}
				}
				out = append(out, run{text: b.String(), code: true, bold: bold, italic: italic})
			case *ast.Emphasis:
				walk(v, bold || v.Level >= 2, italic || v.Level == 1)
			case *ast.AutoLink:
				out = append(out, run{text: string(v.URL(src)), bold: bold, italic: italic})
			case *ast.RawHTML:
				// Inline HTML is shown as typed; Office files have no HTML.
				for i := 0; i < v.Segments.Len(); i++ {
					seg := v.Segments.At(i)
					out = append(out, run{text: string(seg.Value(src)), bold: bold, italic: italic})
				}
			default:
				walk(c, bold, italic)
			}
		}
	}
	walk(n, false, false)
	return out
}
