package office

import (
	"fmt"
	"strings"
)

const wNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

// renderDocx writes a minimal WordprocessingML package. Lists are plain
// indented paragraphs with a typed bullet or number: a numbering part
// would be more faithful but is a lot of XML for little gain.
func renderDocx(doc []block) ([]byte, int, error) {
	var body strings.Builder
	n := 0
	for _, b := range doc {
		switch b.kind {
		case kHeading:
			lvl := min(max(b.level, 1), 6)
			fmt.Fprintf(&body, `<w:p><w:pPr><w:pStyle w:val="Heading%d"/></w:pPr>%s</w:p>`, lvl, docxRuns(b.runs))
			n++
		case kPara:
			fmt.Fprintf(&body, `<w:p>%s</w:p>`, docxRuns(b.runs))
			n++
		case kItem:
			mark := "• "
			if b.number < 0 {
				mark = ""
			} else if b.ordered {
				mark = fmt.Sprintf("%d. ", b.number)
			}
			ind := 360 * (b.level + 1)
			fmt.Fprintf(&body, `<w:p><w:pPr><w:ind w:left="%d" w:hanging="270"/></w:pPr><w:r><w:t xml:space="preserve">%s</w:t></w:r>%s</w:p>`, ind+270, esc(mark), docxRuns(b.runs))
			n++
		case kCode:
			body.WriteString(`<w:p><w:pPr><w:pStyle w:val="Code"/></w:pPr>`)
			for i, line := range strings.Split(b.code, "\n") {
				if i > 0 {
					body.WriteString(`<w:r><w:br/></w:r>`)
				}
				fmt.Fprintf(&body, `<w:r><w:t xml:space="preserve">%s</w:t></w:r>`, esc(line))
			}
			body.WriteString(`</w:p>`)
			n++
		case kRule:
			body.WriteString(`<w:p><w:pPr><w:pBdr><w:bottom w:val="single" w:sz="6" w:space="1" w:color="auto"/></w:pBdr></w:pPr></w:p>`)
			n++
		case kTable:
			docxTable(&body, b.rows)
			// Word needs a paragraph between two adjacent tables, and one
			// after a table that ends the body.
			body.WriteString(`<w:p/>`)
		}
	}
	document := xmlHead + `<w:document ` + wNS + `><w:body>` + body.String() +
		`<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/></w:sectPr></w:body></w:document>`
	data, err := zipParts([]part{
		{name: "[Content_Types].xml", body: contentTypesXML(
			"/word/document.xml", "wordprocessingml.document.main+xml",
			"/word/styles.xml", "wordprocessingml.styles+xml")},
		{name: "_rels/.rels", body: relsXML("officeDocument", "word/document.xml")},
		{name: "word/_rels/document.xml.rels", body: relsXML("styles", "styles.xml")},
		{name: "word/document.xml", body: document},
		{name: "word/styles.xml", body: docxStyles()},
	})
	return data, n, err
}

func docxRuns(rs []run) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(`<w:r>`)
		if r.bold || r.italic || r.code {
			b.WriteString(`<w:rPr>`)
			if r.code {
				b.WriteString(`<w:rFonts w:ascii="Courier New" w:hAnsi="Courier New" w:cs="Courier New"/>`)
			}
			if r.bold {
				b.WriteString(`<w:b/>`)
			}
			if r.italic {
				b.WriteString(`<w:i/>`)
			}
			b.WriteString(`</w:rPr>`)
		}
		fmt.Fprintf(&b, `<w:t xml:space="preserve">%s</w:t></w:r>`, esc(r.text))
	}
	return b.String()
}

func docxTable(b *strings.Builder, rows [][]string) {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return
	}
	b.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/><w:tblBorders>`)
	for _, side := range []string{"top", "left", "bottom", "right", "insideH", "insideV"} {
		fmt.Fprintf(b, `<w:%s w:val="single" w:sz="4" w:space="0" w:color="auto"/>`, side)
	}
	b.WriteString(`</w:tblBorders></w:tblPr><w:tblGrid>`)
	w := 9360 / cols
	for range cols {
		fmt.Fprintf(b, `<w:gridCol w:w="%d"/>`, w)
	}
	b.WriteString(`</w:tblGrid>`)
	for i, r := range rows {
		b.WriteString(`<w:tr>`)
		for c := range cols {
			cell := ""
			if c < len(r) {
				cell = r[c]
			}
			rpr := ""
			if i == 0 {
				rpr = `<w:rPr><w:b/></w:rPr>`
			}
			fmt.Fprintf(b, `<w:tc><w:tcPr><w:tcW w:w="%d" w:type="dxa"/></w:tcPr><w:p><w:r>%s<w:t xml:space="preserve">%s</w:t></w:r></w:p></w:tc>`, w, rpr, esc(cell))
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
}

func docxStyles() string {
	var b strings.Builder
	b.WriteString(xmlHead + `<w:styles ` + wNS + `>`)
	b.WriteString(`<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:cs="Calibri"/><w:sz w:val="22"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="120"/></w:pPr></w:pPrDefault></w:docDefaults>`)
	b.WriteString(`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>`)
	sizes := []int{32, 28, 26, 24, 22, 22}
	for i, sz := range sizes {
		fmt.Fprintf(&b, `<w:style w:type="paragraph" w:styleId="Heading%d"><w:name w:val="heading %d"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>`+
			`<w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="%d"/></w:pPr><w:rPr><w:b/><w:sz w:val="%d"/></w:rPr></w:style>`, i+1, i+1, i, sz)
	}
	b.WriteString(`<w:style w:type="paragraph" w:styleId="Code"><w:name w:val="Code"/><w:basedOn w:val="Normal"/><w:pPr><w:shd w:val="clear" w:color="auto" w:fill="F2F2F2"/><w:spacing w:after="0"/></w:pPr><w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New" w:cs="Courier New"/><w:sz w:val="20"/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style>`)
	b.WriteString(`</w:styles>`)
	return b.String()
}
