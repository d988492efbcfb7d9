package sqltool

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHugeValuesRefused performs the attack of a model on a read-only
// datasource asking SQLite for values far larger than any answer: SQLite
// must refuse to build them (SQLITE_LIMIT_LENGTH), so the gateway never
// holds them, and the error must say what the limit is and how to read a
// part instead.
func TestHugeValuesRefused(t *testing.T) {
	e := setup(t, &fakeApprover{allow: true})
	for _, q := range []string{
		`SELECT randomblob(1000000000)`,
		`SELECT zeroblob(1000000000)`,
		`SELECT length(randomblob(1000000000))`,
		`SELECT printf('%.*c', 1000000000, 'x')`,
		`SELECT replace(printf('%.1000c', 'x'), 'x', printf('%.1000000c', 'y'))`,
		`WITH RECURSIVE c(i, s) AS (SELECT 1, 'x' UNION ALL SELECT i+1, s || s FROM c WHERE i < 40) SELECT length(s) FROM c`,
		`SELECT length(group_concat(printf('%.100000c', name))) FROM users`,
	} {
		t.Run(q, func(t *testing.T) {
			args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: q})
			got, err := call(t, e.query, string(args))
			if err == nil || !strings.Contains(err.Error(), "larger than 1 MiB, the limit of one value") || !strings.Contains(err.Error(), "substr()") {
				t.Fatalf("got %.200s, %v; want the value limit named", got, err)
			}
		})
	}
	// Values just under the limit are fine.
	got, err := call(t, e.query, `{"datasource":"ro","sql":"SELECT length(zeroblob(1000000)), length(printf('%.1000000c', 'x'))"}`)
	if err != nil || got != `{"columns":["length(zeroblob(1000000))","length(printf('%.1000000c', 'x'))"],"rows":[[1000000,1000000]],"rowCount":1,"truncated":false}` {
		t.Errorf("values at the limit: %s, %v", got, err)
	}
}

// TestManyValuesRefused performs the attack the value limit alone does
// not stop: many values each under 1 MiB that SQLite would hold at once
// while it computes one row, which it cannot be interrupted in. The limit
// of a value must shrink with the statement's columns so that the row
// stays within maxRowBytes, and the error must name the limit.
func TestManyValuesRefused(t *testing.T) {
	e := setup(t, nil)
	blobs := func(n int, v string) string { return strings.TrimSuffix(strings.Repeat(v+", ", n), ", ") }
	names := func(n int, p string) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("%s%d", p, i)
		}
		return strings.Join(s, ", ")
	}
	// 64 columns, each a randomblob of its own, from a CTE joined with
	// itself (SQLite flattens it to at most 64 tables).
	selfJoins := `WITH x(a) AS (SELECT randomblob(1000000)), ` +
		`y(` + names(8, "b") + `) AS (SELECT * FROM ` + names(8, "x AS x") + `) ` +
		`SELECT * FROM ` + names(8, "y AS y")
	tests := []struct{ name, sql, limit string }{
		// 300 MB if SQLite were let finish the row.
		{"columns", "SELECT " + blobs(300, "randomblob(1000000)"), "180 KiB"},
		{"self joins", selfJoins, "516 KiB"},
		{"function arguments", "SELECT length(max(" + blobs(64, "randomblob(1000000)") + "))", "too many arguments on function max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: tt.sql})
			got, err := call(t, e.query, string(args))
			if err == nil || !strings.Contains(err.Error(), tt.limit) {
				t.Fatalf("got %.200s, %v; want %q", got, err, tt.limit)
			}
		})
	}
	// Within the limits the same shapes work.
	got, err := call(t, e.query, `{"datasource":"ro","sql":"SELECT length(max(`+blobs(63, "zeroblob(1000)")+`))"}`)
	if err != nil || !strings.Contains(got, `"rows":[[1000]]`) {
		t.Errorf("63 arguments: %.200s, %v", got, err)
	}
	args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: "SELECT " + blobs(300, "zeroblob(150000)")})
	if got, err := call(t, e.query, string(args)); err != nil || !strings.Contains(got, `"bytes":150000`) {
		t.Errorf("300 columns of 150 kB: %.200s, %v", got, err)
	}
}

// TestEndlessRowsStopped performs row explosions: a recursive CTE without
// end is read up to the row cap and then stopped, and one that never
// yields its first row is stopped by the time limit; both say why.
func TestEndlessRowsStopped(t *testing.T) {
	e := setup(t, nil)
	endless := `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) `
	tests := []struct {
		name, sql string
		rows      int
		reason    string
	}{
		{"rows", endless + `SELECT x FROM c`, DefaultMaxRows, "more rows than maxRows (200)"},
		{"bytes", endless + `SELECT x, printf('%.900c', 'x') FROM c`, 13, "limit of 12000 bytes"},
		{"long values", endless + `SELECT x, randomblob(50000), printf('%.40000c', 'é') FROM c`, 1, "values were longer than 4000 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: tt.sql})
			got, err := call(t, e.query, string(args))
			if err != nil {
				t.Fatal(err)
			}
			var r QueryResult
			if err := json.Unmarshal([]byte(got), &r); err != nil {
				t.Fatal(err)
			}
			if r.RowCount != tt.rows || !r.Truncated || !strings.Contains(r.TruncatedReason, tt.reason) || len(got) > 16_000 {
				t.Errorf("%d rows in %d bytes, truncated %v: %q", r.RowCount, len(got), r.Truncated, r.TruncatedReason)
			}
		})
	}
	e = setup(t, nil, func(c *Config) { c.QueryTimeout = 300 * time.Millisecond })
	args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: endless + `SELECT x FROM c ORDER BY x DESC`})
	if got, err := call(t, e.query, string(args)); err == nil || !strings.Contains(err.Error(), "stopped after 300ms, the time limit") {
		t.Errorf("endless sort: %.200s, %v", got, err)
	}
}

// TestLongValuesShortened checks the shapes a shortened value takes.
func TestLongValuesShortened(t *testing.T) {
	e := setup(t, nil)
	got, err := call(t, e.query, `{"datasource":"ro","sql":"SELECT printf('%.5000c', 'é'), randomblob(5000), 'short', x'ff'"}`)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Rows            [][]json.RawMessage
		Truncated       bool
		TruncatedReason string
	}
	if err := json.Unmarshal([]byte(got), &r); err != nil || len(r.Rows) != 1 {
		t.Fatalf("%s: %v", got, err)
	}
	var text struct {
		TextPrefix string
		Bytes      int
	}
	var blob struct {
		Base64Prefix string
		Bytes        int
	}
	json.Unmarshal(r.Rows[0][0], &text)
	json.Unmarshal(r.Rows[0][1], &blob)
	if text.Bytes != 10000 || len(text.TextPrefix) != 3000 || strings.Trim(text.TextPrefix, "é") != "" {
		t.Errorf("text: %d bytes, prefix of %d", text.Bytes, len(text.TextPrefix))
	}
	if blob.Bytes != 5000 || len(blob.Base64Prefix) != 3000 {
		t.Errorf("blob: %d bytes, prefix of %d", blob.Bytes, len(blob.Base64Prefix))
	}
	if string(r.Rows[0][2]) != `"short"` || string(r.Rows[0][3]) != `{"base64":"/w=="}` || !r.Truncated ||
		!strings.Contains(r.TruncatedReason, fmt.Sprintf("2 values were longer than %d bytes", 3000)) {
		t.Errorf("got %s", got)
	}
}
