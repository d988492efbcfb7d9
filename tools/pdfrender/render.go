package pdfrender

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

type options struct {
	title       string
	cover       bool
	margin      float64 // mm
	pageNumbers bool
	size        string // "A4" or "Letter"
	fontPath    string
	now         time.Time
}

type output struct {
	data     []byte
	pages    int
	heading  string // first heading's text, for naming
	replaced int    // characters printed as '?'
	// missing counts characters the Unicode font has no glyph for (they
	// print blank); missingSample is a few of them, for the note.
	missing       int
	missingSample []rune
}

// Base sizes in points; line heights are in mm.
const (
	bodySize = 11.0
	codeSize = 9.5
)

var headingSizes = [7]float64{0, 22, 18, 15, 13, 12, 11}

type renderer struct {
	pdf      *fpdf.Fpdf
	src      []byte
	family   string // body font family
	unicode  bool   // body family is a UTF-8 TTF
	tr       func(string) string
	replaced int
	glyphs   *glyphCheck // the UTF-8 font's coverage; nil for core fonts
	indent   float64     // current list indent in mm
	margin   float64
	bold     bool
	italic   bool
	size     float64
}

// render turns markdown into PDF bytes. fpdf reports most problems through
// its sticky error, and third-party parsers may panic on odd input, so a
// panic is turned into an error rather than taking down the gateway.
func render(md []byte, o options) (out output, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("renderer panicked: %v", p)
		}
	}()
	parser := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify))
	doc := parser.Parser().Parse(text.NewReader(md))

	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", SizeStr: o.size})
	pdf.SetMargins(o.margin, o.margin, o.margin)
	pdf.SetAutoPageBreak(true, o.margin+5)
	r := &renderer{pdf: pdf, src: md, family: "Helvetica", margin: o.margin, size: bodySize}
	r.tr = pdf.UnicodeTranslatorFromDescriptor("")
	if o.fontPath != "" {
		// Read here rather than by fpdf, which resolves names against its
		// font directory and would mangle an absolute path.
		ttf, err := os.ReadFile(o.fontPath)
		if err != nil {
			return out, fmt.Errorf("load font %s: %w", o.fontPath, err)
		}
		// The same file serves every style: a single regular TTF is what
		// operators usually have, and fpdf needs each style registered.
		for _, st := range []string{"", "B", "I", "BI"} {
			pdf.AddUTF8FontFromBytes("body", st, ttf)
		}
		if err := pdf.Error(); err != nil {
			return out, fmt.Errorf("load font %s: %w", o.fontPath, err)
		}
		r.family, r.unicode = "body", true
		if r.glyphs, err = newGlyphCheck(ttf); err != nil {
			return out, fmt.Errorf("load font %s: %w", o.fontPath, err)
		}
	}
	out.heading = firstHeading(doc, md)
	title := o.title
	if title == "" {
		title = out.heading
	}
	if title != "" {
		pdf.SetTitle(title, true)
	}
	pdf.SetCreator("openclaw PdfRenderTool", true)
	if o.pageNumbers {
		pdf.AliasNbPages("{nb}")
		pdf.SetFooterFunc(func() {
			pdf.SetY(-(o.margin/2 + 5))
			pdf.SetFont("Helvetica", "", 8)
			pdf.CellFormat(0, 5, fmt.Sprintf("Page %d of {nb}", pdf.PageNo()), "", 0, "C", false, 0, "")
		})
	}
	if o.cover {
		pdf.AddPage()
		_, h := pdf.GetPageSize()
		pdf.SetY(h / 3)
		r.setFont(true, false, 28)
		t := title
		if t == "" {
			t = "Document"
		}
		pdf.MultiCell(0, 12, r.text(t), "", "C", false)
		pdf.Ln(6)
		r.setFont(false, false, 13)
		pdf.MultiCell(0, 7, o.now.Format("2 January 2006"), "", "C", false)
	}
	pdf.AddPage()
	r.setFont(false, false, bodySize)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		r.block(n)
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return out, err
	}
	out.data, out.pages, out.replaced = buf.Bytes(), pdf.PageCount(), r.replaced
	if r.glyphs != nil {
		out.missing, out.missingSample = r.glyphs.missing, r.glyphs.sample
	}
	return out, nil
}

// text prepares a string for the current font: UTF-8 fonts take it as
// is; core fonts get cp1252, with anything unmappable counted and shown
// as '?' (fpdf's translator would otherwise drop it silently).
func (r *renderer) text(s string) string {
	if r.unicode {
		r.glyphs.check(s)
		return s
	}
	return r.core(s)
}

func (r *renderer) core(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\t':
			b.WriteString("    ")
		case c < 0x80:
			b.WriteRune(c)
		case r.tr(string(c)) != ".":
			// fpdf's translator turns what cp1252 lacks into '.'.
			b.WriteRune(c)
		default:
			b.WriteByte('?')
			r.replaced++
		}
	}
	return r.tr(b.String())
}

func (r *renderer) setFont(bold, italic bool, size float64) {
	st := ""
	if bold {
		st += "B"
	}
	if italic {
		st += "I"
	}
	r.pdf.SetFont(r.family, st, size)
}

func lineHeight(size float64) float64 { return size * 0.5 }

func (r *renderer) block(n ast.Node) {
	pdf := r.pdf
	switch n := n.(type) {
	case *ast.Heading:
		lvl := min(max(n.Level, 1), 6)
		size := headingSizes[lvl]
		pdf.Ln(lineHeight(size) * 0.6)
		r.inlines(n, true, false, size)
		pdf.Ln(lineHeight(size) * 1.3)
	case *ast.Paragraph, *ast.TextBlock:
		r.inlines(n, false, false, bodySize)
		pdf.Ln(lineHeight(bodySize))
		if _, ok := n.(*ast.Paragraph); ok {
			pdf.Ln(lineHeight(bodySize) * 0.5)
		}
	case *ast.List:
		r.list(n)
		pdf.Ln(lineHeight(bodySize) * 0.3)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		r.code(n)
	case *ast.ThematicBreak:
		pdf.Ln(2)
		w, _ := pdf.GetPageSize()
		y := pdf.GetY()
		pdf.SetDrawColor(160, 160, 160)
		pdf.Line(r.margin, y, w-r.margin, y)
		pdf.Ln(4)
	case *ast.Blockquote:
		old := r.indent
		r.deeper()
		r.applyIndent()
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			r.block(c)
		}
		r.indent = old
		r.applyIndent()
	case *east.Table:
		r.table(n)
	case *ast.HTMLBlock:
		// Raw HTML is shown as its source text: there is no HTML engine
		// here and dropping it would lose content.
		var b strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.Write(seg.Value(r.src))
		}
		r.setFont(false, false, bodySize)
		pdf.MultiCell(0, lineHeight(bodySize), r.text(b.String()), "", "L", false)
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			r.block(c)
		}
	}
}

// minTextWidth is the narrowest column text is set in: fpdf's Write and
// MultiCell loop forever when not even one character fits, so deep
// nesting stops indenting and wide tables merge columns before that.
const minTextWidth = 40.0

// deeper adds one nesting step to the indent, up to the point where
// minTextWidth would no longer fit.
func (r *renderer) deeper() {
	w, _ := r.pdf.GetPageSize()
	r.indent = min(r.indent+6, max(0, w-2*r.margin-minTextWidth))
}

func (r *renderer) applyIndent() {
	r.pdf.SetLeftMargin(r.margin + r.indent)
	r.pdf.SetX(r.margin + r.indent)
}

func (r *renderer) list(l *ast.List) {
	pdf := r.pdf
	old := r.indent
	r.deeper()
	num := l.Start
	if num == 0 {
		num = 1
	}
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		marker := "-"
		if l.IsOrdered() {
			marker = fmt.Sprintf("%d.", num)
			num++
		} else {
			marker = r.core("\u2022") // a bullet exists in cp1252 and most TTFs
		}
		r.setFont(false, false, bodySize)
		pdf.SetLeftMargin(r.margin + old)
		pdf.SetX(r.margin + old)
		pdf.CellFormat(max(r.indent-old, 6), lineHeight(bodySize), marker, "", 0, "L", false, 0, "")
		pdf.SetLeftMargin(r.margin + r.indent)
		first := true
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			if !first {
				pdf.SetX(r.margin + r.indent)
			}
			switch c := c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				r.inlines(c, false, false, bodySize)
				pdf.Ln(lineHeight(bodySize))
			default:
				if first {
					pdf.Ln(lineHeight(bodySize))
				}
				r.block(c)
			}
			first = false
		}
	}
	r.indent = old
	r.applyIndent()
}

func (r *renderer) code(n ast.Node) {
	pdf := r.pdf
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		b.Write(seg.Value(r.src))
	}
	// Courier is a core font: code keeps its monospace look even when a
	// Unicode body font is configured, at the cost of '?' for exotic text.
	pdf.SetFont("Courier", "", codeSize)
	pdf.SetFillColor(242, 242, 242)
	pdf.MultiCell(0, lineHeight(codeSize)*0.95, r.core(strings.TrimRight(b.String(), "\n")), "", "L", true)
	pdf.Ln(lineHeight(bodySize) * 0.5)
	r.setFont(false, false, bodySize)
}

// inlines writes n's inline children as flowing text; Write wraps at the
// right margin and continues at the left margin (the list indent).
func (r *renderer) inlines(n ast.Node, bold, italic bool, size float64) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(c, bold, italic, size)
	}
}

func (r *renderer) inline(n ast.Node, bold, italic bool, size float64) {
	pdf := r.pdf
	h := lineHeight(size)
	switch n := n.(type) {
	case *ast.Text:
		r.setFont(bold, italic, size)
		pdf.Write(h, r.text(string(n.Segment.Value(r.src))))
		if n.HardLineBreak() {
			pdf.Ln(h)
		} else if n.SoftLineBreak() {
			pdf.Write(h, " ")
		}
	case *ast.String:
		r.setFont(bold, italic, size)
		pdf.Write(h, r.text(string(n.Value)))
	case *ast.CodeSpan:
		pdf.SetFont("Courier", "", size*0.95)
		pdf.Write(h, r.core(plain(n, r.src)))
	case *ast.Emphasis:
		r.inlines(n, bold || n.Level >= 2, italic || n.Level == 1, size)
	case *ast.Link:
		// Links are printed as their text followed by the target, so the
		// address survives printing.
		r.inlines(n, bold, italic, size)
		label := plain(n, r.src)
		if dest := string(n.Destination); dest != "" && dest != label {
			r.setFont(bold, italic, size)
			pdf.Write(h, r.text(" ("+dest+")"))
		}
	case *ast.AutoLink:
		r.setFont(bold, italic, size)
		pdf.Write(h, r.text(string(n.URL(r.src))))
	case *ast.Image:
		r.setFont(bold, true, size)
		pdf.Write(h, r.text("[image: "+plain(n, r.src)+"]"))
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		r.setFont(bold, italic, size)
		pdf.Write(h, r.text(b.String()))
	default:
		r.inlines(n, bold, italic, size)
	}
}

// plain is the text content of an inline subtree.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.Text:
			b.Write(n.Segment.Value(src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte(' ')
			}
			return
		case *ast.String:
			b.Write(n.Value)
			return
		case *ast.AutoLink:
			b.Write(n.URL(src))
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func firstHeading(doc ast.Node, src []byte) string {
	var found string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			found = strings.TrimSpace(plain(h, src))
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}

// table draws equal-width columns; each row is as tall as its tallest
// wrapped cell. Header cells are bold on a grey fill.
func (r *renderer) table(t *east.Table) {
	pdf := r.pdf
	var rows [][]string
	var header []bool
	cols := 0
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.text(strings.TrimSpace(plain(c, r.src))))
		}
		cols = max(cols, len(cells))
		rows = append(rows, cells)
		_, isHead := row.(*east.TableHeader)
		header = append(header, isHead)
	}
	if cols == 0 {
		return
	}
	pw, ph := pdf.GetPageSize()
	left := r.margin + r.indent
	width := pw - left - r.margin
	// Columns narrower than 12 mm cannot hold a character reliably; the
	// cells beyond what fits are joined into the last column.
	if most := max(1, int(width/12)); cols > most {
		for i, cells := range rows {
			if len(cells) > most {
				rows[i] = append(cells[:most-1:most-1], strings.Join(cells[most-1:], " | "))
			}
		}
		cols = most
	}
	cw := width / float64(cols)
	lh := lineHeight(bodySize - 1)
	for i, cells := range rows {
		r.setFont(header[i], false, bodySize-1)
		lines := 1
		for _, c := range cells {
			lines = max(lines, r.countLines(c, cw-2))
		}
		rh := float64(lines)*lh + 2
		// Rows are kept whole: move to a new page rather than letting
		// MultiCell's auto break split a row across pages.
		if pdf.GetY()+rh > ph-(r.margin+5) && rh < ph-2*r.margin {
			pdf.AddPage()
		}
		y := pdf.GetY()
		for j := 0; j < cols; j++ {
			x := left + float64(j)*cw
			if header[i] {
				pdf.SetFillColor(230, 230, 230)
				pdf.Rect(x, y, cw, rh, "FD")
			} else {
				pdf.Rect(x, y, cw, rh, "D")
			}
			if j < len(cells) {
				pdf.SetXY(x+1, y+1)
				pdf.MultiCell(cw-2, lh, cells[j], "", "L", false)
			}
		}
		pdf.SetXY(left, y+rh)
	}
	pdf.Ln(lineHeight(bodySize) * 0.6)
	r.setFont(false, false, bodySize)
}

// countLines estimates how many lines MultiCell will need for s in width
// w. fpdf's SplitText indexes its width table by rune, which breaks on
// cp1252-encoded strings, so words are measured with GetStringWidth.
func (r *renderer) countLines(s string, w float64) int {
	total := 0
	for _, para := range strings.Split(s, "\n") {
		lines, cur := 1, 0.0
		space := r.pdf.GetStringWidth(" ")
		for _, word := range strings.Fields(para) {
			ww := r.pdf.GetStringWidth(word)
			switch {
			case cur == 0:
				cur = ww
			case cur+space+ww <= w:
				cur += space + ww
			default:
				lines++
				cur = ww
			}
			// A word wider than the cell is broken by MultiCell.
			for cur > w && w > 0 {
				lines++
				cur -= w
			}
		}
		total += lines
	}
	return total
}
