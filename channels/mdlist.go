package channels

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// RenderList writes a Markdown list as plain lines for chat networks
// without list markup: "• " or "1. " markers, nested lists indented two
// spaces per level, an item's later blocks aligned under its text. block
// renders one child block of an item; cont is the indent its lines after
// the first must carry.
func RenderList(n *ast.List, depth int, block func(c ast.Node, cont string, depth int) string) string {
	indent := strings.Repeat("  ", depth)
	var items []string
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			marker = fmt.Sprintf("%d. ", num)
			num++
		}
		cont := indent + strings.Repeat(" ", utf8.RuneCountInString(marker))
		var lines []string
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			if l, ok := c.(*ast.List); ok {
				if len(lines) == 0 {
					lines = append(lines, indent+strings.TrimSpace(marker))
				}
				lines = append(lines, RenderList(l, depth+1, block))
				continue
			}
			s := block(c, cont, depth)
			if strings.TrimSpace(s) == "" {
				continue
			}
			if len(lines) == 0 {
				lines = append(lines, indent+marker+s)
			} else {
				lines = append(lines, cont+s)
			}
		}
		if len(lines) == 0 {
			lines = append(lines, indent+strings.TrimSpace(marker))
		}
		items = append(items, strings.Join(lines, "\n"))
	}
	return strings.Join(items, "\n")
}
