package config

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// goldenSeeds returns the inputs and ops of testdata/edit.
func goldenSeeds(tb testing.TB) []goldenCase {
	files, _ := filepath.Glob("testdata/edit/*.txt")
	var out []goldenCase
	for _, f := range files {
		out = append(out, readGolden(tb, f))
	}
	return out
}

// FuzzParse checks the JSON5 front end never panics, agrees with
// encoding/json on what it parsed, and round-trips: the standardized JSON
// parses again to an equal tree.
func FuzzParse(f *testing.F) {
	for _, tc := range json5Cases {
		f.Add([]byte(tc.src))
	}
	for _, gc := range goldenSeeds(f) {
		f.Add([]byte(gc.input))
	}
	f.Add(DefaultFile("t"))
	f.Add([]byte(`{gateway: {$include: "x.json5", port: 1}, logging: {level: "${LEVEL}"}}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		// The whole pipeline must not panic. Includes resolve against a
		// directory that does not exist, so nothing outside is read.
		_, _ = Parse("/nonexistent-fuzz-dir/openclaw.json", src, LoadOptions{Getenv: envFunc(nil)})

		p, issue := parseJSON5(&srcFile{name: "fuzz", src: src})
		if issue != nil {
			if issue.Line < 1 || issue.Column < 1 {
				t.Fatalf("syntax error without a position: %+v", issue)
			}
			return
		}
		var l issueList
		tree := p.nodes(&l).toAny()

		std := p.ast.Clone()
		std.Standardize()
		out := std.Pack()
		if !json.Valid(out) {
			t.Fatalf("standardized output is not JSON: %q", out)
		}
		var viaStd any
		if err := json.Unmarshal(out, &viaStd); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tree, viaStd) {
			t.Fatalf("tree %#v\nencoding/json reads %#v", tree, viaStd)
		}
		again, errText := parseAny(string(out))
		if errText != "" {
			t.Fatalf("standardized output does not parse again: %s\n%q", errText, out)
		}
		if !reflect.DeepEqual(tree, again) {
			t.Fatalf("round trip changed the tree:\n%#v\n%#v", tree, again)
		}
	})
}

// FuzzSet checks that Set and Unset never panic, and that a successful Set
// leaves a parsable file holding the value, with every comment kept.
func FuzzSet(f *testing.F) {
	for _, gc := range goldenSeeds(f) {
		verb, rest, _ := strings.Cut(gc.op, " ")
		path, value, _ := strings.Cut(rest, " ")
		if verb == "set" {
			f.Add([]byte(gc.input), path, value)
		} else if verb == "unset" {
			f.Add([]byte(gc.input), rest, "null")
		}
	}
	f.Add([]byte("{a: 1}"), `x["y.z"][0]`, `"v"`)
	f.Fuzz(func(t *testing.T, src []byte, path, raw string) {
		var value any
		if json.Unmarshal([]byte(raw), &value) != nil {
			return
		}
		segs, err := parsePath(path)
		if err != nil {
			return
		}
		if _, issue := parseJSON5(&srcFile{name: "fuzz", src: src}); issue != nil && !strings.Contains(issue.Message, emptyDocument) {
			return
		}
		if value == nil {
			out, err := Unset(src, path)
			if err == nil {
				if _, errText := parseAny(string(out)); errText != "" {
					t.Fatalf("unset made an unparsable file: %s\n%s", errText, out)
				}
			} else if !errors.Is(err, ErrNotFound) && !strings.Contains(err.Error(), "parse config") {
				t.Fatalf("unset: %v", err)
			}
			return
		}
		out, err := Set(src, path, value)
		if err != nil {
			return // e.g. setting below a scalar
		}
		tree, errText := parseAny(string(out))
		if errText != "" {
			t.Fatalf("set made an unparsable file: %s\n%s", errText, out)
		}
		var want any
		_ = json.Unmarshal([]byte(raw), &want)
		if got, ok := lookup(tree, segs); !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("after set %s=%s the value reads %#v\n%s", path, raw, got, out)
		}
		if len(strings.TrimSpace(string(src))) > 0 {
			for _, c := range commentsOf(t, string(src)) {
				if !strings.Contains(string(out), c) {
					t.Fatalf("comment %q lost:\n%s", c, out)
				}
			}
		}
	})
}
