package docextract

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Excel's sheet limits; a cell past them is not a cell Excel wrote.
const (
	xlsxMaxRows = 1 << 20 // 1048576
	xlsxMaxCols = 1 << 14 // 16384, column XFD
)

// cellString is a cell's text as the output shows it, with its length in
// runes so that a string repeated over a million cells is counted once.
type cellString struct {
	text  string
	runes int
}

// cellBreaks would break the row layout: one row is one line, cells are
// separated by tabs.
var cellBreaks = strings.NewReplacer("\t", " ", "\r\n", " ", "\n", " ")

func newCellString(s string) cellString {
	s = cellBreaks.Replace(unescapeXstring(s))
	return cellString{s, utf8.RuneCountInString(s)}
}

// errSheetRead ends the walk of a worksheet once its data is read.
var errSheetRead = errors.New("sheet data read")

// readSheet writes the sheet's rows to out: one line per row, cells
// separated by tabs at their column, empty rows between kept as empty
// lines, trailing empty cells and rows dropped.
func (b *xlsxBook) readSheet(ctx context.Context, s xlsxSheet, out *textSink) error {
	if s.part == "" {
		return fmt.Errorf("sheet %q: the workbook names no part for it", s.name)
	}
	err := b.walk(s.part, func(t xml.StartElement, d *xml.Decoder) error {
		if t.Name.Local != "sheetData" {
			return nil
		}
		if err := b.readSheetData(ctx, s, d, out); err != nil {
			return err
		}
		return errSheetRead
	})
	if err == errSheetRead {
		return nil
	}
	return err
}

// readSheetData reads the rows of <sheetData>, whose start was just read.
func (b *xlsxBook) readSheetData(ctx context.Context, s xlsxSheet, d *xml.Decoder, out *textSink) error {
	sheet := s.name
	row, lastOut := 0, 0 // the current row and the last one written
	col, tabs := 0, 0    // the current cell's column and the tabs written in its row
	for {
		tok, err := d.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("sheet %q: parse %s: %w", sheet, s.part, err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Local == "sheetData" {
				if lastOut > 0 {
					out.newlines(1)
				}
				return nil
			}
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				// Rows and cells without a position, or out of order, take
				// the next one: readers go by document order then.
				n, err := strconv.Atoi(attr(t, "r"))
				if err != nil || n <= row {
					n = row + 1
				}
				if n > xlsxMaxRows {
					return fmt.Errorf("sheet %q: row %d is past Excel's last row, %d", sheet, n, xlsxMaxRows)
				}
				row, col, tabs = n, 0, 0
				if row%1024 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
			case "c":
				row = max(row, 1) // a cell outside any row
				n := refColumn(attr(t, "r"))
				if n <= col {
					n = col + 1
				}
				if n > xlsxMaxCols {
					return fmt.Errorf("sheet %q row %d: column %d is past Excel's last column, XFD", sheet, row, n)
				}
				col = n
				v, err := b.cellValue(t, d)
				if err != nil {
					return fmt.Errorf("sheet %q cell %s: %w", sheet, cellName(col, row), err)
				}
				if v.runes == 0 {
					continue
				}
				if row != lastOut {
					// The end of the last row written, then the empty rows
					// between; the sheet's heading line ends itself.
					gap := row - lastOut - 1
					if lastOut > 0 {
						gap++
					}
					out.newlines(gap)
					lastOut = row
				}
				out.tabs(col - 1 - tabs)
				tabs = col - 1
				out.writeCounted(v)
			}
		}
	}
}

// cellValue reads the cell whose start is t up to its end and returns
// its text as Excel would show it.
func (b *xlsxBook) cellValue(t xml.StartElement, d *xml.Decoder) (cellString, error) {
	typ := attr(t, "t")
	var v strings.Builder
	var inline string
	inV := false
	for {
		tok, err := d.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return cellString{}, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "v":
				inV = true
			case "is":
				if inline, err = readText(d, "is"); err != nil {
					return cellString{}, err
				}
			default:
				// A formula's text, or anything else: only cached values count.
				if err := d.Skip(); err != nil {
					return cellString{}, err
				}
			}
		case xml.EndElement:
			if e.Name.Local == "v" {
				inV = false
				continue
			}
			if e.Name.Local != "c" {
				continue
			}
			raw := v.String()
			switch typ {
			case "s":
				if raw == "" {
					return cellString{}, nil
				}
				i, err := strconv.Atoi(strings.TrimSpace(raw))
				if err != nil || i < 0 || i >= len(b.strings) {
					return cellString{}, fmt.Errorf("shared string %q does not exist (the workbook has %d)", raw, len(b.strings))
				}
				return b.strings[i], nil
			case "inlineStr":
				return newCellString(inline), nil
			case "str":
				return newCellString(raw), nil
			case "b":
				switch strings.TrimSpace(raw) {
				case "1", "true":
					return newCellString("TRUE"), nil
				case "0", "false":
					return newCellString("FALSE"), nil
				}
				return newCellString(raw), nil
			case "e", "d":
				return newCellString(raw), nil
			}
			kind := numPlain
			if i, err := strconv.Atoi(attr(t, "s")); err == nil && i >= 0 && i < len(b.formats) {
				kind = b.formats[i]
			}
			return newCellString(formatNumber(raw, kind, b.date1904)), nil
		case xml.CharData:
			if inV {
				v.Write(e)
			}
		}
	}
}

// refColumn is the column of a cell reference such as "C5" (3), or 0
// when ref is not one.
func refColumn(ref string) int {
	n, i := 0, 0
	for ; i < len(ref); i++ {
		c := ref[i] | 0x20 // lower case
		if c < 'a' || c > 'z' {
			break
		}
		if n <= xlsxMaxCols { // past it stays past it, without overflow
			n = n*26 + int(c-'a'+1)
		}
	}
	if i == 0 || i == len(ref) || ref[i] < '0' || ref[i] > '9' {
		return 0
	}
	return n
}

// cellName is the reference of a column and row, for errors.
func cellName(col, row int) string {
	var b []byte
	for n := col; n > 0; n = (n - 1) / 26 {
		b = append([]byte{byte('A' + (n-1)%26)}, b...)
	}
	return string(b) + strconv.Itoa(row)
}

// unescapeXstring decodes the _xHHHH_ escapes SpreadsheetML uses for
// characters XML cannot carry; _x005F_ is an escaped underscore, which
// keeps a literal escape sequence literal.
func unescapeXstring(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+7 <= len(s) && s[i+1] == 'x' && s[i+6] == '_' {
			if n, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
				// Control characters a cell may hold (a tab, a line
				// break) are decoded; the rest are dropped.
				if r := rune(n); r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && !(r >= 0xD800 && r <= 0xDFFF) {
					b.WriteRune(r)
				}
				i += 6
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// textSink gathers the extracted text, keeping at most its first keep
// runes but counting all of them. Line breaks are held back until more
// text follows, so the text ends in exactly one.
type textSink struct {
	b       strings.Builder
	kept    int // runes in b
	keep    int
	total   int // runes of the whole text, held-back breaks aside
	pending int // line breaks not yet written
}

func newTextSink(keep int) *textSink { return &textSink{keep: keep} }

func (s *textSink) newlines(n int) { s.pending += max(n, 0) }

func (s *textSink) flush() {
	if s.pending > 0 {
		n := s.pending
		s.pending = 0
		s.repeat('\n', n)
	}
}

func (s *textSink) tabs(n int) {
	if n > 0 {
		s.flush()
		s.repeat('\t', n)
	}
}

func (s *textSink) repeat(c byte, n int) {
	s.total += n
	if room := s.keep - s.kept; room > 0 {
		k := min(n, room)
		s.b.WriteString(strings.Repeat(string(c), k))
		s.kept += k
	}
}

func (s *textSink) write(text string) {
	s.writeCounted(cellString{text, utf8.RuneCountInString(text)})
}

func (s *textSink) writeCounted(c cellString) {
	s.flush()
	s.total += c.runes
	room := s.keep - s.kept
	if room <= 0 {
		return
	}
	if c.runes <= room {
		s.b.WriteString(c.text)
		s.kept += c.runes
		return
	}
	n := 0
	for i := range c.text {
		if n == room {
			s.b.WriteString(c.text[:i])
			break
		}
		n++
	}
	s.kept = s.keep
}

// finish ends the text with one line break and returns it with the rune
// count of the whole text, of which it may hold only the start.
func (s *textSink) finish() (string, int) {
	s.pending = 0
	s.repeat('\n', 1)
	return s.b.String(), s.total
}
