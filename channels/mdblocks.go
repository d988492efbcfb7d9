package channels

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// JoinBlocks renders each child block of n with block and joins those
// that are not blank a blank line apart, as chat networks separate
// paragraphs.
func JoinBlocks(n ast.Node, block func(c ast.Node) string) string {
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if s := block(c); strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// BlockLines is the source text of a block's lines as written (a code
// block's body), src being the Markdown that was parsed.
func BlockLines(n ast.Node, src []byte) string {
	var b strings.Builder
	ls := n.Lines()
	for i := range ls.Len() {
		seg := ls.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

// LinkScheme is the lower-cased scheme of href if it has a well-formed
// one (a letter, then letters, digits, "+", "-" or "."), for checking a
// link against the schemes a network may open.
func LinkScheme(href string) (string, bool) {
	scheme, _, ok := strings.Cut(href, ":")
	if !ok || scheme == "" {
		return "", false
	}
	for i, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return strings.ToLower(scheme), true
}

// RawHTML is the source of a raw HTML block (with its closing line),
// without trailing newlines. Networks show it as text, escaped their way,
// and never act on it.
func RawHTML(n *ast.HTMLBlock, src []byte) string {
	raw := BlockLines(n, src)
	if n.HasClosure() {
		raw += string(n.ClosureLine.Value(src))
	}
	return strings.TrimRight(raw, "\n")
}

// QuoteLines marks each line of a rendered block quote with "> ", the
// way to show a quote where a network has no quote markup.
func QuoteLines(inner string) string {
	lines := strings.Split(inner, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}
