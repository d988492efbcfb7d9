package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFitResult(t *testing.T) {
	many := map[string]any{}
	for i := range 3000 {
		many[fmt.Sprintf("k%04d", i)] = i
	}
	manyKeys, _ := json.Marshal(many)
	rows := make([]map[string]any, 500)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "name": fmt.Sprintf("row %d", i)}
	}
	table, _ := json.Marshal(map[string]any{"rows": rows, "nextCursor": "c-42"})
	execShape, _ := json.Marshal(map[string]any{"status": "completed", "exitCode": 0,
		"stdout": strings.Repeat("out \"quoted\" <tag>\n", 600), "stderr": strings.Repeat("err\t\x01", 2000)})
	tests := []struct {
		name  string
		text  string
		limit int
		json  bool
		keep  []string // must survive the cut
	}{
		{"short text untouched", "hello", 100, false, []string{"hello"}},
		{"plain text", strings.Repeat("abcdefghij", 500), 1000, false, []string{"characters shown]"}},
		{"CJK counts characters, not bytes", strings.Repeat("汉字", 600), 1000, false, []string{"汉字汉字", "of 1200 characters shown]"}},
		{"CJK under the cap in characters is not cut", strings.Repeat("汉", 900), 1000, false, []string{strings.Repeat("汉", 900)}},
		{"exec-shaped JSON keeps its fields", string(execShape), 2000, true, []string{`"status":"completed"`, `"exitCode":0`, `truncated:`}},
		{"a long array loses its tail, not its cursor", string(table), 2000, true, []string{`"nextCursor":"c-42"`, `more items]`}},
		{"thousands of small keys become a wrapper", string(manyKeys), 500, true, []string{`"truncated":true`, `"head":"{`}},
		{"JSON-looking text that is not JSON is cut as text", `{"a": ` + strings.Repeat("x", 3000), 1000, false, []string{"characters shown]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FitResult(tt.text, tt.limit)
			if n := utf8.RuneCountInString(got); n > tt.limit {
				t.Fatalf("%d characters, over the cap of %d", n, tt.limit)
			}
			if tt.json && !json.Valid([]byte(got)) {
				t.Fatalf("not JSON any more: %.300s", got)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("cut inside a character: %q", got)
			}
			for _, k := range tt.keep {
				if !strings.Contains(got, k) {
					t.Fatalf("%q lost in %.400s", k, got)
				}
			}
		})
	}
}

func FuzzFitResult(f *testing.F) {
	f.Add(`{"stdout":"`+strings.Repeat("x", 500)+`","exitCode":1}`, 200)
	f.Add(`[1,2,3,"`+strings.Repeat("é", 300)+`"]`, 150)
	f.Add(strings.Repeat("line\n", 100), 120)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if limit < 200 || limit > 5000 {
			return // a cap must leave room for the note
		}
		got := FitResult(text, limit)
		if utf8.ValidString(text) && utf8.RuneCountInString(got) > limit {
			t.Fatalf("%d characters over a cap of %d", utf8.RuneCountInString(got), limit)
		}
		if json.Valid([]byte(text)) && !json.Valid([]byte(got)) {
			t.Fatalf("valid JSON became invalid: %q", got)
		}
	})
}
