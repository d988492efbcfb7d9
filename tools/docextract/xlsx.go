package docextract

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// extractXLSX renders each sheet (or the one named) as '## Name' and its
// rows as tab-separated lines, trailing empty cells dropped.
func extractXLSX(ctx context.Context, data []byte, sheet string) (document, error) {
	// The unzip limits keep a compressed bomb from growing past what a
	// 50 MB file could reasonably hold.
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    maxXMLBytes,
		UnzipXMLSizeLimit: maxXMLBytes,
	})
	if err != nil {
		return document{}, fmt.Errorf("open XLSX: %w", err)
	}
	defer f.Close()
	all := f.GetSheetList()
	names := all
	if sheet != "" {
		names = nil
		for _, n := range all {
			if n == sheet {
				names = []string{n}
				break
			}
		}
		if names == nil {
			return document{}, fmt.Errorf("no sheet %q; the sheets are %s", sheet, quoteList(all))
		}
	}
	var b strings.Builder
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return document{}, err
		}
		rows, err := f.GetRows(name)
		if err != nil {
			return document{}, fmt.Errorf("read sheet %q: %w", name, err)
		}
		fmt.Fprintf(&b, "## %s\n", name)
		for _, row := range rows {
			// Cells holding tabs or newlines would break the row layout.
			for i, c := range row {
				row[i] = strings.NewReplacer("\t", " ", "\r\n", " ", "\n", " ").Replace(c)
			}
			b.WriteString(strings.TrimRight(strings.Join(row, "\t"), "\t"))
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	parts := fmt.Sprintf("sheets: %d (%s)", len(all), quoteList(all))
	if sheet != "" {
		parts += fmt.Sprintf(", showing %q", sheet)
	}
	return document{format: "XLSX", parts: parts, text: strings.TrimRight(b.String(), "\n") + "\n", more: "read one sheet at a time with sheet"}, nil
}

// quoteList renders names as "a", "b".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
