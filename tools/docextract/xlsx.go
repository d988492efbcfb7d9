package docextract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strings"
)

// xlsxBook is what every sheet of a workbook needs: its parts, shared
// strings and number formats.
type xlsxBook struct {
	files    map[string]*zip.File // by partKey
	strings  []cellString         // the shared strings, in order
	formats  []numKind            // by cell style index
	date1904 bool
}

// xlsxSheet is one entry of the workbook's sheet list.
type xlsxSheet struct {
	name string
	part string // "" when the workbook names no part for it
}

// extractXLSX renders each sheet (or the one named) as '## Name' and its
// rows as tab-separated lines, trailing empty cells dropped.
func extractXLSX(ctx context.Context, data []byte, sheet string) (document, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return document{}, fmt.Errorf("open XLSX zip: %w", err)
	}
	book := &xlsxBook{files: make(map[string]*zip.File, len(zr.File))}
	// The declared sizes bound what the reader will inflate (archive/zip
	// fails a part that grows past its own), so summing them keeps a
	// compressed bomb from growing past what a 50 MB file could hold.
	var total uint64
	for _, f := range zr.File {
		if total += f.UncompressedSize64; f.UncompressedSize64 > maxXMLBytes || total > maxXMLBytes {
			return document{}, fmt.Errorf("XLSX unpacks to more than %d MB; larger workbooks are not read", maxXMLBytes>>20)
		}
		if k := partKey(f.Name); book.files[k] == nil {
			book.files[k] = f
		}
	}
	wbPart := "xl/workbook.xml"
	for _, r := range book.rels("") {
		if strings.HasSuffix(r.typ, "/officeDocument") && book.files[partKey(r.target)] != nil {
			wbPart = r.target
			break
		}
	}
	all, err := book.readWorkbook(wbPart)
	if err != nil {
		return document{}, err
	}
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.name
	}
	chosen := all
	if sheet != "" {
		chosen = nil
		for _, s := range all {
			if s.name == sheet {
				chosen = []xlsxSheet{s}
				break
			}
		}
		if chosen == nil {
			return document{}, fmt.Errorf("no sheet %q; the sheets are %s", sheet, quoteList(names))
		}
	}
	out := newTextSink(CapMaxChars)
	for _, s := range chosen {
		if err := ctx.Err(); err != nil {
			return document{}, err
		}
		out.write("## " + s.name)
		out.newlines(1)
		if err := book.readSheet(ctx, s, out); err != nil {
			return document{}, err
		}
		out.newlines(1)
	}
	parts := fmt.Sprintf("sheets: %d (%s)", len(all), quoteList(names))
	if sheet != "" {
		parts += fmt.Sprintf(", showing %q", sheet)
	}
	text, runes := out.finish()
	return document{format: "XLSX", parts: parts, text: text, total: runes, more: "read one sheet at a time with sheet"}, nil
}

// readWorkbook reads the sheet list, in tab order, from the workbook part
// and its relationships, and loads the shared strings and styles.
func (b *xlsxBook) readWorkbook(wbPart string) ([]xlsxSheet, error) {
	type entry struct{ name, rid string }
	var entries []entry
	err := b.walk(wbPart, func(t xml.StartElement, _ *xml.Decoder) error {
		switch t.Name.Local {
		case "sheet":
			// The relationship id is r:id; sheetId is another attribute.
			entries = append(entries, entry{attr(t, "name"), attr(t, "id")})
		case "workbookPr":
			v := attr(t, "date1904")
			b.date1904 = v == "1" || v == "true"
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, r := range b.rels(wbPart) {
		switch {
		case strings.HasSuffix(r.typ, "/sharedStrings"):
			// A table named but missing holds no strings: cells that use
			// one fail on their own.
			if b.strings == nil && b.files[partKey(r.target)] != nil {
				if b.strings, err = b.readSharedStrings(r.target); err != nil {
					return nil, err
				}
			}
		case strings.HasSuffix(r.typ, "/styles"):
			if b.formats == nil {
				// Broken styles only lose number formats.
				b.formats = b.readStyles(r.target)
			}
		default:
			targets[r.id] = r.target
		}
	}
	// Some writers leave out the relationships; these are the usual names.
	if b.strings == nil && b.files["xl/sharedstrings.xml"] != nil {
		if b.strings, err = b.readSharedStrings("xl/sharedStrings.xml"); err != nil {
			return nil, err
		}
	}
	if b.formats == nil && b.files["xl/styles.xml"] != nil {
		b.formats = b.readStyles("xl/styles.xml")
	}
	sheets := make([]xlsxSheet, len(entries))
	for i, e := range entries {
		sheets[i] = xlsxSheet{name: e.name, part: targets[e.rid]}
	}
	return sheets, nil
}

// walk streams a part's XML to fn for each start element; fn may read
// further tokens itself from the decoder.
func (b *xlsxBook) walk(name string, fn func(t xml.StartElement, d *xml.Decoder) error) error {
	f := b.files[partKey(name)]
	if f == nil {
		return fmt.Errorf("XLSX has no %s", name)
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	defer rc.Close()
	d := xml.NewDecoder(io.LimitReader(rc, maxXMLBytes))
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("parse %s: %w", name, err)
		}
		if t, ok := tok.(xml.StartElement); ok {
			if err := fn(t, d); err != nil {
				return err
			}
		}
	}
}

type relation struct{ id, typ, target string }

// rels reads the relationships of the part named (the package's own for
// ""), with targets resolved to part names. A missing or broken
// relationships part has no relations.
func (b *xlsxBook) rels(part string) []relation {
	dir, file := path.Split(part)
	var out []relation
	b.walk(dir+"_rels/"+file+".rels", func(t xml.StartElement, _ *xml.Decoder) error {
		if t.Name.Local == "Relationship" && attr(t, "TargetMode") != "External" {
			out = append(out, relation{attr(t, "Id"), attr(t, "Type"), resolvePart(dir, attr(t, "Target"))})
		}
		return nil
	})
	return out
}

// resolvePart turns a relationship target into a part name: relative to
// dir, or to the package root when it starts with a slash.
func resolvePart(dir, target string) string {
	target = strings.ReplaceAll(target, `\`, "/")
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Join("/"+dir, target), "/")
}

// partKey is how parts are looked up: writers differ in case and in the
// slashes of zip entry names.
func partKey(name string) string {
	return strings.ToLower(strings.TrimPrefix(strings.ReplaceAll(name, `\`, "/"), "/"))
}

// readSharedStrings reads the workbook's string table; each <si> is
// plain (<t>) or rich text (runs of <r><t>), never its phonetic guide.
func (b *xlsxBook) readSharedStrings(name string) ([]cellString, error) {
	out := []cellString{}
	err := b.walk(name, func(t xml.StartElement, d *xml.Decoder) error {
		if t.Name.Local != "si" {
			return nil
		}
		s, err := readText(d, "si")
		if err != nil {
			return fmt.Errorf("parse %s: %w", name, err)
		}
		out = append(out, newCellString(s))
		return nil
	})
	return out, err
}

// readText collects the <t> text inside the element named end, whose
// start was just read, skipping phonetic runs (<rPh>).
func readText(d *xml.Decoder, end string) (string, error) {
	var s strings.Builder
	inT, phonetic := 0, 0
	for {
		tok, err := d.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inT++
			case "rPh":
				phonetic++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case end:
				return s.String(), nil
			case "t":
				inT--
			case "rPh":
				phonetic--
			}
		case xml.CharData:
			if inT > 0 && phonetic == 0 {
				s.Write(t)
			}
		}
	}
}

// quoteList renders names as "a", "b", eliding past the first hundred
// and cutting long names: a hostile workbook must not make the header
// of the answer unbounded.
func quoteList(names []string) string {
	const most, longest = 100, 64
	q := make([]string, 0, min(len(names), most)+1)
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("… %d more", len(names)-most))
			break
		}
		if r := []rune(n); len(r) > longest {
			n = string(r[:longest]) + "…"
		}
		q = append(q, fmt.Sprintf("%q", n))
	}
	return strings.Join(q, ", ")
}
