package docextract

import (
	"archive/zip"
	"bytes"
	"net/http"
	"unicode/utf8"
)

// Kinds detect tells apart. Other kinds are described by their MIME type.
const (
	kindPDF  = "PDF"
	kindDOCX = "DOCX"
	kindXLSX = "XLSX"
	kindText = "text"
)

// detect names data's format from its content. PDF writers may put junk
// before the header, and readers accept it within the first KiB, so the
// signature is looked for there rather than only at offset 0.
func detect(data []byte) string {
	head := data[:min(len(data), 1024)]
	if bytes.Contains(head, []byte("%PDF-")) {
		return kindPDF
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")) {
		return detectZip(data)
	}
	// Password-protected OOXML and legacy .doc/.xls share this container;
	// naming it tells the model why the file cannot be read.
	if bytes.HasPrefix(data, []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")) {
		return "OLE compound document (legacy .doc/.xls/.ppt, or a password-protected Office file)"
	}
	if len(data) == 0 || isText(data) {
		return kindText
	}
	return http.DetectContentType(data)
}

// detectZip tells DOCX and XLSX apart by the part each must have; other
// zips (ODF, JAR, PPTX, plain archives) are named as such.
func detectZip(data []byte) string {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "corrupt zip archive (" + err.Error() + ")"
	}
	for _, f := range zr.File {
		switch f.Name {
		case "word/document.xml":
			return kindDOCX
		case "xl/workbook.xml":
			return kindXLSX
		case "ppt/presentation.xml":
			return "PPTX (PowerPoint; not supported)"
		}
	}
	return "zip archive (not a DOCX or XLSX)"
}

// isText reports whether data reads as UTF-8 text: valid UTF-8 with no
// NUL bytes, allowing a rune cut off at the very end.
func isText(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	if utf8.Valid(data) {
		return true
	}
	// A multi-byte rune may straddle the end only if the file was cut.
	for i := 1; i < utf8.UTFMax && i < len(data); i++ {
		if utf8.Valid(data[:len(data)-i]) {
			return !utf8.FullRune(data[len(data)-i:])
		}
	}
	return false
}
