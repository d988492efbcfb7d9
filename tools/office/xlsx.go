package office

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// sheetPlan is one sheet: its name and the tables stacked on it.
type sheetPlan struct {
	name   string
	tables [][][]string
}

// renderXlsx puts each table on the sheet of the latest ## heading (or
// "Sheet1" before any), one blank row between tables.
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
	f := excelize.NewFile()
	defer f.Close()
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return nil, 0, fmt.Errorf("bold style: %w", err)
	}
	used := map[string]bool{}
	for i, p := range keep {
		name := uniqueSheetName(p.name, used)
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				return nil, 0, fmt.Errorf("name sheet %q: %w", name, err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			return nil, 0, fmt.Errorf("add sheet %q: %w", name, err)
		}
		row := 1
		for _, t := range p.tables {
			for r, cells := range t {
				for c, v := range cells {
					ref, err := excelize.CoordinatesToCellName(c+1, row)
					if err != nil {
						return nil, 0, fmt.Errorf("sheet %q row %d: %w", name, row, err)
					}
					if err := f.SetCellValue(name, ref, cellValue(v, r == 0)); err != nil {
						return nil, 0, fmt.Errorf("sheet %q cell %s: %w", name, ref, err)
					}
				}
				if r == 0 && len(cells) > 0 {
					end, _ := excelize.CoordinatesToCellName(len(cells), row)
					start, _ := excelize.CoordinatesToCellName(1, row)
					if err := f.SetCellStyle(name, start, end, bold); err != nil {
						return nil, 0, fmt.Errorf("sheet %q header style: %w", name, err)
					}
				}
				row++
			}
			row++
		}
	}
	f.SetActiveSheet(0)
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		return nil, 0, fmt.Errorf("write workbook: %w", err)
	}
	return buf.Bytes(), len(keep), nil
}

// cellValue stores numbers as numbers so sums and sorting work; headers
// stay text even when they look numeric (a year column, say).
func cellValue(s string, header bool) any {
	if header {
		return s
	}
	t := strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	if t == "" || strings.ContainsAny(t, "xXpP_") { // no hex, no underscores
		return s
	}
	// A leading zero ("007", a zip code) means the text matters, not the value.
	if d := strings.TrimLeft(t, "+-"); len(d) > 1 && d[0] == '0' && d[1] != '.' {
		return s
	}
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsAny(t, "nNiI") {
		return f
	}
	return s
}

// uniqueSheetName applies Excel's rules: at most 31 characters, none of
// []:*?/\ , not blank, no leading/trailing apostrophe, unique ignoring case.
func uniqueSheetName(s string, used map[string]bool) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) || r < 0x20 {
			return '_'
		}
		return r
	}, s)
	s = strings.Trim(strings.TrimSpace(s), "'")
	if s == "" || strings.EqualFold(s, "History") {
		s = "Sheet"
	}
	base := truncRunes(s, 31)
	name := base
	for i := 2; used[strings.ToLower(name)]; i++ {
		suf := fmt.Sprintf(" (%d)", i)
		name = truncRunes(base, 31-len(suf)) + suf
	}
	used[strings.ToLower(name)] = true
	return name
}

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
