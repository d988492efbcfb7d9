package web

import (
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Extract modes.
const (
	ModeMarkdown = "markdown"
	ModeText     = "text"
)

// extractHTML turns an HTML page into readable text: the page's main
// content (its first <main> or <article>, else <body>) without scripts,
// styles, navigation, footers, forms and hidden parts. In markdown mode
// headings, lists, links, quotes and code blocks keep their markdown
// form; in text mode only the words and the line structure remain.
// base resolves relative links. It does no I/O besides reading r.
func extractHTML(r io.Reader, base *url.URL, mode string) (title, text string, err error) {
	doc, err := html.Parse(r)
	if err != nil {
		return "", "", err
	}
	root := doc
	if n := find(doc, atom.Main); n != nil {
		root = n
	} else if n := find(doc, atom.Article); n != nil {
		root = n
	} else if n := find(doc, atom.Body); n != nil {
		root = n
	}
	if t := find(doc, atom.Title); t != nil {
		title = collapse(textOf(t))
	}
	c := &converter{base: base, md: mode != ModeText}
	c.push()
	c.children(root)
	return title, c.finish(), nil
}

func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if f := find(ch, a); f != nil {
			return f
		}
	}
	return nil
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return b.String()
}

// skipped elements carry no readable content.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Footer: true, atom.Aside: true, atom.Form: true,
	atom.Button: true, atom.Select: true, atom.Input: true, atom.Textarea: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Canvas: true, atom.Head: true, atom.Dialog: true,
}

// block elements start and end a paragraph.
var block = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true,
	atom.Main: true, atom.Header: true, atom.Figure: true, atom.Figcaption: true,
	atom.Table: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Address: true, atom.Details: true, atom.Summary: true, atom.Hr: true,
	atom.Body: true, atom.Center: true,
}

// Markers used while assembling; input text never contains them
// because control characters are stripped from it.
const (
	indentMark = '\x01' // one level of list indentation
	rawOpen    = '\x02' // start of a preformatted block
	rawClose   = '\x03'
)

type listState struct {
	ordered bool
	n       int
}

type converter struct {
	base  *url.URL
	md    bool
	bufs  []*strings.Builder
	lists []listState
}

func (c *converter) push()                 { c.bufs = append(c.bufs, &strings.Builder{}) }
func (c *converter) out() *strings.Builder { return c.bufs[len(c.bufs)-1] }
func (c *converter) pop() string {
	s := c.out().String()
	c.bufs = c.bufs[:len(c.bufs)-1]
	return s
}
func (c *converter) write(s string) { c.out().WriteString(s) }

func (c *converter) children(n *html.Node) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch)
	}
}

// inner renders n's children on their own and returns them as one
// collapsed line.
func (c *converter) inner(n *html.Node) string {
	c.push()
	c.children(n)
	return collapse(strings.Map(func(r rune) rune {
		if r == indentMark {
			return ' '
		}
		return r
	}, c.pop()))
}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(a.Val, "true") {
				return true
			}
		case "style":
			s := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		case "role":
			if strings.EqualFold(a.Val, "navigation") {
				return true
			}
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

func (c *converter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		c.write(squeezeSpace(stripControl(n.Data)))
		return
	case html.ElementNode:
	default:
		c.children(n)
		return
	}
	if skipped[n.DataAtom] || hidden(n) {
		return
	}
	switch a := n.DataAtom; {
	case a == atom.H1 || a == atom.H2 || a == atom.H3 || a == atom.H4 || a == atom.H5 || a == atom.H6:
		t := c.inner(n)
		if t == "" {
			return
		}
		if c.md {
			t = strings.Repeat("#", int(n.Data[1]-'0')) + " " + t
		}
		c.write("\n\n" + t + "\n\n")
	case a == atom.Br:
		c.write("\n")
	case a == atom.Ul || a == atom.Ol:
		c.lists = append(c.lists, listState{ordered: a == atom.Ol})
		c.children(n)
		c.lists = c.lists[:len(c.lists)-1]
		if len(c.lists) == 0 {
			c.write("\n\n")
		}
	case a == atom.Li:
		c.write("\n")
		bullet := "- "
		if depth := len(c.lists); depth > 0 {
			c.write(strings.Repeat(string(indentMark), depth-1))
			l := &c.lists[depth-1]
			l.n++
			if l.ordered {
				bullet = strconv.Itoa(l.n) + ". "
			}
		}
		c.write(bullet)
		c.children(n)
	case a == atom.A:
		t := c.inner(n)
		href := c.link(attr(n, "href"))
		switch {
		case t == "":
		case c.md && href != "":
			c.write("[" + t + "](" + href + ")")
		default:
			c.write(t)
		}
	case a == atom.Pre:
		raw := stripControl(textOf(n))
		raw = strings.Trim(raw, "\n")
		if c.md {
			raw = "```\n" + raw + "\n```"
		}
		c.write("\n\n" + string(rawOpen) + raw + string(rawClose) + "\n\n")
	case a == atom.Code && c.md:
		if t := c.inner(n); t != "" {
			c.write("`" + t + "`")
		}
	case a == atom.Blockquote:
		t := c.inner(n)
		if t != "" && c.md {
			t = "> " + t
		}
		c.write("\n\n" + t + "\n\n")
	case a == atom.Tr:
		var cells []string
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && (ch.DataAtom == atom.Td || ch.DataAtom == atom.Th) {
				cells = append(cells, c.inner(ch))
			}
		}
		c.write("\n" + strings.Join(cells, " | "))
	case a == atom.Img:
		if alt := collapse(attr(n, "alt")); alt != "" && c.md {
			c.write("[image: " + alt + "]")
		}
	case block[a]:
		c.write("\n\n")
		c.children(n)
		c.write("\n\n")
	default:
		c.children(n)
	}
}

// link resolves href against the page; links that do not lead to a web
// page (javascript:, data:, fragments) are dropped.
func (c *converter) link(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if c.base != nil {
		u = c.base.ResolveReference(u)
	}
	switch u.Scheme {
	case "http", "https", "mailto":
		return u.String()
	}
	return ""
}

// squeezeSpace turns each run of HTML whitespace into one space. Text
// nodes are many and mostly clean, so it returns s itself when there is
// nothing to change; a regexp here was a quarter of a 1 MB page's cost.
func squeezeSpace(s string) string {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' }
	clean := true
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) && (s[i] != ' ' || (i+1 < len(s) && isSpace(s[i+1]))) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			b.WriteByte(s[i])
			continue
		}
		b.WriteByte(' ')
		for i+1 < len(s) && isSpace(s[i+1]) {
			i++
		}
	}
	return b.String()
}

// squeezeBlankLines leaves at most one empty line between paragraphs.
func squeezeBlankLines(s string) string {
	if !strings.Contains(s, "\n\n\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			if run++; run > 2 {
				continue
			}
		} else {
			run = 0
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// finish collapses whitespace outside preformatted blocks and returns
// the page text.
func (c *converter) finish() string {
	s := c.pop()
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexRune(s, rawOpen)
		if i < 0 {
			b.WriteString(normalize(s))
			break
		}
		b.WriteString(normalize(s[:i]))
		s = s[i+1:]
		j := strings.IndexRune(s, rawClose)
		if j < 0 {
			j = len(s)
		}
		b.WriteString(s[:j])
		if j < len(s) {
			s = s[j+1:]
		} else {
			s = ""
		}
	}
	return strings.TrimSpace(squeezeBlankLines(b.String()))
}

// normalize collapses runs of spaces in each line and trims the lines,
// then turns indentation marks into spaces.
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = collapse(l)
		l = strings.TrimLeft(strings.ReplaceAll(l, string(indentMark)+" ", string(indentMark)), " ")
		lines[i] = strings.ReplaceAll(l, string(indentMark), "  ")
	}
	return strings.Join(lines, "\n")
}

// collapse folds every run of white space into one space and trims.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) && r != indentMark
	}), " ")
}

func stripControl(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return r
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}
