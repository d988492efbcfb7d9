package channels

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// RenderTable lays a GFM table out as aligned monospace text, for chat
// networks without tables: each cell is cell's text of it, padded to its
// column as measured by width and aligned as the table says, " | "
// between cells and a "-|-" rule under the header. A short row gets
// blank cells. The caller puts the result in its network's monospace
// block; width is the caller's because networks' clients measure
// differently (emoji, East Asian characters).
func RenderTable(t *east.Table, cell func(c ast.Node) string, width func(s string) int) string {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, cell(c))
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
			widths[i] = max(widths[i], width(c))
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
			cells[i] = padCell(c, widths[i]-width(c), align)
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
	return strings.Join(lines, "\n")
}

// padCell adds gap spaces to s on the side align says.
func padCell(s string, gap int, align east.Alignment) string {
	if gap <= 0 {
		return s
	}
	switch align {
	case east.AlignRight:
		return strings.Repeat(" ", gap) + s
	case east.AlignCenter:
		left := gap / 2
		return strings.Repeat(" ", left) + s + strings.Repeat(" ", gap-left)
	default:
		return s + strings.Repeat(" ", gap)
	}
}
