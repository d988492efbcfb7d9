package telegram

import (
	"bufio"
	"bytes"
	stdhtml "html"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/openclaw-go/openclaw/channels"
)

// mdParser reads what agents write: CommonMark plus the GFM pieces models
// use. Task lists and footnotes are left out; they read fine as text.
// goldmark parsers keep no state between calls, so one serves everyone.
var mdParser = goldmark.New(goldmark.WithExtensions(
	extension.Strikethrough,
	extension.Table,
	extension.Linkify,
))

// FormatHTML converts an agent's Markdown reply into the subset of HTML that
// Telegram's "HTML" parse mode accepts: b, i, s, code, pre (with
// code class="language-x"), a href and blockquote. Headings become bold
// lines, lists become "• " or "1. " lines, tables become an aligned <pre>
// block and images become links. Raw HTML in the input is shown as text,
// never passed through, and links whose scheme Telegram should not open
// (javascript:, data:, ...) become their plain text.
func FormatHTML(md string) string {
	return renderMarkdown(md, true)
}

// PlainText strips an agent's Markdown reply to readable text, keeping the
// layout FormatHTML produces. It is the fallback for when Telegram refuses
// the HTML ("can't parse entities"); link targets follow their text in
// parentheses so none is lost.
func PlainText(md string) string {
	return renderMarkdown(md, false)
}

func renderMarkdown(md string, html bool) string {
	src := []byte(md)
	doc := mdParser.Parser().Parse(text.NewReader(src))
	r := &mdRenderer{src: src, html: html, active: map[string]bool{}}
	// Leading spaces may be code indentation (PlainText of a code block).
	out := strings.TrimRightFunc(r.block(doc, 0), unicode.IsSpace)
	return strings.TrimLeft(out, "\n")
}

type mdRenderer struct {
	src  []byte
	html bool
	// indent follows every line break inside inline content, so wrapped
	// lines of a list item stay under its text.
	indent string
	// active holds the inline tags being rendered: Telegram cannot nest an
	// <a> in an <a> nor a <blockquote> in a <blockquote>, and <b><b> is noise.
	active map[string]bool
}

// block renders a block node; depth is the list nesting level.
func (r *mdRenderer) block(n ast.Node, depth int) string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return r.inlines(n)
	case *ast.Heading:
		return r.wrap("b", "", func() string { return r.inlines(n) })
	case *ast.ThematicBreak:
		return "———"
	case *ast.FencedCodeBlock:
		lang := ""
		if l := n.Language(r.src); l != nil {
			lang = string(l)
		}
		return r.code(r.lines(n), lang)
	case *ast.CodeBlock:
		return r.code(r.lines(n), "")
	case *ast.HTMLBlock:
		return r.escape(channels.RawHTML(n, r.src))
	case *ast.Blockquote:
		return r.quote(n, depth)
	case *ast.List:
		return r.list(n, depth)
	case *east.Table:
		return r.table(n)
	default: // Document and anything unknown: its blocks, a blank line apart.
		return r.children(n, depth)
	}
}

func (r *mdRenderer) quote(n *ast.Blockquote, depth int) string {
	// Telegram refuses a quote inside a quote: the outer one shows it all.
	nested := r.active["blockquote"]
	if r.html && !nested {
		r.active["blockquote"] = true
		defer delete(r.active, "blockquote")
	}
	inner := r.children(n, depth)
	switch {
	case !r.html:
		return channels.QuoteLines(inner)
	case nested || inner == "":
		return inner
	}
	return "<blockquote>" + inner + "</blockquote>"
}

func (r *mdRenderer) list(n *ast.List, depth int) string {
	return channels.RenderList(n, depth, func(c ast.Node, cont string, depth int) string {
		saved := r.indent
		r.indent = cont
		defer func() { r.indent = saved }()
		return r.block(c, depth)
	})
}

// code renders a code block. Telegram shows the language on the block, so
// it is kept; only its first word, as CommonMark's info string says.
func (r *mdRenderer) code(body, lang string) string {
	body = strings.TrimRight(body, "\n")
	if !r.html {
		return body
	}
	if f := strings.Fields(lang); len(f) > 0 {
		return `<pre><code class="language-` + escapeAttr(f[0]) + `">` + escapeText(body) + "</code></pre>"
	}
	return "<pre>" + escapeText(body) + "</pre>"
}

// lines returns the raw source lines of a block (code, raw HTML).
func (r *mdRenderer) lines(n ast.Node) string { return channels.BlockLines(n, r.src) }

// children renders n's blocks a blank line apart.
func (r *mdRenderer) children(n ast.Node, depth int) string {
	return channels.JoinBlocks(n, func(c ast.Node) string { return r.block(c, depth) })
}

// wrap renders inner inside tag unless the same tag is already open
// (Telegram cannot nest links, and doubled tags only add noise).
func (r *mdRenderer) wrap(tag, attrs string, inner func() string) string {
	if !r.html || r.active[tag] {
		return inner()
	}
	r.active[tag] = true
	s := inner()
	delete(r.active, tag)
	if s == "" {
		return ""
	}
	return "<" + tag + attrs + ">" + s + "</" + tag + ">"
}

func (r *mdRenderer) escape(s string) string {
	if !r.html {
		return s
	}
	return escapeText(s)
}

func (r *mdRenderer) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(r.inline(c))
	}
	return b.String()
}

func (r *mdRenderer) inline(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		s := ""
		if n.IsRaw() {
			s = r.escape(string(v))
		} else {
			s = r.escape(decodeInline(v))
		}
		if n.SoftLineBreak() || n.HardLineBreak() {
			// Telegram shows newlines as typed, so the author's line
			// breaks are kept rather than folded into spaces.
			s += "\n" + r.indent
		}
		return s
	case *ast.String:
		if n.IsCode() || n.IsRaw() {
			return r.escape(string(n.Value))
		}
		return r.escape(decodeInline(n.Value))
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(r.src))
			} else if s, ok := c.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		code := strings.ReplaceAll(b.String(), "\n", " ")
		if !r.html {
			return code
		}
		return "<code>" + escapeText(code) + "</code>"
	case *ast.Emphasis:
		tag := "i"
		if n.Level >= 2 {
			tag = "b"
		}
		return r.wrap(tag, "", func() string { return r.inlines(n) })
	case *east.Strikethrough:
		return r.wrap("s", "", func() string { return r.inlines(n) })
	case *ast.Link:
		return r.link(string(util.URLEscape(n.Destination, true)), func() string { return r.inlines(n) })
	case *ast.AutoLink:
		url := string(n.URL(r.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
			url = "mailto:" + url
		}
		label := string(n.Label(r.src))
		return r.link(string(util.URLEscape([]byte(url), false)), func() string { return r.escape(label) })
	case *ast.Image:
		// Telegram messages cannot embed images; the alt text links to it.
		alt := r.plain(n)
		return r.link(string(util.URLEscape(n.Destination, true)), func() string { return r.escape(alt) })
	case *ast.RawHTML:
		var b strings.Builder
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		return r.escape(b.String())
	default:
		return r.inlines(n)
	}
}

// link renders a link to href with the given text. Unsafe or relative
// targets, and links inside links, become the text alone.
func (r *mdRenderer) link(href string, inner func() string) string {
	if !linkAllowed(href) || r.active["a"] {
		return inner()
	}
	if !r.html {
		r.active["a"] = true // an image inside shows its alt text only
		s := inner()
		delete(r.active, "a")
		switch {
		case s == "":
			return href
		case s == href || "mailto:"+s == href:
			return s
		}
		return s + " (" + href + ")"
	}
	s := r.wrap("a", ` href="`+escapeAttr(href)+`"`, inner)
	if s == "" {
		return `<a href="` + escapeAttr(href) + `">` + escapeText(href) + "</a>"
	}
	return s
}

// plain returns the text of n's inline children without markup, for image
// alt text and table cells (a <pre> cannot hold other tags).
func (r *mdRenderer) plain(n ast.Node) string {
	saved := r.html
	r.html = false
	s := r.inlines(n)
	r.html = saved
	return s
}

// linkSchemes are the link targets Telegram opens. Anything else
// (javascript:, data:, vbscript:, file:, relative paths) is dropped: it is
// either dangerous or meaningless in a chat.
var linkSchemes = map[string]bool{"http": true, "https": true, "tg": true, "mailto": true, "tel": true, "ftp": true}

func linkAllowed(href string) bool {
	scheme, ok := channels.LinkScheme(href)
	return ok && linkSchemes[scheme]
}

// decodeInline resolves backslash escapes and entity references the way
// goldmark's own renderer does, then undoes its HTML escaping so the caller
// can escape for its target.
func decodeInline(v []byte) string {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	gmhtml.DefaultWriter.Write(w, v)
	_ = w.Flush() // writes to a bytes.Buffer cannot fail
	return stdhtml.UnescapeString(buf.String())
}

// escapeText escapes the three characters Telegram requires in text.
var escapeText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// escapeAttr also escapes the quote that would end an href.
var escapeAttr = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace

// table renders a GFM table as aligned monospace text in a <pre> block:
// Telegram has no tables, and a <pre> keeps the columns lined up.
func (r *mdRenderer) table(t *east.Table) string {
	body := channels.RenderTable(t, func(c ast.Node) string { return strings.TrimSpace(r.plain(c)) }, cellWidth)
	if !r.html {
		return body
	}
	return "<pre>" + escapeText(body) + "</pre>"
}

// cellWidth approximates how many monospace columns s takes: East Asian
// wide characters and emoji take two, combining marks and joiners none.
func cellWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || r >= 0xFE00 && r <= 0xFE0F:
		case isWideRune(r):
			w += 2
		default:
			w++
		}
	}
	return w
}

func isWideRune(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x115F, // Hangul Jamo
		r >= 0x2E80 && r <= 0x303E, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33FF, // kana, CJK compatibility
		r >= 0x3400 && r <= 0x4DBF, // CJK extension A
		r >= 0x4E00 && r <= 0x9FFF, // CJK unified ideographs
		r >= 0xA000 && r <= 0xA4CF, // Yi
		r >= 0xAC00 && r <= 0xD7A3, // Hangul syllables
		r >= 0xF900 && r <= 0xFAFF, // CJK compatibility ideographs
		r >= 0xFE30 && r <= 0xFE4F, // CJK compatibility forms
		r >= 0xFF00 && r <= 0xFF60, // fullwidth forms
		r >= 0xFFE0 && r <= 0xFFE6,
		r >= 0x1F300 && r <= 0x1F64F, // emoji
		r >= 0x1F900 && r <= 0x1F9FF,
		r >= 0x20000 && r <= 0x3FFFD: // CJK extensions B and on
		return true
	}
	return false
}
