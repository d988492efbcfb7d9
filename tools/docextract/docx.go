package docextract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxXMLBytes bounds the unzipped document.xml, and an XLSX's parts
// together, so a small zip bomb cannot exhaust memory.
const maxXMLBytes = 200 << 20

// WordprocessingML's main namespace; elements are matched on it so that
// other namespaces' elements of the same local name are not taken.
const wNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// extractDOCX renders word/document.xml: paragraphs in order, headings
// as markdown '#', table rows as '| a | b |' lines.
func extractDOCX(data []byte) (document, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return document{}, fmt.Errorf("open DOCX zip: %w", err)
	}
	var part *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			part = f
			break
		}
	}
	if part == nil {
		return document{}, errors.New("DOCX has no word/document.xml")
	}
	rc, err := part.Open()
	if err != nil {
		return document{}, fmt.Errorf("open word/document.xml: %w", err)
	}
	defer rc.Close()
	w := &docxWalker{styles: styleLevels(zr)}
	if err := w.walk(io.LimitReader(rc, maxXMLBytes)); err != nil {
		return document{}, fmt.Errorf("parse word/document.xml: %w", err)
	}
	return document{
		format: "DOCX",
		parts:  fmt.Sprintf("paragraphs: %d, tables: %d", w.paragraphs, w.tables),
		text:   strings.TrimRight(w.out.String(), "\n") + "\n",
	}, nil
}

// docxWalker turns the token stream of document.xml into text.
type docxWalker struct {
	out        strings.Builder
	para       strings.Builder // the paragraph being read
	heading    int             // its heading level, 0 for body text
	inText     bool            // inside <w:t>, whose chardata is the text
	rows       [][]string      // open table rows, innermost last (tables nest)
	cells      [][]string      // paragraphs of open cells, innermost last
	depth      int             // table nesting depth
	paragraphs int             // non-empty ones outside tables
	tables     int
	styles     map[string]int // heading level by paragraph style id
}

func (w *docxWalker) walk(r io.Reader) error {
	dec := xml.NewDecoder(r)
	// Word documents declare encodings Go lacks only in odd cases; read
	// such text as-is rather than refuse the whole document.
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == wNS {
				w.start(t)
			}
		case xml.EndElement:
			if t.Name.Space == wNS {
				w.end(t.Name.Local)
			}
		case xml.CharData:
			if w.inText {
				w.para.Write(t)
			}
		}
	}
}

func (w *docxWalker) start(t xml.StartElement) {
	switch t.Name.Local {
	case "p":
		w.para.Reset()
		w.heading = 0
	case "pStyle":
		id := attr(t, "val")
		if lvl, ok := w.styles[id]; ok {
			w.heading = lvl
		} else {
			w.heading = headingLevel(id)
		}
	case "t":
		w.inText = true
	case "tab":
		w.para.WriteByte('\t')
	case "br", "cr":
		w.para.WriteByte('\n')
	case "tbl":
		w.depth++
		if w.depth == 1 {
			w.tables++
		}
	case "tr":
		w.rows = append(w.rows, nil)
	case "tc":
		w.cells = append(w.cells, nil)
	}
}

func (w *docxWalker) end(local string) {
	switch local {
	case "t":
		w.inText = false
	case "p":
		text := strings.TrimSpace(w.para.String())
		w.para.Reset()
		if n := len(w.cells); n > 0 {
			// Inside a table a paragraph is part of a cell; a cell's
			// paragraphs are joined so that its row stays on one line.
			if text != "" {
				w.cells[n-1] = append(w.cells[n-1], text)
			}
			return
		}
		if text == "" {
			return
		}
		w.paragraphs++
		if w.heading > 0 {
			w.out.WriteString(strings.Repeat("#", w.heading) + " ")
		}
		w.out.WriteString(text)
		w.out.WriteString("\n\n")
	case "tc":
		n := len(w.cells)
		if n == 0 {
			return
		}
		c := strings.Join(w.cells[n-1], " ")
		c = strings.NewReplacer("\n", " ", "|", "\\|").Replace(c)
		w.cells = w.cells[:n-1]
		if m := len(w.rows); m > 0 {
			w.rows[m-1] = append(w.rows[m-1], c)
		}
	case "tr":
		// A nested table's rows come out before the row holding it.
		n := len(w.rows)
		if n == 0 {
			return
		}
		w.out.WriteString("| " + strings.Join(w.rows[n-1], " | ") + " |\n")
		w.rows = w.rows[:n-1]
	case "tbl":
		if w.depth > 0 {
			w.depth--
		}
		if w.depth == 0 {
			w.out.WriteString("\n")
		}
	}
}

// headingLevel maps a style's id or name to a markdown heading level:
// Word's built-in names are "Title" and "heading 1".."heading 9" (ids
// "Heading1"…); levels past 6 are shown as 6, markdown's deepest.
func headingLevel(style string) int {
	s := strings.ReplaceAll(strings.ToLower(style), " ", "")
	if s == "title" {
		return 1
	}
	if rest, ok := strings.CutPrefix(s, "heading"); ok {
		if n, err := strconv.Atoi(rest); err == nil && n >= 1 && n <= 9 {
			return min(n, 6)
		}
	}
	return 0
}

// styleLevels reads word/styles.xml for paragraph styles that are
// headings. Localized Word writes localized style ids (German
// "berschrift1"), so the id alone is not enough: the style's name keeps
// the built-in English "heading N", and an outline level marks custom
// heading styles. A missing or broken styles.xml only loses headings.
func styleLevels(zr *zip.Reader) map[string]int {
	levels := map[string]int{}
	f, err := zr.Open("word/styles.xml")
	if err != nil {
		return levels
	}
	defer f.Close()
	dec := xml.NewDecoder(io.LimitReader(f, maxXMLBytes))
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	id := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return levels
		}
		t, ok := tok.(xml.StartElement)
		if !ok || t.Name.Space != wNS {
			continue
		}
		switch t.Name.Local {
		case "style":
			id = ""
			if attr(t, "type") == "paragraph" {
				id = attr(t, "styleId")
			}
		case "name":
			if lvl := headingLevel(attr(t, "val")); id != "" && lvl > 0 {
				levels[id] = lvl
			}
		case "outlineLvl":
			// outlineLvl is 0-based; 9 means body text.
			if n, err := strconv.Atoi(attr(t, "val")); id != "" && err == nil && n >= 0 && n < 9 {
				if _, named := levels[id]; !named {
					levels[id] = min(n+1, 6)
				}
			}
		}
	}
}

// attr returns the value of t's attribute with the given local name.
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
