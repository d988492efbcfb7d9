package slack

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/openclaw-go/openclaw/channels"
)

// mdParser reads what agents write: CommonMark plus the GFM pieces models
// use. goldmark parsers keep no state between calls, so one serves all.
var mdParser = goldmark.New(goldmark.WithExtensions(
	extension.Strikethrough,
	extension.Table,
	extension.Linkify,
))

// ToMrkdwn converts an agent's Markdown reply into Slack mrkdwn:
// **bold** → *bold*, *italic* → _italic_, ~~strike~~ → ~strike~, `code`
// and ``` fences (without their language), [text](url) → <url|text>,
// headings → bold lines, lists → "• " or "1. " lines, tables → an aligned
// code block, quotes → "> " lines. &, < and > are escaped as Slack
// requires, so raw HTML and Slack markup written by the model (<!here>,
// <@U1>) are shown, never acted on; "@here", "@channel" and "@everyone"
// get an invisible word joiner after the @ so they cannot ping a channel either. Links
// whose scheme Slack should not open (javascript:, data:, relative ones)
// become their text. The function is pure.
func ToMrkdwn(md string) string {
	src := []byte(strings.ReplaceAll(md, "\x00", "\uFFFD"))
	doc := mdParser.Parser().Parse(text.NewReader(src))
	r := &mrkdwn{src: src}
	out := strings.TrimRightFunc(r.block(doc, 0), unicode.IsSpace)
	return strings.TrimLeft(out, "\n")
}

type mrkdwn struct {
	src []byte
	// plain is set inside headings and link labels, where emphasis
	// markers would nest badly.
	plain int
	// indent follows every line break inside inline content, so wrapped
	// lines of a list item stay under its text.
	indent string
}

func (r *mrkdwn) block(n ast.Node, depth int) string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return r.inlines(n)
	case *ast.Heading:
		r.plain++
		s := strings.TrimSpace(r.inlines(n))
		r.plain--
		if s == "" {
			return ""
		}
		return "*" + s + "*"
	case *ast.ThematicBreak:
		return "———"
	case *ast.FencedCodeBlock:
		return fence(r.lines(n))
	case *ast.CodeBlock:
		return fence(r.lines(n))
	case *ast.HTMLBlock:
		return escapeText(channels.RawHTML(n, r.src))
	case *ast.Blockquote:
		return channels.QuoteLines(r.children(n, depth))
	case *ast.List:
		return r.list(n, depth)
	case *east.Table:
		return r.table(n)
	default:
		return r.children(n, depth)
	}
}

// children renders n's blocks a blank line apart.
func (r *mrkdwn) children(n ast.Node, depth int) string {
	return channels.JoinBlocks(n, func(c ast.Node) string { return r.block(c, depth) })
}

func (r *mrkdwn) list(n *ast.List, depth int) string {
	pad := strings.Repeat("    ", depth)
	num := n.Start
	var items []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		saved := r.indent
		r.indent = pad + strings.Repeat(" ", utf8.RuneCountInString(marker))
		var parts []string
		for b := c.FirstChild(); b != nil; b = b.NextSibling() {
			if l, ok := b.(*ast.List); ok {
				r.indent = saved
				parts = append(parts, "\n"+r.list(l, depth+1))
				r.indent = pad + strings.Repeat(" ", utf8.RuneCountInString(marker))
				continue
			}
			s := r.block(b, depth+1)
			if len(parts) > 0 {
				s = "\n" + r.indent + strings.ReplaceAll(s, "\n", "\n"+r.indent)
			}
			parts = append(parts, s)
		}
		r.indent = saved
		items = append(items, pad+marker+strings.TrimLeft(strings.Join(parts, ""), "\n"))
	}
	return strings.Join(items, "\n")
}

// table renders a GFM table as an aligned code block: Slack has no
// tables, and monospace keeps the columns.
func (r *mrkdwn) table(n *east.Table) string {
	var rows [][]string
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, strings.TrimSpace(plainInline(cell, r.src)))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for ri, row := range rows {
		var line strings.Builder
		for i, c := range row {
			if i > 0 {
				line.WriteString(" | ")
			}
			line.WriteString(c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
		if ri == 0 {
			var sep []string
			for _, w := range widths {
				sep = append(sep, strings.Repeat("-", max(w, 3)))
			}
			b.WriteString(strings.Join(sep, "-+-") + "\n")
		}
	}
	return fence(b.String())
}

// fence wraps code in ``` lines. Slack shows no language, and a ``` in
// the code would end the block early, so it is broken with a zero-width
// space.
func fence(code string) string {
	code = strings.TrimRight(code, "\n")
	code = strings.ReplaceAll(code, "```", "``\u200b`")
	return "```\n" + escapeText(code) + "\n```"
}

func (r *mrkdwn) lines(n ast.Node) string { return channels.BlockLines(n, r.src) }

func (r *mrkdwn) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(r.inline(c))
	}
	return b.String()
}

func (r *mrkdwn) inline(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Text:
		s := neutralise(escapeText(string(n.Segment.Value(r.src))))
		switch {
		case n.HardLineBreak():
			s += "\n" + r.indent
		case n.SoftLineBreak():
			s += "\n" + r.indent
		}
		return s
	case *ast.String:
		return neutralise(escapeText(string(n.Value)))
	case *ast.CodeSpan:
		code := strings.ReplaceAll(plainInline(n, r.src), "`", "'")
		if strings.TrimSpace(code) == "" {
			return escapeText(code)
		}
		return "`" + escapeText(code) + "`"
	case *ast.Emphasis:
		inner := r.inlines(n)
		if r.plain > 0 || strings.TrimSpace(inner) == "" {
			return inner
		}
		if intraword(n, r.src) {
			// Slack formats only at word boundaries: 2*3*4 stays as written.
			d := strings.Repeat("*", n.Level)
			return d + inner + d
		}
		mark := "_"
		if n.Level >= 2 {
			mark = "*"
		}
		return wrapMark(inner, mark)
	case *east.Strikethrough:
		inner := r.inlines(n)
		if r.plain > 0 || strings.TrimSpace(inner) == "" {
			return inner
		}
		return wrapMark(inner, "~")
	case *ast.Link:
		return r.link(string(n.Destination), n)
	case *ast.AutoLink:
		u := string(n.URL(r.src))
		label := string(n.Label(r.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(u), "mailto:") {
			u = "mailto:" + u
		}
		if !safeURL(u) {
			return escapeText(label)
		}
		return "<" + linkTarget(u) + "|" + escapeLabel(label) + ">"
	case *ast.Image:
		alt := plainInline(n, r.src)
		if alt == "" {
			alt = string(n.Destination)
		}
		if !safeURL(string(n.Destination)) {
			return escapeText(alt)
		}
		return "<" + linkTarget(string(n.Destination)) + "|" + escapeLabel(alt) + ">"
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		return escapeText(b.String())
	default:
		return r.inlines(n)
	}
}

func (r *mrkdwn) link(dest string, n ast.Node) string {
	r.plain++
	label := strings.TrimSpace(r.inlines(n))
	r.plain--
	if !safeURL(dest) {
		return label
	}
	if label == "" {
		label = escapeText(dest)
	}
	return "<" + linkTarget(dest) + "|" + strings.ReplaceAll(label, "|", "¦") + ">"
}

// wrapMark puts mark around s, keeping surrounding spaces outside (Slack
// ignores "* bold*").
func wrapMark(s, mark string) string {
	trimmed := strings.TrimSpace(s)
	lead := s[:strings.Index(s, trimmed)]
	trail := s[len(lead)+len(trimmed):]
	return lead + mark + trimmed + mark + trail
}

// intraword reports whether n touches a letter or digit on either side
// (CommonMark's intraword emphasis, which only * can open).
func intraword(n ast.Node, src []byte) bool {
	if p, ok := n.PreviousSibling().(*ast.Text); ok {
		if v := p.Segment.Value(src); len(v) > 0 && !p.SoftLineBreak() && !p.HardLineBreak() {
			r, _ := utf8.DecodeLastRune(v)
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return true
			}
		}
	}
	if x, ok := n.NextSibling().(*ast.Text); ok {
		if v := x.Segment.Value(src); len(v) > 0 {
			r, _ := utf8.DecodeRune(v)
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return true
			}
		}
	}
	return false
}

// plainInline is n's text without any markup.
func plainInline(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(src))
			}
		case *ast.AutoLink:
			b.Write(c.Label(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// safeURL accepts the link schemes Slack should open.
func safeURL(u string) bool {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return false
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https":
		return p.Host != ""
	case "mailto", "tel":
		return p.Opaque != "" || p.Path != ""
	}
	return false
}

// linkTarget makes u safe inside <…|…>: the characters that would end
// the link or the URL are percent-encoded.
func linkTarget(u string) string {
	return strings.NewReplacer("<", "%3C", ">", "%3E", "|", "%7C", " ", "%20", "&", "&amp;").Replace(strings.TrimSpace(u))
}

// escapeLabel escapes a raw link label.
func escapeLabel(s string) string {
	return strings.ReplaceAll(neutralise(escapeText(s)), "|", "¦")
}

var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// escapeText escapes the three characters Slack's markup gives meaning.
func escapeText(s string) string { return textEscaper.Replace(s) }

var pingNeutraliser = strings.NewReplacer(
	"@here", "@\u2060here", "@channel", "@\u2060channel", "@everyone", "@\u2060everyone",
	"@Here", "@\u2060Here", "@Channel", "@\u2060Channel", "@Everyone", "@\u2060Everyone",
	"@HERE", "@\u2060HERE", "@CHANNEL", "@\u2060CHANNEL", "@EVERYONE", "@\u2060EVERYONE",
)

// neutralise breaks the words that page a whole channel when a message is
// posted with link_names; already escaped <!here> needs nothing more.
func neutralise(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return pingNeutraliser.Replace(s)
}
