package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden files in testdata/")

// goldenCase is one testdata/edit file: sections "-- op --", "-- input --"
// and "-- output --" (or "-- error --"), after optional # comment lines.
type goldenCase struct {
	op, input, output, errText string
	hasOutput, hasError        bool
}

var sectionRE = regexp.MustCompile(`(?m)^-- (\w+) --\n`)

func readGolden(t testing.TB, path string) goldenCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var gc goldenCase
	locs := sectionRE.FindAllSubmatchIndex(data, -1)
	for i, loc := range locs {
		end := len(data)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := string(data[loc[1]:end])
		switch name := string(data[loc[2]:loc[3]]); name {
		case "op":
			gc.op = strings.TrimSpace(body)
		case "input":
			gc.input = body
		case "output":
			gc.output, gc.hasOutput = body, true
		case "error":
			gc.errText, gc.hasError = strings.TrimSpace(body), true
		default:
			t.Fatalf("%s: unknown section %q", path, name)
		}
	}
	return gc
}

// runOp applies "set PATH JSON", "unset PATH" or "patch JSON".
func runOp(src []byte, op string) ([]byte, error) {
	verb, rest, _ := strings.Cut(op, " ")
	switch verb {
	case "set":
		path, raw, _ := strings.Cut(rest, " ")
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			return nil, err
		}
		return Set(src, path, v)
	case "unset":
		return Unset(src, rest)
	case "patch":
		var p map[string]any
		if err := json.Unmarshal([]byte(rest), &p); err != nil {
			return nil, err
		}
		return MergePatch(src, p)
	}
	return nil, errors.New("unknown op " + verb)
}

var commentRE = regexp.MustCompile(`//[^\r\n]*|(?s)/\*.*?\*/`)

// commentsOf lists the comments of a JSON5 text (not "//" inside strings).
func commentsOf(t testing.TB, src string) []string {
	t.Helper()
	if strings.TrimSpace(src) == "" {
		return nil
	}
	p, issue := parseJSON5(&srcFile{name: "t", src: []byte(src)})
	if issue != nil { // only comments: no strings to confuse the pattern
		return commentRE.FindAllString(src, -1)
	}
	var out []string
	add := func(e hujson.Extra) { out = append(out, commentRE.FindAllString(string(e), -1)...) }
	for v := range p.ast.All() {
		add(v.BeforeExtra)
		add(v.AfterExtra)
		switch c := v.Value.(type) {
		case *hujson.Object:
			add(c.AfterExtra)
		case *hujson.Array:
			add(c.AfterExtra)
		}
	}
	return out
}

func TestEditGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/edit/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			gc := readGolden(t, path)
			got, err := runOp([]byte(gc.input), gc.op)
			if gc.hasError {
				if err == nil || !strings.Contains(err.Error(), gc.errText) {
					t.Fatalf("error = %v, want it to contain %q", err, gc.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				writeGolden(t, path, gc, got)
				return
			}
			if !gc.hasOutput {
				t.Fatalf("no -- output -- section; run go test -run TestEditGolden -update")
			}
			if string(got) != gc.output {
				t.Errorf("output:\n%s\nwant:\n%s", got, gc.output)
			}
			for _, c := range commentsOf(t, gc.input) {
				if !bytes.Contains(got, []byte(c)) {
					t.Errorf("comment %q was lost", c)
				}
			}
			checkEditResult(t, gc, got)
		})
	}
}

// checkEditResult checks what the edit means, not only how it looks: the
// value read back is the value written, and for unset the key is gone.
func checkEditResult(t *testing.T, gc goldenCase, got []byte) {
	t.Helper()
	tree, errText := parseAny(string(got))
	if errText != "" {
		t.Fatalf("output does not parse: %s", errText)
	}
	verb, rest, _ := strings.Cut(gc.op, " ")
	switch verb {
	case "set":
		path, raw, _ := strings.Cut(rest, " ")
		var want any
		_ = json.Unmarshal([]byte(raw), &want)
		segs, _ := parsePath(path)
		if v, ok := lookup(tree, segs); !ok || !reflect.DeepEqual(v, want) {
			t.Errorf("value at %s = %#v, want %#v", path, v, want)
		}
	case "unset":
		segs, _ := parsePath(rest)
		before, _ := parseAny(gc.input)
		if _, ok := lookup(before, segs); ok && !segs[len(segs)-1].isIndex {
			if _, still := lookup(tree, segs); still {
				t.Errorf("%s is still there", rest)
			}
		}
	}
}

func lookup(v any, segs []segment) (any, bool) {
	for _, s := range segs {
		switch c := v.(type) {
		case map[string]any:
			x, ok := c[s.key]
			if !ok || s.isIndex {
				return nil, false
			}
			v = x
		case []any:
			if !s.isIndex || s.index >= len(c) {
				return nil, false
			}
			v = c[s.index]
		default:
			return nil, false
		}
	}
	return v, true
}

func writeGolden(t *testing.T, path string, gc goldenCase, out []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(data, []byte("-- output --\n")); i >= 0 {
		data = data[:i]
	}
	data = append(data, "-- output --\n"...)
	data = append(data, out...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // formatPath of the result, or "error"
	}{
		{"gateway.auth.token", "gateway.auth.token"},
		{`models.providers["my.host"].apiKey`, `models.providers["my.host"].apiKey`},
		{`a['b c'][2].d`, `a["b c"][2].d`},
		{`["x"]`, "x"},
		{"$include", "$include"},
		{"", "error"},
		{"a..b", "error"},
		{"a.", "error"},
		{".a", "error"},
		{"a[-1]", "error"},
		{"a[x]", "error"},
		{`a["b"`, "error"},
	} {
		segs, err := parsePath(tc.in)
		got := "error"
		if err == nil {
			got = formatPath(segs)
		}
		if got != tc.want {
			t.Errorf("parsePath(%q) = %q (%v), want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseObjectForPatches(t *testing.T) {
	got, err := ParseObject([]byte(`{gateway: {port: 0x10, auth: null}, // patch
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"gateway": map[string]any{"port": 16.0, "auth": nil}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v", got)
	}
	if _, err := ParseObject([]byte(`[1]`)); err == nil {
		t.Error("a non-object patch must fail")
	}
	if _, err := ParseObject([]byte("{\n a: }")); err == nil || !strings.Contains(err.Error(), ":2:5:") {
		t.Errorf("error = %v, want a position", err)
	}
}
