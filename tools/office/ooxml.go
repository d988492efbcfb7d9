package office

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// xmlChar reports whether XML 1.0 can carry r at all; the rest (most
// control characters, U+FFFE, U+FFFF) would make Office refuse the file.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// xmlClean drops the characters XML cannot carry.
func xmlClean(s string) string {
	return strings.Map(func(r rune) rune {
		if xmlChar(r) {
			return r
		}
		return -1
	}, s)
}

// esc escapes s for XML text and attribute values, dropping characters
// XML 1.0 cannot carry.
func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(xmlClean(s)))
	return b.String()
}

// part is one file of a package: body, or write when the body is big
// enough to stream rather than build in memory.
type part struct {
	name  string
	body  string
	write func(w io.Writer) error
}

// zipParts writes the package; [Content_Types].xml must come first for
// some readers.
func zipParts(parts []part) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, p := range parts {
		w, err := z.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return nil, fmt.Errorf("zip part %s: %w", p.name, err)
		}
		if p.write != nil {
			err = p.write(w)
		} else {
			_, err = io.WriteString(w, p.body)
		}
		if err != nil {
			return nil, fmt.Errorf("zip part %s: %w", p.name, err)
		}
	}
	if err := z.Close(); err != nil {
		return nil, fmt.Errorf("close zip: %w", err)
	}
	return buf.Bytes(), nil
}

const (
	xmlHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	relNS   = `http://schemas.openxmlformats.org/officeDocument/2006/relationships/`
	// ctOOXML starts the content types of the Office parts.
	ctOOXML = "application/vnd.openxmlformats-officedocument."
)

// relsXML is a relationships part; items are pairs of a relationship
// type (relative to relNS) and a target, numbered rId1, rId2, … in order.
func relsXML(items ...string) string {
	var b strings.Builder
	b.WriteString(xmlHead + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	for i := 0; i+1 < len(items); i += 2 {
		fmt.Fprintf(&b, `<Relationship Id="rId%d" Type="%s%s" Target="%s"/>`, i/2+1, relNS, items[i], esc(items[i+1]))
	}
	b.WriteString(`</Relationships>`)
	return b.String()
}

// contentTypesXML is [Content_Types].xml; overrides are pairs of a part
// name and its content type (relative to ctOOXML).
func contentTypesXML(overrides ...string) string {
	var b strings.Builder
	b.WriteString(xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
		`<Default Extension="xml" ContentType="application/xml"/>`)
	for i := 0; i+1 < len(overrides); i += 2 {
		fmt.Fprintf(&b, `<Override PartName="%s" ContentType="%s%s"/>`, esc(overrides[i]), ctOOXML, overrides[i+1])
	}
	b.WriteString(`</Types>`)
	return b.String()
}
