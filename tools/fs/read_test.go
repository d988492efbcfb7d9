package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	files := map[string]string{
		"f.txt":     "one\ntwo\nthree\n",
		"nonl.txt":  "a\nb",
		"g.txt":     "xxxxxxxxxx\nend\n",
		"u.txt":     "héllo wörld\n",
		"e.txt":     "",
		"b.bin":     "PK\x00\x01",
		"d/x.txt":   "in a dir\n",
		"crlf.txt":  "a\r\nb\r\n",
		"blank.txt": "\n\n\n",
	}
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		wantErr bool
	}{
		{"whole", map[string]any{"path": "f.txt"}, "[f.txt: lines 1-3 of 3]\none\ntwo\nthree", false},
		{"no final newline", map[string]any{"path": "nonl.txt"}, "[nonl.txt: lines 1-2 of 2]\na\nb", false},
		{"one line", map[string]any{"path": "f.txt", "startLine": 2, "maxLines": 1}, "[f.txt: line 2 of 3]\ntwo\n[truncated: nextStartLine=3]", false},
		{"last lines", map[string]any{"path": "f.txt", "startLine": 2}, "[f.txt: lines 2-3 of 3]\ntwo\nthree", false},
		{"lines cut", map[string]any{"path": "f.txt", "maxLines": 2}, "[f.txt: lines 1-2 of 3]\none\ntwo\n[truncated: nextStartLine=3]", false},
		{"past end", map[string]any{"path": "f.txt", "startLine": 4}, "read f.txt: startLine 4 is past the end of the file (3 lines)", true},
		{"past end no newline", map[string]any{"path": "nonl.txt", "startLine": 3}, "read nonl.txt: startLine 3 is past the end of the file (2 lines)", true},
		{"inside giant line", map[string]any{"path": "g.txt", "maxChars": 4}, "[g.txt: line 1 of 2]\nxxxx\n[truncated at maxChars inside line 1: nextStartLine=1 nextStartColumn=5]", false},
		{"column", map[string]any{"path": "g.txt", "startColumn": 9, "maxChars": 4}, "[g.txt: lines 1-2 of 2, from column 9]\nxx\nen\n[truncated at maxChars inside line 2: nextStartLine=2 nextStartColumn=3]", false},
		{"cut at line end", map[string]any{"path": "g.txt", "maxChars": 10}, "[g.txt: line 1 of 2]\nxxxxxxxxxx\n[truncated: nextStartLine=2]", false},
		{"cut at file end", map[string]any{"path": "f.txt", "startLine": 3, "maxChars": 5}, "[f.txt: line 3 of 3]\nthree", false},
		{"column past line", map[string]any{"path": "f.txt", "startColumn": 5}, "read f.txt: startColumn 5 is past the end of line 1 (3 characters)", true},
		{"runes", map[string]any{"path": "u.txt", "maxChars": 2}, "[u.txt: line 1 of 1]\nhé\n[truncated at maxChars inside line 1: nextStartLine=1 nextStartColumn=3]", false},
		{"runes column", map[string]any{"path": "u.txt", "startColumn": 8}, "[u.txt: line 1 of 1, from column 8]\nörld", false},
		{"empty", map[string]any{"path": "e.txt"}, "[e.txt: empty file]", false},
		{"binary", map[string]any{"path": "b.bin"}, "[b.bin: binary file, 4 bytes; read shows text files only]", false},
		{"nested", map[string]any{"path": "d/x.txt"}, "[d/x.txt: line 1 of 1]\nin a dir", false},
		{"crlf kept", map[string]any{"path": "crlf.txt"}, "[crlf.txt: lines 1-2 of 2]\na\r\nb\r", false},
		{"blank lines", map[string]any{"path": "blank.txt", "startLine": 2, "maxLines": 1}, "[blank.txt: line 2 of 3]\n\n[truncated: nextStartLine=3]", false},
		{"directory", map[string]any{"path": "d"}, "read d: it is a directory", true},
		{"missing", map[string]any{"path": "nope.txt"}, "read nope.txt: ", true},
		{"negative", map[string]any{"path": "f.txt", "maxLines": -1}, "must be positive", true},
		{"no path", map[string]any{}, "missing required path", true},
	}
	dir, m := newTools(t)
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, m["read"], tt.args)
			ok := r.Text == tt.want
			if tt.wantErr {
				ok = strings.Contains(r.Text, tt.want)
			}
			if r.IsError != tt.wantErr || !ok {
				t.Fatalf("got (error %v)\n%s\nwant\n%s", r.IsError, r.Text, tt.want)
			}
		})
	}
}

// TestReadPages follows nextStartLine and nextStartColumn through a file
// with a giant single line and gets every character back exactly once.
func TestReadPages(t *testing.T) {
	dir, m := newTools(t)
	var b strings.Builder
	b.WriteString("first\n")
	for i := range 130001 {
		b.WriteByte(byte('a' + i%26))
	}
	b.WriteString("\nmiddle\n")
	for i := range 2500 {
		b.WriteString(strings.Repeat("z", i%7) + "\n")
	}
	want := b.String()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	args := map[string]any{"path": "big.txt"}
	for page := 0; ; page++ {
		if page > 20 {
			t.Fatal("too many pages")
		}
		r := run(t, m["read"], args)
		if r.IsError {
			t.Fatal(r.Text)
		}
		header, body, _ := strings.Cut(r.Text, "\n")
		if !strings.Contains(header, "of 2503") {
			t.Fatalf("header %q", header)
		}
		cut := strings.LastIndex(body, "\n[truncated")
		if cut < 0 {
			got.WriteString(body + "\n")
			break
		}
		footer := body[cut+1:]
		body = body[:cut]
		got.WriteString(body)
		var line, col int
		if i := strings.Index(footer, "nextStartColumn="); i >= 0 {
			parseInts(t, footer, &line, &col)
			args = map[string]any{"path": "big.txt", "startLine": line, "startColumn": col}
		} else {
			parseInts(t, footer, &line)
			got.WriteString("\n")
			args = map[string]any{"path": "big.txt", "startLine": line}
		}
	}
	if got.String() != want {
		t.Fatalf("pages differ from the file: got %d bytes, want %d", got.Len(), len(want))
	}
}

// parseInts reads the numbers after each '=' in s.
func parseInts(t *testing.T, s string, into ...*int) {
	t.Helper()
	parts := strings.Split(s, "=")[1:]
	if len(parts) != len(into) {
		t.Fatalf("footer %q", s)
	}
	for i, p := range parts {
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		*into[i] = n
	}
}
