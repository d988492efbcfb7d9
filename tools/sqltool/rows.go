package sqltool

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// The size of a query's answer. maxResultBytes bounds the rows' JSON, below
// the Runner's default cut of 16,000 characters, which would cut the JSON
// mid-text; a value gets at most maxCellBytes, and less when the row has
// many columns, so that the first row always fits.
const (
	maxResultBytes = 12_000
	maxCellBytes   = 4_000
	minCellBytes   = 64
)

// readRows reads at most maxRows rows, and one more to know whether there are
// more; it also stops once the rows' JSON would pass maxResultBytes, and
// shortens long values. The caller closes rows, which stops the statement.
func readRows(rows *sql.Rows, maxRows int) (QueryResult, error) {
	cols, err := rows.Columns()
	if err != nil {
		return QueryResult{}, err
	}
	limit := min(maxCellBytes, max(minCellBytes, maxResultBytes/max(1, len(cols))))
	out := QueryResult{Columns: cols, Rows: [][]any{}}
	cells := make([]cell, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	var why []string
	size, cut := 0, 0
	for rows.Next() {
		if len(out.Rows) == maxRows {
			why = append(why, fmt.Sprintf("there are more rows than maxRows (%d); narrow the query with WHERE, or page with LIMIT and OFFSET", maxRows))
			break
		}
		for i := range cells {
			cells[i] = cell{limit: limit}
		}
		if err := rows.Scan(ptrs...); err != nil {
			return QueryResult{}, err
		}
		vals := make([]any, len(cols))
		rowCut := 0
		for i, c := range cells {
			vals[i] = c.v
			if c.cut {
				rowCut++
			}
		}
		b, err := json.Marshal(vals)
		if err != nil {
			return QueryResult{}, fmt.Errorf("encode row %d: %w", len(out.Rows)+1, err)
		}
		if size += len(b) + 1; size > maxResultBytes && len(out.Rows) > 0 {
			why = append(why, fmt.Sprintf("the rows after the first %d would pass the result's limit of %d bytes; select fewer columns or rows", len(out.Rows), maxResultBytes))
			break
		}
		out.Rows = append(out.Rows, vals)
		cut += rowCut
	}
	if err := rows.Err(); err != nil {
		return QueryResult{}, err
	}
	if cut > 0 {
		why = append(why, fmt.Sprintf("%d values were longer than %d bytes and are shortened to {\"textPrefix\" or \"base64Prefix\", \"bytes\": their full size}; read them in parts with substr()", cut, limit))
	}
	out.RowCount = len(out.Rows)
	out.Truncated = len(why) > 0
	out.TruncatedReason = strings.Join(why, "; ")
	return out, nil
}

// cell is one value of a row as the answer holds it. It is a sql.Scanner
// so that it sees the driver's own bytes and keeps only what the answer
// can show: database/sql would otherwise copy every long value once more.
type cell struct {
	limit int // bytes of text (or of the blob before base64) kept
	v     any
	cut   bool
}

// Scan implements sql.Scanner.
func (c *cell) Scan(src any) error {
	switch x := src.(type) {
	case string:
		c.v = c.text(x, len(x))
	case []byte:
		if utf8.Valid(x) {
			// Only the kept part is copied into a string.
			c.v = c.text(string(x[:textCut(x, c.limit)]), len(x))
			return nil
		}
		if n := c.limit * 3 / 4; len(x) > n {
			c.cut = true
			c.v = map[string]any{"base64Prefix": base64.StdEncoding.EncodeToString(x[:n]), "bytes": len(x)}
			return nil
		}
		c.v = map[string]string{"base64": base64.StdEncoding.EncodeToString(x)}
	default:
		c.v = jsonValue(x)
	}
	return nil
}

// text keeps at most c.limit bytes of s, which is a prefix (or all) of a
// text of size bytes.
func (c *cell) text(s string, size int) any {
	if k := textCut(s, c.limit); k < size {
		c.cut = true
		return map[string]any{"textPrefix": s[:k], "bytes": size}
	}
	return s
}

// textCut is the length of the longest prefix of s within limit bytes that
// ends on a character boundary.
func textCut[T string | []byte](s T, limit int) int {
	if len(s) <= limit {
		return len(s)
	}
	k := limit
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return k
}

// jsonValue makes a column value JSON-friendly: times as RFC 3339, and
// non-finite floats (which JSON cannot hold) as strings.
func jsonValue(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x)
		}
	}
	return v
}
