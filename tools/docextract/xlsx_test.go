package docextract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	ssMain = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	relT   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

// zipOf packs parts, in name order, into a zip.
func zipOf(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	names := make([]string, 0, len(parts))
	for n := range parts {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(parts[n]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// book is a workbook by hand: sheets are (name, sheetData inner XML);
// extra parts are added or, when empty, removed.
func book(t testing.TB, sheets [][2]string, extra map[string]string) []byte {
	t.Helper()
	var list, rels strings.Builder
	parts := map[string]string{
		"_rels/.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="` + relT + `officeDocument" Target="xl/workbook.xml"/></Relationships>`,
	}
	// Relationship ids run backwards to the tab order, and one target is
	// absolute: the order is the workbook's, the part the relationship's.
	for i, s := range sheets {
		id := fmt.Sprintf("rId%d", len(sheets)-i)
		fmt.Fprintf(&list, `<sheet name="%s" sheetId="%d" r:id="%s"/>`, s[0], i+1, id)
		target := fmt.Sprintf("worksheets/sheet%d.xml", i+1)
		if i == 1 {
			target = "/xl/" + target
		}
		fmt.Fprintf(&rels, `<Relationship Id="%s" Type="%sworksheet" Target="%s"/>`, id, relT, target)
		parts[fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1)] = `<worksheet ` + ssMain + `><sheetData>` + s[1] + `</sheetData></worksheet>`
	}
	rels.WriteString(`<Relationship Id="rIdS" Type="` + relT + `sharedStrings" Target="sharedStrings.xml"/>`)
	rels.WriteString(`<Relationship Id="rIdT" Type="` + relT + `styles" Target="styles.xml"/>`)
	parts["xl/workbook.xml"] = `<workbook ` + ssMain + `><sheets>` + list.String() + `</sheets></workbook>`
	parts["xl/_rels/workbook.xml.rels"] = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`
	for n, body := range extra {
		if body == "" {
			delete(parts, n)
		} else {
			parts[n] = body
		}
	}
	return zipOf(t, parts)
}

const (
	testStrings = `<sst ` + ssMain + ` count="3" uniqueCount="3"><si><t>plain</t></si>` +
		`<si><r><rPr><b/></rPr><t xml:space="preserve">rich </t></r><r><t>text</t></r><rPh sb="0" eb="1"><t>PHONETIC</t></rPh></si>` +
		`<si><t>tab	and_x000D__x000A_line_x005F_x0041_</t></si></sst>`
	// Styles 1..6: a date, a date and time, a time, a duration, a
	// percentage, and a custom date code.
	testStyles = `<styleSheet ` + ssMain + `><numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd&quot; at &quot;hh:mm"/><numFmt numFmtId="165" formatCode="[$-409]d mmm yyyy;@"/></numFmts>` +
		`<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>` +
		`<cellXfs count="7"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="21"/><xf numFmtId="46"/><xf numFmtId="10"/><xf numFmtId="165"/></cellXfs></styleSheet>`
)

func TestXLSXCells(t *testing.T) {
	data := book(t, [][2]string{
		{"Values", `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>inline</t></is></c><c r="D1" t="inlineStr"><is><r><t>in</t></r><r><t>runs</t></r></is></c></row>` +
			`<row r="2"><c r="A2"><v>42</v></c><c r="B2"><v>0.30000000000000004</v></c><c r="C2" t="n"><v>-1.5E-3</v></c><c r="D2" t="b"><v>1</v></c><c r="E2" t="b"><v>0</v></c><c r="F2" t="e"><v>#DIV/0!</v></c></row>` +
			`<row r="3"><c r="A3"><f>SUM(A2:A2)</f><v>42</v></c><c r="B3" t="str"><f>"a"&amp;"b"</f><v>ab</v></c><c r="C3"><f>NOW()</f></c><c r="D3" t="s"><v>2</v></c></row>` +
			// Sparse: C5 alone, two empty rows before, empty cells trimmed.
			`<row r="5"><c r="A5"/><c r="C5"><v>7</v></c><c r="D5" t="inlineStr"><is><t></t></is></c></row>`},
		{"Dates", `<row><c s="1"><v>45292</v></c><c s="2"><v>45292.75</v></c><c s="3"><v>0.5</v></c><c s="4"><v>1.5</v></c><c s="5"><v>0.125</v></c><c s="6"><v>45292</v></c></row>` +
			`<row><c s="1"><v>60</v></c><c s="1"><v>59</v></c><c s="1"><v>-1</v></c><c s="9"><v>5</v></c><c s="1"><v>x</v></c></row>`},
		{"Hidden", `<row r="2"><c r="B2" t="inlineStr"><is><t>b</t></is></c></row>`},
	}, map[string]string{"xl/sharedStrings.xml": testStrings, "xl/styles.xml": testStyles})
	d, err := extractXLSX(context.Background(), data, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "## Values\n" +
		"plain\trich text\tinline\tinruns\n" +
		"42\t0.3\t-0.0015\tTRUE\tFALSE\t#DIV/0!\n" +
		"42\tab\t\ttab and line_x0041_\n" +
		"\n" +
		"\t\t7\n" +
		"\n## Dates\n" +
		"2024-01-01\t2024-01-01 18:00:00\t12:00:00\t36:00:00\t12.5%\t2024-01-01\n" +
		"1900-02-29\t1900-02-28\t-1\t5\tx\n" +
		"\n## Hidden\n\n\tb\n"
	if d.text != want {
		t.Errorf("text:\n%q\nwant:\n%q", d.text, want)
	}
	if d.parts != `sheets: 3 ("Values", "Dates", "Hidden")` || d.total != utf8.RuneCountInString(want) {
		t.Errorf("parts %q, total %d", d.parts, d.total)
	}
	// The 1904 system counts from 1904-01-01.
	data = book(t, [][2]string{{"S", `<row><c s="1"><v>1</v></c></row>`}}, map[string]string{
		"xl/workbook.xml": `<workbook ` + ssMain + `><workbookPr date1904="1"/><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/styles.xml":   testStyles,
	})
	if d, err := extractXLSX(context.Background(), data, ""); err != nil || d.text != "## S\n1904-01-02\n" {
		t.Errorf("1904: %q, %v", d.text, err)
	}
}

// TestXLSXWriters reads parts as other writers lay them out: prefixed
// namespaces, no relationships for the string table, backslashes and
// capitals in entry names, the strict namespace.
func TestXLSXWriters(t *testing.T) {
	prefixed := zipOf(t, map[string]string{
		`xl\workbook.xml`:            `<x:workbook xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><x:sheets><x:sheet name="P" sheetId="1" r:id="R1"/></x:sheets></x:workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="R1" Type="` + relT + `worksheet" Target="worksheets/Sheet1.xml"/></Relationships>`,
		"XL/WORKSHEETS/SHEET1.XML":   `<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData><x:row><x:c t="s"><x:v>0</x:v></x:c><x:c><x:v>1</x:v></x:c></x:row></x:sheetData></x:worksheet>`,
		"xl/sharedStrings.xml":       `<sst xmlns="http://purl.oclc.org/ooxml/spreadsheetml/main"><si><t>s</t></si></sst>`,
	})
	d, err := extractXLSX(context.Background(), prefixed, "")
	if err != nil || d.text != "## P\ns\t1\n" {
		t.Errorf("prefixed: %q, %v", d.text, err)
	}
}

func TestXLSXErrors(t *testing.T) {
	sheet := func(data string) []byte { return book(t, [][2]string{{"S", data}}, nil) }
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"bad shared string", sheet(`<row><c r="B1" t="s"><v>3</v></c></row>`), `sheet "S" cell B1: shared string "3" does not exist (the workbook has 0)`},
		{"row past the last", sheet(`<row r="1048577"><c><v>1</v></c></row>`), `sheet "S": row 1048577 is past Excel's last row, 1048576`},
		{"column past the last", sheet(`<row><c r="XFE1"><v>1</v></c></row>`), `sheet "S" row 1: column 16385 is past Excel's last column, XFD`},
		{"huge column", sheet(`<row><c r="ZZZZZZZZZZZZZZZZZZZZZZ1"><v>1</v></c></row>`), "past Excel's last column"},
		{"broken sheet", sheet(`<row><c><v>1</c></row>`), `sheet "S" cell A1: XML syntax error`},
		{"cut sheet", book(t, [][2]string{{"S", ""}}, map[string]string{"xl/worksheets/sheet1.xml": `<worksheet><sheetData><row>`}), `sheet "S": parse xl/worksheets/sheet1.xml: XML syntax error`},
		{"no sheet part", book(t, [][2]string{{"S", ""}}, map[string]string{"xl/worksheets/sheet1.xml": ""}), "XLSX has no xl/worksheets/sheet1.xml"},
		{"no relationship", book(t, [][2]string{{"S", ""}}, map[string]string{"xl/_rels/workbook.xml.rels": ""}), `sheet "S": the workbook names no part for it`},
		{"broken workbook", book(t, nil, map[string]string{"xl/workbook.xml": "<workbook><sheets>"}), "parse xl/workbook.xml"},
		{"broken strings", book(t, nil, map[string]string{"xl/sharedStrings.xml": "<sst><si><t>a</si>"}), "parse xl/sharedStrings.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := extractXLSX(context.Background(), tt.data, "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// TestXLSXBomb performs the zip bomb: parts that say they inflate past
// what is read are refused before any is inflated, and a part that
// inflates past what it says fails as it is read.
func TestXLSXBomb(t *testing.T) {
	var small bytes.Buffer
	fw, _ := flate.NewWriter(&small, flate.BestCompression)
	fw.Write(bytes.Repeat([]byte("<sst><si><t>a</t></si></sst>"), 1<<15))
	fw.Close()
	bomb := func(declared uint64) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("xl/workbook.xml")
		w.Write([]byte(`<workbook/>`))
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "xl/sharedStrings.xml", Method: zip.Deflate,
			CompressedSize64: uint64(small.Len()), UncompressedSize64: declared})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(small.Bytes())
		zw.Close()
		return buf.Bytes()
	}
	_, err := extractXLSX(context.Background(), bomb(maxXMLBytes+1), "")
	if err == nil || !strings.Contains(err.Error(), "XLSX unpacks to more than 200 MB") {
		t.Errorf("declared bomb: %v", err)
	}
	_, err = extractXLSX(context.Background(), bomb(100), "")
	if err == nil || !strings.Contains(err.Error(), "parse xl/sharedStrings.xml") {
		t.Errorf("lying part: %v", err)
	}
}

// TestXLSXAmplified performs the amplification attack: one long shared
// string in twenty thousand cells, each at the last column, would be
// gigabytes of text. The text kept stays bounded and the count exact.
func TestXLSXAmplified(t *testing.T) {
	long := strings.Repeat("w", 10000)
	var rows strings.Builder
	const n = 20000
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&rows, `<row r="%d"><c r="XFD%d" t="s"><v>0</v></c></row>`, i, i)
	}
	data := book(t, [][2]string{{"S", rows.String()}}, map[string]string{"xl/sharedStrings.xml": `<sst><si><t>` + long + `</t></si></sst>`})
	d, err := extractXLSX(context.Background(), data, "")
	if err != nil {
		t.Fatal(err)
	}
	line := 16383 + len(long) // tabs, then the text
	if want := len("## S\n") + n*(line+1); d.total != want {
		t.Errorf("total %d, want %d", d.total, want)
	}
	if utf8.RuneCountInString(d.text) != CapMaxChars || !strings.HasPrefix(d.text, "## S\n\t\t") {
		t.Errorf("kept %d runes", utf8.RuneCountInString(d.text))
	}
	got := render("a.xlsx", d, 100, CapMaxChars)
	if !strings.Contains(got, fmt.Sprintf("showing the first 100 of %d characters", d.total)) {
		t.Errorf("render: %.300s", got)
	}
}

func TestFormatKind(t *testing.T) {
	for _, tc := range []struct {
		code string
		want numKind
	}{
		{"General", numPlain}, {"0.00", numPlain}, {"#,##0.00_);[Red](#,##0.00)", numPlain}, {"0.00E+00", numPlain},
		{`0 "days"`, numPlain}, {`\d0`, numPlain}, {"@", numPlain},
		{"0%", numPercent}, {"0.0%;[Red]-0.0%", numPercent},
		{"yyyy-mm-dd", numDate}, {"m/d/yy", numDate}, {"mmm", numDate}, {"[$-F800]dddd, mmmm dd, yyyy", numDate},
		{"h:mm AM/PM", numTime}, {"mm:ss", numTime}, {"hh:mm:ss;@", numTime},
		{"yyyy-mm-dd hh:mm", numDateTime}, {`d/m/yyyy" "h:mm`, numDateTime},
		{"[h]:mm:ss", numElapsed}, {"[mm]:ss", numElapsed},
		{`"unterminated`, numPlain}, {"[unterminated", numPlain},
	} {
		if got := formatKind(tc.code); got != tc.want {
			t.Errorf("formatKind(%q) = %d, want %d", tc.code, got, tc.want)
		}
	}
}

func TestRefColumn(t *testing.T) {
	for ref, want := range map[string]int{"A1": 1, "c5": 3, "Z9": 26, "AA1": 27, "XFD1048576": 16384, "XFE1": 16385, "": 0, "A": 0, "1": 0, "A-1": 0, "$A$1": 0, "ZZZZZZZZZZZZZZZZZZZZZZZZZZ1": xlsxMaxCols + 1} {
		if got := refColumn(ref); (got > xlsxMaxCols) != (want > xlsxMaxCols) || (want <= xlsxMaxCols && got != want) {
			t.Errorf("refColumn(%q) = %d, want %d", ref, got, want)
		}
	}
}

// FuzzXlsx feeds arbitrary bytes to the XLSX reader itself, without the
// recover that extract adds: it must return text or an error, never
// panic, and keep no more text than it is asked to.
func FuzzXlsx(f *testing.F) {
	f.Add(makeXLSX(f))
	f.Add(book(f, [][2]string{{"S", `<row r="3"><c r="C3" t="s"><v>1</v></c><c s="1"><v>45292.5</v></c></row>`}, {"T", `<row><c t="inlineStr"><is><r><t>x</t></r></is></c></row>`}},
		map[string]string{"xl/sharedStrings.xml": testStrings, "xl/styles.xml": testStyles}))
	f.Add(book(f, [][2]string{{"S", `<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>`}}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := extractXLSX(context.Background(), data, "")
		if err != nil {
			return
		}
		if n := utf8.RuneCountInString(d.text); n > CapMaxChars || n > d.total {
			t.Fatalf("kept %d runes of %d", n, d.total)
		}
	})
}

// FuzzXlsxParts fuzzes the XML of a workbook's parts rather than the zip
// around them, whose checksums stop most mutations of FuzzXlsx early.
func FuzzXlsxParts(f *testing.F) {
	f.Add(`<row r="1"><c r="A1" t="s"><v>1</v></c><c r="C1" s="2"><v>45292.75</v></c></row><row r="4"><c t="inlineStr"><is><r><t>x</t></r></is></c></row>`, testStrings, testStyles)
	f.Add(`<row><c t="b"><v>1</v></c><c t="e"><v>#N/A</v></c><c><f>1</f><v>2</v></c></row>`, `<sst/>`, `<styleSheet/>`)
	f.Add(`<row r="1048576"><c r="XFD1048576" t="str"><v>_x0041_</v></c></row>`, "", "")
	f.Fuzz(func(t *testing.T, sheet, sst, styles string) {
		extra := map[string]string{"xl/sharedStrings.xml": sst, "xl/styles.xml": styles}
		d, err := extractXLSX(context.Background(), book(t, [][2]string{{"S", sheet}, {"T", sheet}}, extra), "")
		if err != nil {
			return
		}
		if n := utf8.RuneCountInString(d.text); n > CapMaxChars || n > d.total {
			t.Fatalf("kept %d runes of %d", n, d.total)
		}
	})
}
