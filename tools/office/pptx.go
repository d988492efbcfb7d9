package office

import (
	"fmt"
	"strings"
)

const (
	pNS  = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
	emuH = 6858000
)

type slide struct {
	title []run
	body  []block
}

// splitSlides cuts the document at thematic breaks; the first heading of
// each slide becomes its title. Slides with nothing on them are dropped,
// so a leading or doubled --- does not make blank slides.
func splitSlides(doc []block) []slide {
	var out []slide
	cur := slide{}
	flush := func() {
		if cur.title != nil || len(cur.body) > 0 {
			out = append(out, cur)
		}
		cur = slide{}
	}
	for _, b := range doc {
		switch {
		case b.kind == kRule:
			flush()
		case b.kind == kHeading && cur.title == nil:
			cur.title = append([]run{}, b.runs...) // non-nil even when empty: the title is taken
		default:
			cur.body = append(cur.body, b)
		}
	}
	flush()
	return out
}

func renderPptx(doc []block, aspect string) ([]byte, int, error) {
	w := 12192000
	switch aspect {
	case "", "16:9":
	case "4:3":
		w = 9144000
	default:
		return nil, 0, fmt.Errorf("aspect %q: use 16:9 or 4:3", aspect)
	}
	slides := splitSlides(doc)
	if len(slides) == 0 {
		return nil, 0, fmt.Errorf("no slide content found")
	}
	if len(slides) > maxSlides {
		return nil, 0, fmt.Errorf("%d slides; at most %d", len(slides), maxSlides)
	}
	var sldIDs strings.Builder
	ct := []string{
		"/ppt/presentation.xml", "presentationml.presentation.main+xml",
		"/ppt/slideMasters/slideMaster1.xml", "presentationml.slideMaster+xml",
		"/ppt/slideLayouts/slideLayout1.xml", "presentationml.slideLayout+xml",
		"/ppt/theme/theme1.xml", "theme+xml",
	}
	presItems := []string{"slideMaster", "slideMasters/slideMaster1.xml", "theme", "theme/theme1.xml"}
	var parts []part
	for i, s := range slides {
		n := i + 1
		ct = append(ct, fmt.Sprintf("/ppt/slides/slide%d.xml", n), "presentationml.slide+xml")
		presItems = append(presItems, "slide", fmt.Sprintf("slides/slide%d.xml", n))
		fmt.Fprintf(&sldIDs, `<p:sldId id="%d" r:id="rId%d"/>`, 255+n, len(presItems)/2)
		parts = append(parts,
			part{name: fmt.Sprintf("ppt/slides/slide%d.xml", n), body: slideXML(s, w)},
			part{name: fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n), body: relsXML("slideLayout", "../slideLayouts/slideLayout1.xml")})
	}
	pres := xmlHead + `<p:presentation ` + pNS + ` saveSubsetFonts="1">` +
		`<p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>` +
		`<p:sldIdLst>` + sldIDs.String() + `</p:sldIdLst>` +
		fmt.Sprintf(`<p:sldSz cx="%d" cy="%d"/><p:notesSz cx="6858000" cy="9144000"/>`, w, emuH) +
		`</p:presentation>`
	all := []part{
		{name: "[Content_Types].xml", body: contentTypesXML(ct...)},
		{name: "_rels/.rels", body: relsXML("officeDocument", "ppt/presentation.xml")},
		{name: "ppt/presentation.xml", body: pres},
		{name: "ppt/_rels/presentation.xml.rels", body: relsXML(presItems...)},
		{name: "ppt/slideMasters/slideMaster1.xml", body: masterXML(w)},
		{name: "ppt/slideMasters/_rels/slideMaster1.xml.rels", body: relsXML("slideLayout", "../slideLayouts/slideLayout1.xml", "theme", "../theme/theme1.xml")},
		{name: "ppt/slideLayouts/slideLayout1.xml", body: layoutXML()},
		{name: "ppt/slideLayouts/_rels/slideLayout1.xml.rels", body: relsXML("slideMaster", "../slideMasters/slideMaster1.xml")},
		{name: "ppt/theme/theme1.xml", body: themeXML},
	}
	data, err := zipParts(append(all, parts...))
	return data, len(slides), err
}

const grpHead = `<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>`

func titleBox(w int) string {
	return fmt.Sprintf(`<a:xfrm><a:off x="457200" y="274638"/><a:ext cx="%d" cy="1143000"/></a:xfrm>`, w-914400)
}

func masterXML(w int) string {
	return xmlHead + `<p:sldMaster ` + pNS + `><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree>` + grpHead +
		`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title Placeholder 1"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr>` +
		`<p:spPr>` + titleBox(w) + `<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr anchor="ctr"/><a:lstStyle/><a:p><a:endParaRPr lang="en-US"/></a:p></p:txBody></p:sp>` +
		`</p:spTree></p:cSld>` +
		`<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>` +
		`<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst>` +
		`<p:txStyles><p:titleStyle><a:lvl1pPr><a:defRPr sz="3600" b="1"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mj-lt"/></a:defRPr></a:lvl1pPr></p:titleStyle>` +
		`<p:bodyStyle><a:lvl1pPr><a:defRPr sz="2000"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/></a:defRPr></a:lvl1pPr></p:bodyStyle>` +
		`<p:otherStyle><a:lvl1pPr><a:defRPr sz="1800"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill></a:defRPr></a:lvl1pPr></p:otherStyle></p:txStyles></p:sldMaster>`
}

func layoutXML() string {
	return xmlHead + `<p:sldLayout ` + pNS + ` type="titleOnly" preserve="1"><p:cSld name="Title Only"><p:spTree>` + grpHead +
		`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/>` +
		`<p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-US"/></a:p></p:txBody></p:sp>` +
		`</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`
}

// slideXML draws the title placeholder and one text box holding the rest:
// list items as bullets at their depth, tables as " | "-joined lines, code
// in a monospace font.
func slideXML(s slide, w int) string {
	var b strings.Builder
	b.WriteString(xmlHead + `<p:sld ` + pNS + `><p:cSld><p:spTree>` + grpHead)
	id := 2
	if s.title != nil {
		fmt.Fprintf(&b, `<p:sp><p:nvSpPr><p:cNvPr id="%d" name="Title %d"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/>`+
			`<p:txBody><a:bodyPr/><a:lstStyle/><a:p>%s</a:p></p:txBody></p:sp>`, id, id, pptxRuns(s.title, false))
		id++
	}
	if len(s.body) > 0 {
		fmt.Fprintf(&b, `<p:sp><p:nvSpPr><p:cNvPr id="%d" name="Content %d"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>`+
			`<p:spPr><a:xfrm><a:off x="457200" y="1600200"/><a:ext cx="%d" cy="4800600"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>`+
			`<p:txBody><a:bodyPr wrap="square"><a:normAutofit/></a:bodyPr><a:lstStyle/>`, id, id, w-914400)
		for _, bl := range s.body {
			switch bl.kind {
			case kItem:
				lvl := min(bl.level, 8)
				marL := 342900 + lvl*342900
				bullet := `<a:buFont typeface="Arial"/><a:buChar char="•"/>`
				if bl.number < 0 {
					bullet = `<a:buNone/>`
				} else if bl.ordered {
					bullet = fmt.Sprintf(`<a:buFont typeface="+mj-lt"/><a:buAutoNum type="arabicPeriod" startAt="%d"/>`, max(bl.number, 1))
				}
				fmt.Fprintf(&b, `<a:p><a:pPr marL="%d" lvl="%d" indent="-342900">%s</a:pPr>%s</a:p>`, marL, lvl, bullet, pptxRuns(bl.runs, false))
			case kHeading:
				fmt.Fprintf(&b, `<a:p>%s</a:p>`, pptxRuns(bl.runs, true))
			case kPara:
				fmt.Fprintf(&b, `<a:p>%s</a:p>`, pptxRuns(bl.runs, false))
			case kCode:
				for _, line := range strings.Split(bl.code, "\n") {
					fmt.Fprintf(&b, `<a:p>%s</a:p>`, pptxRuns([]run{{text: line, code: true}}, false))
				}
			case kTable:
				for i, row := range bl.rows {
					fmt.Fprintf(&b, `<a:p>%s</a:p>`, pptxRuns([]run{{text: strings.Join(row, " | ")}}, i == 0))
				}
			}
		}
		b.WriteString(`</p:txBody></p:sp>`)
	}
	b.WriteString(`</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`)
	return b.String()
}

func pptxRuns(rs []run, allBold bool) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(`<a:r><a:rPr lang="en-US" dirty="0"`)
		if r.bold || allBold {
			b.WriteString(` b="1"`)
		}
		if r.italic {
			b.WriteString(` i="1"`)
		}
		b.WriteString(`>`)
		if r.code {
			b.WriteString(`<a:latin typeface="Courier New"/><a:cs typeface="Courier New"/>`)
		}
		fmt.Fprintf(&b, `</a:rPr><a:t>%s</a:t></a:r>`, esc(r.text))
	}
	if len(rs) == 0 {
		b.WriteString(`<a:endParaRPr lang="en-US"/>`)
	}
	return b.String()
}

// themeXML is the smallest theme PowerPoint accepts: a full colour
// scheme, a font scheme and three entries in each format style list.
var themeXML = xmlHead + `<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Office Theme"><a:themeElements>` +
	`<a:clrScheme name="Office"><a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1><a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1>` +
	`<a:dk2><a:srgbClr val="1F497D"/></a:dk2><a:lt2><a:srgbClr val="EEECE1"/></a:lt2><a:accent1><a:srgbClr val="4F81BD"/></a:accent1><a:accent2><a:srgbClr val="C0504D"/></a:accent2>` +
	`<a:accent3><a:srgbClr val="9BBB59"/></a:accent3><a:accent4><a:srgbClr val="8064A2"/></a:accent4><a:accent5><a:srgbClr val="4BACC6"/></a:accent5><a:accent6><a:srgbClr val="F79646"/></a:accent6>` +
	`<a:hlink><a:srgbClr val="0000FF"/></a:hlink><a:folHlink><a:srgbClr val="800080"/></a:folHlink></a:clrScheme>` +
	`<a:fontScheme name="Office"><a:majorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>` +
	`<a:fmtScheme name="Office"><a:fillStyleLst>` + strings.Repeat(`<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>`, 3) + `</a:fillStyleLst>` +
	`<a:lnStyleLst>` + strings.Repeat(`<a:ln w="9525"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln>`, 3) + `</a:lnStyleLst>` +
	`<a:effectStyleLst>` + strings.Repeat(`<a:effectStyle><a:effectLst/></a:effectStyle>`, 3) + `</a:effectStyleLst>` +
	`<a:bgFillStyleLst>` + strings.Repeat(`<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>`, 3) + `</a:bgFillStyleLst></a:fmtScheme>` +
	`</a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>`
