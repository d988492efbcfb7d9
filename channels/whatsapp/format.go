package whatsapp

import (
	"github.com/openclaw-go/openclaw/channels"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/text/width"
)

// mdParser reads what agents write: CommonMark plus the GFM pieces models
// use. goldmark parsers keep no state between calls, so one serves all.
var mdParser = goldmark.New(goldmark.WithExtensions(
	extension.Strikethrough,
	extension.Table,
	extension.Linkify,
))

// fence stands for a ``` code fence while rendering; the input's own
// copies of it are replaced first, so every one left at the end is ours.
const fence = "\uE000"

// ToWhatsApp converts an agent's Markdown reply into WhatsApp's
// formatting: **bold** → *bold*, *italic* → _italic_, ~~strike~~ →
// ~strike~, fenced and indented code → ``` blocks, `inline code` stays in
// single backticks (WhatsApp renders those as inline code since 2024;
// older clients show the backticks, which still reads as code), links →
// "text (url)", headings → bold lines, lists → "• " and "1. " lines,
// quotes → "> " lines, tables → an aligned ``` block.
//
// WhatsApp has no escape character, so a literal * _ ~ in plain text can
// still turn into formatting; and three backticks in a row outside a code
// block would open one, so the output never contains them except as the
// fences it writes (a zero-width space separates any others). Links
// whose scheme a chat should not open (javascript:, data:, …) become
// their text. It is pure and safe for concurrent use.
func ToWhatsApp(md string) string {
	md = strings.ReplaceAll(md, fence, "\uFFFD")
	src := []byte(md)
	doc := mdParser.Parser().Parse(text.NewReader(src))
	r := &waRenderer{src: src, active: map[string]bool{}}
	out := r.block(doc, 0)
	out = strings.TrimRightFunc(out, unicode.IsSpace)
	out = strings.TrimLeft(out, "\n")
	return strings.ReplaceAll(breakBacktickRuns(out), fence, "```")
}

// breakBacktickRuns puts a zero-width space after every second backtick
// of a longer run, so no three are adjacent.
func breakBacktickRuns(s string) string {
	if !strings.Contains(s, "```") {
		return s
	}
	var b strings.Builder
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			run = 0
			b.WriteByte(s[i])
			continue
		}
		if run == 2 {
			b.WriteString("\u200B")
			run = 0
		}
		run++
		b.WriteByte('`')
	}
	return b.String()
}

type waRenderer struct {
	src []byte
	// indent follows every line break inside inline content, so wrapped
	// lines of a list item stay under its text.
	indent string
	// active holds the markers being rendered: *a *b* c* would close early.
	active map[string]bool
}

func (r *waRenderer) block(n ast.Node, depth int) string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return r.inlines(n)
	case *ast.Heading:
		return r.mark("*", func() string { return r.inlines(n) })
	case *ast.ThematicBreak:
		return "———"
	case *ast.FencedCodeBlock:
		return codeBlock(r.lines(n))
	case *ast.CodeBlock:
		return codeBlock(r.lines(n))
	case *ast.HTMLBlock:
		raw := r.lines(n)
		if n.HasClosure() {
			raw += string(n.ClosureLine.Value(r.src))
		}
		return strings.TrimRight(raw, "\n")
	case *ast.Blockquote:
		inner := r.children(n, depth)
		lines := strings.Split(inner, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight("> "+l, " ")
		}
		return strings.Join(lines, "\n")
	case *ast.List:
		return r.list(n, depth)
	case *east.Table:
		return r.table(n)
	default: // Document and anything unknown: its blocks, a blank line apart.
		return r.children(n, depth)
	}
}

func (r *waRenderer) children(n ast.Node, depth int) string {
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if s := r.block(c, depth); strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// codeBlock is a monospace block; WhatsApp shows no language.
func codeBlock(body string) string {
	body = strings.TrimRight(body, "\n")
	if strings.TrimSpace(body) == "" {
		return ""
	}
	return fence + "\n" + body + "\n" + fence
}

func (r *waRenderer) list(n *ast.List, depth int) string {
	return channels.RenderList(n, depth, func(c ast.Node, cont string, depth int) string {
		saved := r.indent
		r.indent = cont
		defer func() { r.indent = saved }()
		return r.block(c, depth)
	})
}

func (r *waRenderer) lines(n ast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := range ls.Len() {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

// mark wraps inner in a WhatsApp marker. WhatsApp only formats when the
// markers touch the text, so surrounding spaces move outside; a marker
// already open is not opened again.
func (r *waRenderer) mark(m string, inner func() string) string {
	if r.active[m] {
		return inner()
	}
	r.active[m] = true
	s := inner()
	delete(r.active, m)
	core := strings.TrimSpace(s)
	if core == "" {
		return s
	}
	lead := s[:strings.Index(s, core)]
	trail := s[len(lead)+len(core):]
	return lead + m + core + m + trail
}

func (r *waRenderer) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(r.inline(c))
	}
	return b.String()
}

func (r *waRenderer) inline(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		s := string(v)
		if !n.IsRaw() {
			s = decodeInline(v)
		}
		if n.SoftLineBreak() || n.HardLineBreak() {
			s += "\n" + r.indent
		}
		return s
	case *ast.String:
		if n.IsCode() || n.IsRaw() {
			return string(n.Value)
		}
		return decodeInline(n.Value)
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(r.src))
			case *ast.String:
				b.Write(c.Value)
			}
		}
		code := strings.ReplaceAll(b.String(), "\n", " ")
		if strings.TrimSpace(code) == "" || strings.Contains(code, "`") {
			return code // single backticks cannot hold a backtick
		}
		return "`" + code + "`"
	case *ast.Emphasis:
		m := "_"
		if n.Level >= 2 {
			m = "*"
		}
		return r.mark(m, func() string { return r.inlines(n) })
	case *east.Strikethrough:
		return r.mark("~", func() string { return r.inlines(n) })
	case *ast.Link:
		return r.link(string(n.Destination), r.inlines(n))
	case *ast.AutoLink:
		url := string(n.URL(r.src))
		if n.AutoLinkType == ast.AutoLinkEmail {
			return url
		}
		return r.link(url, string(n.Label(r.src)))
	case *ast.Image:
		return r.link(string(n.Destination), r.inlines(n))
	case *ast.RawHTML:
		var b strings.Builder
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		return b.String()
	default:
		return r.inlines(n)
	}
}

// link writes "text (url)", or the url alone when it is the text; unsafe
// or relative targets become the text alone.
func (r *waRenderer) link(href, label string) string {
	href = strings.TrimSpace(href)
	if !linkAllowed(href) {
		return label
	}
	plain := strings.TrimSpace(label)
	switch {
	case plain == "" || plain == href:
		return href
	case "mailto:"+plain == href || "tel:"+plain == href:
		return label
	}
	return label + " (" + href + ")"
}

// linkSchemes are the link targets worth showing in a chat.
var linkSchemes = map[string]bool{"http": true, "https": true, "mailto": true, "tel": true, "ftp": true, "whatsapp": true}

func linkAllowed(href string) bool {
	scheme, _, ok := strings.Cut(href, ":")
	if !ok || scheme == "" || strings.ContainsAny(href, " \n") {
		return false
	}
	for i, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return linkSchemes[strings.ToLower(scheme)]
}

// decodeInline resolves backslash escapes and entity references.
func decodeInline(v []byte) string {
	v = util.UnescapePunctuations(v)
	v = util.ResolveNumericReferences(v)
	v = util.ResolveEntityNames(v)
	return strings.ReplaceAll(string(v), "\x00", "\uFFFD")
}

// plain is the text of n's inline children without markers, for table
// cells (a monospace block shows markers as typed).
func (r *waRenderer) plain(n ast.Node) string {
	saved := r.active
	r.active = map[string]bool{"*": true, "_": true, "~": true}
	s := r.inlines(n)
	r.active = saved
	s = strings.ReplaceAll(s, "`", "")
	return strings.Join(strings.Fields(s), " ")
}

// table renders a GFM table as aligned text in a monospace block:
// WhatsApp has no tables.
func (r *waRenderer) table(t *east.Table) string {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.plain(c))
		}
		rows = append(rows, cells)
	}
	cols := len(t.Alignments)
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	widths := make([]int, cols)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], cellWidth(c))
		}
	}
	var lines []string
	for ri, row := range rows {
		cells := make([]string, cols)
		for i := range cols {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			align := east.AlignNone
			if i < len(t.Alignments) {
				align = t.Alignments[i]
			}
			cells[i] = padCell(c, widths[i], align)
		}
		lines = append(lines, strings.TrimRight(strings.Join(cells, " | "), " "))
		if ri == 0 {
			seps := make([]string, cols)
			for i, w := range widths {
				seps[i] = strings.Repeat("-", max(w, 1))
			}
			lines = append(lines, strings.Join(seps, "-|-"))
		}
	}
	return codeBlock(strings.Join(lines, "\n"))
}

func padCell(s string, w int, align east.Alignment) string {
	gap := w - cellWidth(s)
	if gap <= 0 {
		return s
	}
	switch align {
	case east.AlignRight:
		return strings.Repeat(" ", gap) + s
	case east.AlignCenter:
		left := gap / 2
		return strings.Repeat(" ", left) + s + strings.Repeat(" ", gap-left)
	}
	return s + strings.Repeat(" ", gap)
}

// cellWidth approximates the monospace columns of s: East Asian wide and
// fullwidth characters take two, combining marks and format characters
// none.
func cellWidth(s string) int {
	n := 0
	for _, c := range s {
		switch {
		case unicode.In(c, unicode.Mn, unicode.Me, unicode.Cf):
		case width.LookupRune(c).Kind() == width.EastAsianWide || width.LookupRune(c).Kind() == width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}
