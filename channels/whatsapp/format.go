package whatsapp

import (
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/text/width"

	"github.com/openclaw-go/openclaw/channels"
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
		return channels.RawHTML(n, r.src)
	case *ast.Blockquote:
		return channels.QuoteLines(r.children(n, depth))
	case *ast.List:
		return r.list(n, depth)
	case *east.Table:
		return r.table(n)
	default: // Document and anything unknown: its blocks, a blank line apart.
		return r.children(n, depth)
	}
}

func (r *waRenderer) children(n ast.Node, depth int) string {
	return channels.JoinBlocks(n, func(c ast.Node) string { return r.block(c, depth) })
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

func (r *waRenderer) lines(n ast.Node) string { return channels.BlockLines(n, r.src) }

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
	if strings.ContainsAny(href, " \n") {
		return false
	}
	scheme, ok := channels.LinkScheme(href)
	return ok && linkSchemes[scheme]
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
	return codeBlock(channels.RenderTable(t, r.plain, cellWidth))
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
