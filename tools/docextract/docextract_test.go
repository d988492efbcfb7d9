package docextract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/openclaw-go/openclaw/tools"
)

// makePDF writes a PDF with one page per entry of pages, each showing
// its text with the standard Helvetica font. An empty entry gives a
// page that only paints an image, like a scanner's output. The xref
// offsets are computed so that strict readers accept the file.
func makePDF(pages []string) []byte {
	var objs []string
	n := len(pages)
	// 1 catalog, 2 pages, 3 font, 4 image, then a page and its content
	// stream per page.
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream",
	)
	for i, text := range pages {
		content := "q 200 0 0 200 100 400 cm /Im1 Do Q"
		if text != "" {
			content = fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> /Contents %d 0 R >>", 6+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		)
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// makeDOCX writes a minimal DOCX: the zip with word/document.xml, which
// is all the extractor needs, and word/styles.xml when styles is set.
func makeDOCX(t testing.TB, body string, styles ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>%s</w:body></w:document>`, body)
	if len(styles) > 0 {
		w, err := zw.Create("word/styles.xml")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">%s</w:styles>`, strings.Join(styles, ""))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const docxBody = `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Quarterly Report</w:t></w:r></w:p>` +
	`<w:p><w:r><w:t xml:space="preserve">Revenue grew </w:t></w:r><w:r><w:t>strongly.</w:t></w:r></w:p>` +
	`<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Numbers</w:t></w:r></w:p>` +
	`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Region</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Sales</w:t></w:r></w:p></w:tc></w:tr>` +
	`<w:tr><w:tc><w:p><w:r><w:t>North</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>42</w:t></w:r></w:p></w:tc></w:tr></w:tbl>` +
	`<w:p><w:r><w:t>The end.</w:t></w:r></w:p>`

// makeXLSX writes a workbook with two sheets through excelize.
func makeXLSX(t testing.TB) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "Sales"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewSheet("Staff"); err != nil {
		t.Fatal(err)
	}
	for sheet, rows := range map[string][][]any{
		"Sales": {{"Region", "Amount"}, {"North", 42}, {"South", 7}},
		"Staff": {{"Name", "Role"}, {"Ada", "Engineer"}},
	} {
		for i, r := range rows {
			if err := f.SetSheetRow(sheet, fmt.Sprintf("A%d", i+1), &r); err != nil {
				t.Fatal(err)
			}
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDocumentExtractTool(t *testing.T) {
	ws := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(ws, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("report.pdf", makePDF([]string{"Hello from page one", "Second page text", "Third page"}))
	write("scan.pdf", makePDF([]string{"", ""}))
	write("report.docx", makeDOCX(t, docxBody))
	write("book.xlsx", makeXLSX(t))
	// A DOCX saved under another extension is still found by content.
	write("renamed.bin", makeDOCX(t, `<w:p><w:r><w:t>renamed body</w:t></w:r></w:p>`))
	// Localized Word writes localized style ids; the name and outline
	// level still say which styles are headings.
	write("localized.docx", makeDOCX(t,
		`<w:p><w:pPr><w:pStyle w:val="berschrift1"/></w:pPr><w:r><w:t>Einleitung</w:t></w:r></w:p>`+
			`<w:p><w:pPr><w:pStyle w:val="MyHead"/></w:pPr><w:r><w:t>Custom</w:t></w:r></w:p>`+
			`<w:p><w:pPr><w:pStyle w:val="Standard"/></w:pPr><w:r><w:t>Text</w:t><w:tab/><w:t>after tab</w:t></w:r></w:p>`,
		`<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>`,
		`<w:style w:type="paragraph" w:styleId="MyHead"><w:name w:val="My Head"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>`,
		`<w:style w:type="paragraph" w:styleId="Standard"><w:name w:val="Normal"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>`))
	write("notes.md", []byte("\uFEFF# Notes\nplain text"))
	write("long.txt", []byte(strings.Repeat("abcdefghij", 30)))
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	write("old.xls", append([]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"), make([]byte, 504)...))
	write("broken.pdf", []byte("%PDF-1.7\nthis is not really a pdf\n"))
	// A page tree whose Kids point back at itself: the library's own
	// page lookup loops forever on it.
	write("cycle.pdf", bytes.Replace(makePDF([]string{"x"}), []byte("/Kids [5 0 R]"), []byte("/Kids [2 0 R]"), 1))
	write("image.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"))
	write("corrupt.docx", append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0xff, 0x00}, 64)...))
	write("plain.zip", func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("readme.txt")
		w.Write([]byte("hi"))
		zw.Close()
		return buf.Bytes()
	}())
	// A sparse file: over the limit without writing 50 MB.
	big, err := os.Create(filepath.Join(ws, "big.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	big.WriteString("%PDF-1.4\n")
	if err := big.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()

	tool := Tools(func(tools.Who) (string, error) { return ws, nil })[0]
	if s := tool.Spec(); s.Name != "DocumentExtractTool" || s.Dangerous || s.Tier != tools.TierCore || s.Groups[0] != "group:fs" {
		t.Fatalf("spec %+v", s)
	}
	// Commas in jsonschema tags must be escaped or the text is cut there.
	if p := string(tool.Spec().Parameters); !strings.Contains(p, "XLSX or plain text") || !strings.Contains(p, "at most 200000") {
		t.Errorf("schema descriptions cut short: %s", p)
	}
	tests := []struct {
		name    string
		args    string
		want    []string // substrings, in this order
		not     []string
		wantErr string
	}{
		{"pdf", `{"path":"report.pdf"}`,
			[]string{"file: report.pdf", "format: PDF", "pages: 3", "--- page 1 ---", "Hello from page one", "--- page 2 ---", "Second page text", "Third page"},
			[]string{"truncated"}, ""},
		{"pdf pages", `{"path":"report.pdf","pages":"2-3"}`,
			[]string{"pages: 3 (showing 2-3)", "Second page text", "Third page"}, []string{"Hello from page one"}, ""},
		{"pdf bad pages", `{"path":"report.pdf","pages":"5"}`, nil, nil, "the PDF has 3 pages"},
		{"pdf scan", `{"path":"scan.pdf"}`,
			[]string{"format: PDF", "pages: 2", "scanned document", "No OCR"}, nil, ""},
		{"docx", `{"path":"report.docx"}`,
			[]string{"format: DOCX", "paragraphs: 4, tables: 1", "# Quarterly Report\n\nRevenue grew strongly.\n\n## Numbers\n\n| Region | Sales |\n| North | 42 |\n\nThe end."},
			nil, ""},
		{"docx localized styles", `{"path":"localized.docx"}`, []string{"\n\n# Einleitung\n\n## Custom\n\nText\tafter tab\n"}, nil, ""},
		{"docx by content", `{"path":"renamed.bin"}`, []string{"format: DOCX", "renamed body"}, nil, ""},
		{"xlsx", `{"path":"book.xlsx"}`,
			[]string{"format: XLSX", `sheets: 2 ("Sales", "Staff")`, "## Sales\nRegion\tAmount\nNorth\t42\nSouth\t7\n", "## Staff\nName\tRole\nAda\tEngineer\n"},
			nil, ""},
		{"xlsx sheet", `{"path":"book.xlsx","sheet":"Staff"}`,
			[]string{`showing "Staff"`, "## Staff\nName\tRole\nAda\tEngineer"}, []string{"## Sales"}, ""},
		{"xlsx missing sheet", `{"path":"book.xlsx","sheet":"Nope"}`, nil, nil, `no sheet "Nope"; the sheets are "Sales", "Staff"`},
		{"markdown", `{"path":"notes.md"}`, []string{"format: text", "\n\n# Notes\nplain text"}, []string{"\uFEFF"}, ""},
		{"truncated", `{"path":"long.txt","maxChars":25}`,
			[]string{"truncated: showing the first 25 of 300 characters", "larger maxChars", "\n\nabcdefghijabcdefghijabcde\n[… truncated]"},
			[]string{"abcdefghijabcdefghijabcdef"}, ""},
		{"truncated pdf hint", `{"path":"report.pdf","maxChars":10}`, []string{"pages (e.g."}, nil, ""},
		{"escape", `{"path":"../x.pdf"}`, nil, nil, `"../x.pdf" is outside the workspace`},
		{"too large", `{"path":"big.pdf"}`, nil, nil, "over 50 MB are not extracted"},
		{"unknown", `{"path":"image.png"}`, nil, nil, "unsupported format: detected image/png"},
		{"legacy or encrypted office", `{"path":"old.xls"}`, nil, nil, "detected OLE compound document"},
		{"corrupt pdf", `{"path":"broken.pdf"}`, nil, nil, "extract broken.pdf: open PDF:"},
		{"pdf page tree cycle", `{"path":"cycle.pdf"}`, nil, nil, "no readable pages"},
		{"corrupt zip", `{"path":"corrupt.docx"}`, nil, nil, "detected corrupt zip archive"},
		{"other zip", `{"path":"plain.zip"}`, nil, nil, "zip archive (not a DOCX or XLSX)"},
		{"directory", `{"path":"sub"}`, nil, nil, "sub is not a regular file"},
		{"missing", `{"path":"nope.pdf"}`, nil, nil, "open nope.pdf"},
		{"negative maxChars", `{"path":"notes.md","maxChars":-1}`, nil, nil, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tool.Call(context.Background(), tools.Call{Args: json.RawMessage(tt.args)})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v (text %q), want %q", err, r.Text, tt.wantErr)
				}
				return
			}
			if err != nil || r.IsError {
				t.Fatalf("err %v, result %+v", err, r)
			}
			rest := r.Text
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing %q (in order) in:\n%s", w, r.Text)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tt.not {
				if strings.Contains(r.Text, n) {
					t.Errorf("unexpected %q in:\n%s", n, r.Text)
				}
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.pdf"), makePDF([]string{"x"}), 0o600); err != nil {
		t.Fatal(err)
	}
	tool := Tools(func(tools.Who) (string, error) { return ws, nil })[0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool.Call(ctx, tools.Call{Args: json.RawMessage(`{"path":"a.pdf"}`)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

func TestWorkspaceError(t *testing.T) {
	tool := Tools(func(tools.Who) (string, error) { return "", errors.New("no agent") })[0]
	_, err := tool.Call(context.Background(), tools.Call{Args: json.RawMessage(`{"path":"a.pdf"}`)})
	if err == nil || !strings.Contains(err.Error(), "resolve workspace: no agent") {
		t.Fatalf("err %v", err)
	}
}

func TestParsePages(t *testing.T) {
	tests := []struct {
		spec    string
		n       int
		want    string
		wantErr bool
	}{
		{"", 3, "[1 2 3]", false},
		{"2", 3, "[2]", false},
		{"1-2, 3", 5, "[1 2 3]", false},
		{"2-9", 4, "[2 3 4]", false},
		{"3,1-2,2", 4, "[3 1 2]", false},
		{"0", 3, "", true},
		{"3-1", 3, "", true},
		{"x", 3, "", true},
		{"4", 3, "", true},
	}
	for _, tt := range tests {
		got, err := parsePages(tt.spec, tt.n)
		if (err != nil) != tt.wantErr || (!tt.wantErr && fmt.Sprint(got) != tt.want) {
			t.Errorf("parsePages(%q, %d) = %v, %v; want %s (err %v)", tt.spec, tt.n, got, err, tt.want, tt.wantErr)
		}
	}
}

// FuzzExtract feeds arbitrary bytes to the extractors: whatever a file
// holds, extract must return text or an error, never panic.
func FuzzExtract(f *testing.F) {
	f.Add(makePDF([]string{"fuzz seed"}))
	f.Add(makePDF([]string{""}))
	f.Add(makeDOCX(f, docxBody))
	f.Add(makeXLSX(f))
	f.Add([]byte("plain text"))
	f.Add([]byte("%PDF-1.4\n1 0 obj << >> endobj trailer << /Root 1 0 R >>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := extract(context.Background(), data, options{pages: "1-2"})
		if err == nil && d.format == "" {
			t.Fatalf("no error and no format for %q", data)
		}
	})
}
