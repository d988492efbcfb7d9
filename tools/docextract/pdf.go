package docextract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// scanMessage is returned instead of empty text: a model handed an empty
// string tends to conclude the document is empty, not that it is an image.
const scanMessage = "This PDF has no text layer: it looks like a scanned document (pages are images). " +
	"No OCR is available here, so its text cannot be extracted."

// extractPDF renders the text of the selected pages, each under a
// '--- page N ---' line.
func extractPDF(ctx context.Context, data []byte, pages string) (document, error) {
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return document{}, fmt.Errorf("open PDF: %w", err)
	}
	all := pageList(r)
	n := len(all)
	if n == 0 {
		return document{}, errors.New("the PDF's page tree has no readable pages")
	}
	sel, err := parsePages(pages, n)
	if err != nil {
		return document{}, err
	}
	var b strings.Builder
	anyText := false
	for _, p := range sel {
		if err := ctx.Err(); err != nil {
			return document{}, err
		}
		page := all[p-1]
		var text string
		if !page.V.IsNull() {
			// A page whose content fails to parse is reported in place
			// so that the other pages are still read.
			if text, err = page.GetPlainText(nil); err != nil {
				text = fmt.Sprintf("[page %d could not be read: %v]", p, err)
			}
		}
		text = strings.TrimSpace(text)
		if text != "" {
			anyText = true
		}
		fmt.Fprintf(&b, "--- page %d ---\n%s\n\n", p, text)
	}
	parts := fmt.Sprintf("pages: %d", n)
	if pages != "" {
		parts += fmt.Sprintf(" (showing %s)", pages)
	}
	d := document{format: "PDF", parts: parts, text: strings.TrimRight(b.String(), "\n") + "\n", more: "read a page range with pages (e.g. \"1-3\")"}
	if !anyText {
		d.text = scanMessage + "\n"
		if pages != "" {
			d.text = "Pages " + pages + " have no text. " + d.text
		}
		d.more = ""
	}
	return d, nil
}

// Bounds of the page-tree walk.
const (
	maxTreeDepth = 64
	maxTreeNodes = 200000
)

// pageList walks the page tree into a list of pages. The library's own
// Reader.Page loops forever on a tree whose Kids refer back to an
// ancestor, and NumPage trusts a /Count the file may inflate, so the
// walk is done here with a depth and node budget instead.
func pageList(r *pdf.Reader) []pdf.Page {
	var out []pdf.Page
	budget := maxTreeNodes
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		budget--
		if budget < 0 || depth > maxTreeDepth || v.Kind() != pdf.Dict {
			return
		}
		// Some writers omit /Type; an inner node is known by its Kids.
		if kids := v.Key("Kids"); kids.Kind() == pdf.Array {
			for i := 0; i < kids.Len() && budget >= 0; i++ {
				walk(kids.Index(i), depth+1)
			}
			return
		}
		out = append(out, pdf.Page{V: v})
	}
	walk(r.Trailer().Key("Root").Key("Pages"), 0)
	return out
}

// parsePages turns "1-3,7" into the page numbers it names, in order,
// within 1..n. An empty spec selects every page.
func parsePages(spec string, n int) ([]int, error) {
	if strings.TrimSpace(spec) == "" {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err != nil || a < 1 || b < a {
			return nil, fmt.Errorf("pages %q: %q is not a page or range like 1-3", spec, part)
		}
		if a > n {
			return nil, fmt.Errorf("pages %q: the PDF has %d pages", spec, n)
		}
		for p := a; p <= min(b, n); p++ {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}
