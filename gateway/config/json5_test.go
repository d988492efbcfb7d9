package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// parseAny parses src with the JSON5 front end and returns encoding/json
// style values, or the syntax issue formatted as "line:col: message".
func parseAny(src string) (any, string) {
	p, issue := parseJSON5(&srcFile{name: "t.json5", src: []byte(src)})
	if issue != nil {
		return nil, fmt.Sprintf("%d:%d: %s", issue.Line, issue.Column, issue.Message)
	}
	var l issueList
	return p.nodes(&l).toAny(), ""
}

// json5Cases is shared by TestJSON5Syntax and the fuzz seeds.
var json5Cases = []struct {
	name string
	src  string
	want string // the value as JSON; empty when an error is expected
	err  string // "line:col: message prefix"
}{
	{name: "plain JSON", src: `{"a": [1, "x", true, null]}`, want: `{"a":[1,"x",true,null]}`},
	{name: "line and block comments", src: "// top\n{ /* in */ a: 1, // after\n b: 2 /* end */ }\n", want: `{"a":1,"b":2}`},
	{name: "unquoted keys", src: `{a: 1, $b_c: 2, _x9: 3, ünï: 4, \u0061b: 5}`, want: `{"a":1,"$b_c":2,"_x9":3,"ünï":4,"ab":5}`},
	{name: "reserved words as keys", src: `{true: 1, null: 2, Infinity: 3}`, want: `{"true":1,"null":2,"Infinity":3}`},
	{name: "single quotes", src: `{'a': 'it\'s "quoted"'}`, want: `{"a":"it's \"quoted\""}`},
	{name: "trailing commas", src: `{a: [1, 2,], b: {c: 3,},}`, want: `{"a":[1,2],"b":{"c":3}}`},
	{name: "hex numbers", src: `{a: 0x1F, b: -0xff, c: +0X10, d: 0xFFFFFFFFFF}`, want: `{"a":31,"b":-255,"c":16,"d":1099511627775}`},
	{name: "leading and trailing decimal point", src: `{a: .5, b: 5., c: -.25, d: +.5e1}`, want: `{"a":0.5,"b":5,"c":-0.25,"d":5}`},
	{name: "explicit plus", src: `{a: +1, b: +1.5e3, c: -0}`, want: `{"a":1,"b":1500,"c":0}`},
	{name: "exponents", src: `[1e3, 1E-2, 2e+2]`, want: `[1000,0.01,200]`},
	{name: "line continuation", src: "{a: 'one \\\ntwo', b: \"x\\\r\ny\"}", want: `{"a":"one two","b":"xy"}`},
	{name: "escapes", src: `['\x41\v\0\/\q', "\u00e9\ud83d\ude00", '\b\f\n\r\t']`, want: `["A\u000b\u0000/q","é😀","\b\f\n\r\t"]`},
	{name: "lone surrogate", src: `['\ud800x']`, want: `["` + "\ufffd" + `x"]`},
	{name: "raw tab and separators in strings", src: "['a\tb\u2028c']", want: `["a\tb` + "\u2028" + `c"]`},
	{name: "JSON5 whitespace", src: "\ufeff{\u00a0a\v:\f1\u2028,\u2003b: 2}", want: `{"a":1,"b":2}`},
	{name: "line comment at end of input", src: `{a: 1} // end`, want: `{"a":1}`},
	{name: "line comment ended by CR", src: "{a: 1 // c\r}", want: `{"a":1}`},
	{name: "line comment ended by U+2028", src: "{a: 1 // c\u2028}", want: `{"a":1}`},
	{name: "CRLF lines", src: "{\r\n  a: 1,\r\n  b: 'x',\r\n}\r\n", want: `{"a":1,"b":"x"}`},
	{name: "top-level scalar", src: `'hi'`, want: `"hi"`},
	{name: "duplicate key last wins", src: `{a: 1, b: 2, a: 3}`, want: `{"a":3,"b":2}`},
	{name: "empty containers", src: `{a: {}, b: [], c: ''}`, want: `{"a":{},"b":[],"c":""}`},

	{name: "unterminated object", src: `{a: 1`, err: "1:1: unterminated object"},
	{name: "missing comma", src: "{\n  a: 1\n  b: 2\n}", err: "3:3: expected ',' or '}' after the value"},
	{name: "newline in string", src: "{a: 'x\n'}", err: "1:7: line break inside a string"},
	{name: "unterminated string", src: `{a: 'x}`, err: "1:5: unterminated string"},
	{name: "empty hex", src: `{a: 0x}`, err: "1:5: invalid hex number"},
	{name: "leading zero", src: `{a: 01}`, err: "1:5: invalid number: leading zeros"},
	{name: "infinity", src: "{\n a: -Infinity}", err: "2:5: Infinity is not supported"},
	{name: "NaN", src: `{a: NaN}`, err: "1:5: NaN is not supported"},
	{name: "bare word value", src: `{a: foo}`, err: `1:5: unexpected word "foo"`},
	{name: "space in key", src: `{a b: 1}`, err: "1:4: expected ':' after the key"},
	{name: "lone comma", src: `{,}`, err: "1:2: unexpected ','"},
	{name: "double comma in array", src: `[1,,2]`, err: "1:4: unexpected ','"},
	{name: "garbage after value", src: `{a: 1} x`, err: "1:8: unexpected 'x' after the end"},
	{name: "empty document", src: " // nothing\n", err: "2:1: the document is empty"},
	{name: "unterminated block comment", src: `{/* x`, err: "1:2: unterminated /* comment"},
	{name: "octal escape", src: `{a: '\1'}`, err: "1:6: octal escapes"},
	{name: "short hex escape", src: `{a: "\x4"}`, err: "1:6: invalid \\x escape"},
	{name: "invalid UTF-8", src: "{a: \"\xff\"}", err: "1:6: invalid UTF-8"},
	{name: "empty exponent", src: `{a: 1e}`, err: "1:5: invalid number: no digits in the exponent"},
	{name: "columns count characters", src: `{ "éé": x }`, err: `1:9: unexpected word "x"`},
	{name: "stray slash", src: `{a: 1}/`, err: "1:7: unexpected '/'"},
	{name: "number glued to word", src: `{a: 12abc}`, err: "1:5: invalid number"},
	{name: "out of range", src: `{a: 1e400}`, err: "1:5: number 1e400 is out of range"},
	{name: "too deep", src: strings.Repeat("[", maxNesting+1), err: "1:257: objects and arrays nest more than"},
}

func TestJSON5Syntax(t *testing.T) {
	for _, tc := range json5Cases {
		t.Run(tc.name, func(t *testing.T) {
			got, errText := parseAny(tc.src)
			if tc.err != "" {
				if !strings.HasPrefix(errText, tc.err) {
					t.Fatalf("error = %q, want prefix %q", errText, tc.err)
				}
				return
			}
			if errText != "" {
				t.Fatalf("unexpected error %s", errText)
			}
			var want any
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatalf("bad want: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestTranslationOffsets checks that every value maps back to where the user
// wrote it, even after tokens changed length.
func TestTranslationOffsets(t *testing.T) {
	src := "{\n  k: 'ab', // c\n  \"q\": 0x10,\n  n: .5, z: [+1, true]\n}"
	p, issue := parseJSON5(&srcFile{name: "t", src: []byte(src)})
	if issue != nil {
		t.Fatal(issue)
	}
	var l issueList
	root := p.nodes(&l)
	for _, tc := range []struct {
		key, text string
	}{{"k", "'ab'"}, {"q", "0x10"}, {"n", ".5"}, {"z", "[+1, true]"}} {
		n := root.get(tc.key)
		if !strings.HasPrefix(src[n.off:], tc.text) {
			t.Errorf("%s: value at %d is %q, want %q", tc.key, n.off, src[n.off:], tc.text)
		}
		if want := strings.Index(src, tc.key); tc.key != "q" && n.keyOff != want {
			t.Errorf("%s: key at %d, want %d", tc.key, n.keyOff, want)
		}
	}
	if got := root.get("z").elems[1].off; src[got:got+4] != "true" {
		t.Errorf("array element offset %d points at %q", got, src[got:])
	}
}
