package docextract

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// numKind is how a number format shows a value, as far as a reader of
// the text needs it: dates and times as such, percentages scaled, and
// everything else as a plain number.
type numKind uint8

const (
	numPlain numKind = iota
	numDate
	numTime
	numDateTime
	numElapsed // [h]:mm:ss, a duration past 24 hours
	numPercent
)

// readStyles returns the number format kind of each cell style; a
// broken styles part gives what was read before the break.
func (b *xlsxBook) readStyles(name string) []numKind {
	custom := map[int]numKind{}
	var ids []int
	inXfs := false
	b.walk(name, func(t xml.StartElement, d *xml.Decoder) error {
		switch t.Name.Local {
		case "numFmt":
			if id, err := strconv.Atoi(attr(t, "numFmtId")); err == nil {
				custom[id] = formatKind(attr(t, "formatCode"))
			}
		case "cellXfs":
			inXfs = true
		case "cellStyleXfs", "dxfs":
			inXfs = false
		case "xf":
			if inXfs {
				id, _ := strconv.Atoi(attr(t, "numFmtId"))
				ids = append(ids, id)
			}
		}
		return nil
	})
	kinds := make([]numKind, len(ids))
	for i, id := range ids {
		if k, ok := custom[id]; ok {
			kinds[i] = k
		} else {
			kinds[i] = builtinKind(id)
		}
	}
	return kinds
}

// builtinKind is the kind of one of the formats every reader knows by
// number (ECMA-376 part 1, 18.8.30), including the East Asian date ones.
func builtinKind(id int) numKind {
	switch {
	case id == 9 || id == 10:
		return numPercent
	case id >= 14 && id <= 17, id >= 27 && id <= 31, id >= 34 && id <= 36, id >= 50 && id <= 58:
		return numDate
	case id >= 18 && id <= 21, id == 32, id == 33, id == 45, id == 47:
		return numTime
	case id == 22:
		return numDateTime
	case id == 46:
		return numElapsed
	}
	return numPlain
}

// formatKind reads a format code's first section (the one for positive
// numbers), skipping quoted text, escaped characters and [...] colours
// and locales; an "m" is a month unless hours or seconds are shown.
func formatKind(code string) numKind {
	var date, clock, month, elapsed, percent bool
scan:
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '"':
			j := strings.IndexByte(code[i+1:], '"')
			if j < 0 {
				break scan
			}
			i += j + 1
		case '\\', '_', '*':
			i++ // the next character is literal, or padding
		case '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				break scan
			}
			if in := strings.ToLower(code[i+1 : i+j]); in != "" && strings.Trim(in, "hms") == "" {
				elapsed = true
			}
			i += j
		case ';':
			break scan
		case '%':
			percent = true
		default:
			switch c | 0x20 {
			case 'y', 'd':
				date = true
			case 'h', 's':
				clock = true
			case 'm':
				month = true
			}
		}
	}
	switch {
	case elapsed:
		return numElapsed
	case (date || month && !clock) && clock:
		return numDateTime
	case date || month && !clock:
		return numDate
	case clock:
		return numTime
	case percent:
		return numPercent
	}
	return numPlain
}

// formatNumber shows a number cell's value v as its format would, in
// the ISO forms for dates and times. What does not parse is shown as
// written.
func formatNumber(v string, kind numKind, date1904 bool) string {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return v
	}
	switch kind {
	case numPercent:
		return plainNumber(f*100) + "%"
	case numDate, numTime, numDateTime:
		if s, ok := serialDate(f, kind, date1904); ok {
			return s
		}
	case numElapsed:
		if f >= 0 && f < 1e7 {
			secs := int64(math.Round(f * 86400))
			return fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
		}
	}
	return plainNumber(f)
}

// plainNumber shows f as Excel's General format does, to 15 significant
// digits: 0.1+0.2 is 0.3.
func plainNumber(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	digits := strings.Trim(strings.NewReplacer("-", "", ".", "").Replace(s), "0")
	if len(digits) <= 15 && len(s) <= 21 {
		return s
	}
	return strconv.FormatFloat(f, 'G', 15, 64)
}

// serialDate shows an Excel date serial: days since 1899-12-30 (Excel
// counts the 1900-02-29 that never was, so early serials are off by
// one), or since 1904-01-01 in the 1904 system, the fraction being the
// time of day.
func serialDate(f float64, kind numKind, date1904 bool) (string, bool) {
	if f < 0 || f >= 2958466 { // past 9999-12-31 Excel shows ####
		return "", false
	}
	days := math.Floor(f)
	secs := int(math.Round((f - days) * 86400))
	if secs >= 86400 {
		days++
		secs -= 86400
	}
	clock := fmt.Sprintf("%02d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	if kind == numTime {
		return clock, true
	}
	var date string
	switch n := int(days); {
	case date1904:
		date = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format(time.DateOnly)
	case n == 0:
		date = "1900-01-00" // what Excel shows
	case n == 60:
		date = "1900-02-29"
	case n < 60:
		date = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format(time.DateOnly)
	default:
		date = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format(time.DateOnly)
	}
	if kind == numDateTime {
		return date + " " + clock, true
	}
	return date, true
}
