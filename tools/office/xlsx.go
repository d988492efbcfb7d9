package office

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Excel's sheet limits.
const (
	maxRows = 1 << 20 // 1048576
	maxCols = 1 << 14 // 16384, column XFD
	// maxCellChars is the most UTF-16 units a cell holds; Excel calls a
	// file with a longer cell corrupt.
	maxCellChars = 32767
	// maxSheetName is the most UTF-16 units of a sheet name.
	maxSheetName = 31
)

// SpreadsheetML's main namespace.
const ssNS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"

// sheetPlan is one sheet: its name and the tables stacked on it.
type sheetPlan struct {
	name   string
	tables [][][]string
}

// renderXlsx puts each table on the sheet of the latest ## heading (or
// "Sheet1" before any), one blank row between tables. Every text cell is
// an inline string: nothing the model writes can become a formula.
func renderXlsx(doc []block) ([]byte, int, error) {
	var plans []*sheetPlan
	var cur *sheetPlan
	for _, b := range doc {
		switch {
		case b.kind == kHeading && b.level == 2:
			cur = &sheetPlan{name: plainRuns(b.runs)}
			plans = append(plans, cur)
		case b.kind == kTable:
			if cur == nil {
				cur = &sheetPlan{name: "Sheet1"}
				plans = append(plans, cur)
			}
			cur.tables = append(cur.tables, b.rows)
		}
	}
	// Headings with no table under them make no sheet.
	var keep []*sheetPlan
	for _, p := range plans {
		if len(p.tables) > 0 {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return nil, 0, fmt.Errorf("no Markdown table found (write | a | b | rows with a |---|---| separator)")
	}
	if len(keep) > maxSheets {
		return nil, 0, fmt.Errorf("%d sheets; at most %d", len(keep), maxSheets)
	}
	used := map[string]bool{}
	for _, p := range keep {
		p.name = uniqueSheetName(p.name, used)
		if err := checkSheetSize(p); err != nil {
			return nil, 0, err
		}
	}
	ct := []string{"/xl/workbook.xml", "spreadsheetml.sheet.main+xml", "/xl/styles.xml", "spreadsheetml.styles+xml"}
	var rels []string
	var sheets strings.Builder
	var sheetParts []part
	for i, p := range keep {
		n := i + 1
		ct = append(ct, fmt.Sprintf("/xl/worksheets/sheet%d.xml", n), "spreadsheetml.worksheet+xml")
		rels = append(rels, "worksheet", fmt.Sprintf("worksheets/sheet%d.xml", n))
		fmt.Fprintf(&sheets, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, esc(p.name), n, n)
		sheetParts = append(sheetParts, part{
			name:  fmt.Sprintf("xl/worksheets/sheet%d.xml", n),
			write: func(w io.Writer) error { return writeSheet(w, p.tables, i == 0) },
		})
	}
	rels = append(rels, "styles", "styles.xml")
	workbook := xmlHead + `<workbook xmlns="` + ssNS + `" xmlns:r="` + strings.TrimSuffix(relNS, "/") + `">` +
		`<bookViews><workbookView activeTab="0"/></bookViews><sheets>` + sheets.String() + `</sheets></workbook>`
	all := []part{
		{name: "[Content_Types].xml", body: contentTypesXML(ct...)},
		{name: "_rels/.rels", body: relsXML("officeDocument", "xl/workbook.xml")},
		{name: "xl/workbook.xml", body: workbook},
		{name: "xl/_rels/workbook.xml.rels", body: relsXML(rels...)},
		{name: "xl/styles.xml", body: xlsxStyles},
	}
	data, err := zipParts(append(all, sheetParts...))
	if err != nil {
		return nil, 0, fmt.Errorf("write workbook: %w", err)
	}
	return data, len(keep), nil
}

// checkSheetSize refuses a sheet Excel could not open, before anything
// is written.
func checkSheetSize(p *sheetPlan) error {
	rows := len(p.tables) - 1 // the blank rows between tables
	for _, t := range p.tables {
		for r, cells := range t {
			if len(cells) > maxCols {
				return fmt.Errorf("sheet %q: table row %d has %d columns; a sheet holds at most %d (A to XFD)", p.name, r+1, len(cells), maxCols)
			}
		}
		rows += len(t)
	}
	if rows > maxRows {
		return fmt.Errorf("sheet %q needs %d rows; a sheet holds at most %d", p.name, rows, maxRows)
	}
	return nil
}

// xlsxStyles holds the one style cells use besides the default: s="1",
// the bold header font. Excel wants both default fills and a border.
const xlsxStyles = xmlHead + `<styleSheet xmlns="` + ssNS + `">` +
	`<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>` +
	`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
	`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
	`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
	`<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>` +
	`<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>` +
	`</styleSheet>`

// writeSheet streams one worksheet: a sheet may hold a million cells,
// which need not sit in memory as XML as well as in the zip.
func writeSheet(w io.Writer, tables [][][]string, selected bool) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(xmlHead + `<worksheet xmlns="` + ssNS + `">`)
	if selected {
		bw.WriteString(`<sheetViews><sheetView tabSelected="1" workbookViewId="0"/></sheetViews>`)
	}
	bw.WriteString(`<sheetData>`)
	row := 1
	for _, t := range tables {
		for r, cells := range t {
			if len(cells) > 0 {
				fmt.Fprintf(bw, `<row r="%d">`, row)
				for c, v := range cells {
					writeCell(bw, colName(c+1)+strconv.Itoa(row), v, r == 0)
				}
				bw.WriteString(`</row>`)
			}
			row++
		}
		row++
	}
	bw.WriteString(`</sheetData></worksheet>`)
	return bw.Flush()
}

// writeCell writes a header cell bold and as text, a number as a number,
// anything else as an inline string; empty body cells are left out.
func writeCell(bw *bufio.Writer, ref, v string, header bool) {
	if !header {
		if num, ok := numericCell(v); ok {
			fmt.Fprintf(bw, `<c r="%s"><v>%s</v></c>`, ref, num)
			return
		}
	}
	text := cellText(v)
	style := ""
	if header {
		style = ` s="1"`
	}
	if text == "" {
		if header {
			fmt.Fprintf(bw, `<c r="%s"%s/>`, ref, style)
		}
		return
	}
	fmt.Fprintf(bw, `<c r="%s"%s t="inlineStr"><is><t xml:space="preserve">%s</t></is></c>`, ref, style, esc(text))
}

// cellText is s as a cell stores it: without characters XML cannot
// carry, cut to what a cell holds, and with literal _xHHHH_ sequences
// protected, since readers decode those as escaped characters.
func cellText(s string) string {
	s = truncUTF16(xmlClean(s), maxCellChars)
	if !strings.Contains(s, "_x") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && isEscapeAt(s, i) {
			b.WriteString("_x005F_") // an escaped '_'; the rest follows as written
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isEscapeAt reports whether s holds _xHHHH_ at i.
func isEscapeAt(s string, i int) bool {
	if i+7 > len(s) || s[i+1] != 'x' || s[i+6] != '_' {
		return false
	}
	for _, c := range []byte(s[i+2 : i+6]) {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(c)) {
			return false
		}
	}
	return true
}

// numericCell returns the number s holds, as a <v> value, when it should
// be stored as a number so sums and sorting work.
func numericCell(s string) (string, bool) {
	t := strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	if t == "" || strings.ContainsAny(t, "xXpP_") { // no hex, no underscores
		return "", false
	}
	// A leading zero ("007", a zip code) means the text matters, not the value.
	if d := strings.TrimLeft(t, "+-"); len(d) > 1 && d[0] == '0' && d[1] != '.' {
		return "", false
	}
	// Excel keeps 15 significant digits: a card or account number with
	// more would silently lose its last ones.
	if significantDigits(t) > 15 {
		return "", false
	}
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsAny(t, "nNiI") {
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

// significantDigits counts the digits of a decimal number's mantissa
// between its first and last non-zero digit.
func significantDigits(t string) int {
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		t = t[:i]
	}
	var digits []byte
	for i := 0; i < len(t); i++ {
		if t[i] >= '0' && t[i] <= '9' {
			digits = append(digits, t[i])
		}
	}
	return len(strings.Trim(string(digits), "0"))
}

// colName is the letters of the 1-based column n: 1 is A, 27 is AA.
func colName(n int) string {
	var b [14]byte // 26^14 passes the largest int64
	i := len(b)
	for n > 0 {
		n--
		i--
		b[i] = byte('A' + n%26)
		n /= 26
	}
	return string(b[i:])
}

// uniqueSheetName applies Excel's rules: at most 31 characters, none of
// []:*?/\ , not blank, no leading/trailing apostrophe, unique ignoring
// case, not the reserved "History".
func uniqueSheetName(s string, used map[string]bool) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) || r < 0x20 || !xmlChar(r) {
			return '_'
		}
		return r
	}, s)
	s = strings.Trim(strings.TrimSpace(s), "'")
	if s == "" || strings.EqualFold(s, "History") {
		s = "Sheet"
	}
	// Cutting may bare an apostrophe at the end, which Excel refuses.
	base := strings.TrimRight(truncUTF16(s, maxSheetName), "'")
	name := base
	for i := 2; used[strings.ToLower(name)]; i++ {
		suf := fmt.Sprintf(" (%d)", i)
		name = truncUTF16(base, maxSheetName-len(suf)) + suf
	}
	used[strings.ToLower(name)] = true
	return name
}

// truncUTF16 cuts s to at most n UTF-16 units, which is how Excel
// counts, without splitting a character.
func truncUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		units += utf16.RuneLen(r)
		if units > n {
			return s[:i]
		}
	}
	return s
}
