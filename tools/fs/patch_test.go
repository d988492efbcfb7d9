package fs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var parseTests = []struct {
	name    string
	patch   string
	want    string // summary of the parsed operations
	wantErr string
}{
	{"add", "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch", "A a.txt 2", ""},
	{"update", "*** Begin Patch\n*** Update File: a.txt\n@@ func f\n ctx\n-old\n+new\n*** End Patch", "U a.txt [func f|2>2]", ""},
	{"update no @@", "*** Begin Patch\n*** Update File: a.txt\n-old\n+new\n*** End Patch", "U a.txt [|1>1]", ""},
	{"two hunks and eof", "*** Begin Patch\n*** Update File: a.txt\n@@\n a\n-b\n@@\n-y\n+z\n*** End of File\n*** End Patch", "U a.txt [|2>1] [|1>1$]", ""},
	{"move only", "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch", "U a.txt>b.txt", ""},
	{"delete", "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch", "D a.txt", ""},
	{"several", "*** Begin Patch\n*** Add File: n.txt\n+x\n\n*** Delete File: d.txt\n*** Update File: u.txt\n*** Move to: v.txt\n@@\n-1\n+2\n*** End Patch\n", "A n.txt 1,D d.txt,U u.txt>v.txt [|1>1]", ""},
	{"crlf and padding", "\r\n  *** Begin Patch\r\n*** Delete File: a.txt\r\n*** End Patch  \r\n", "D a.txt", ""},
	{"blank context", "*** Begin Patch\n*** Update File: a.txt\n a\n\n-b\n*** End Patch", "U a.txt [|3>2]", ""},
	{"no begin", "*** Add File: a\n+x\n*** End Patch", "", "line 1: the patch must start with"},
	{"no end", "*** Begin Patch\n*** Add File: a\n+x", "", "line 3: the patch must end with"},
	{"only markers", "*** Begin Patch\n*** End Patch", "", "line 2: the patch changes no files"},
	{"empty", "", "", "line 1: the patch must start with"},
	{"begin only", "*** Begin Patch", "", "line 1: the patch must end with"},
	{"bad add line", "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch", "", "line 4: every line of an added file must start with '+'"},
	{"bad hunk line", "*** Begin Patch\n*** Update File: a\n@@\n x\n?y\n*** End Patch", "", `line 5: a hunk line must start with ' ', '-' or '+', got "?y"`},
	{"unknown header", "*** Begin Patch\n*** Rename File: a\n*** End Patch", "", `line 2: expected a file header`},
	{"no path", "*** Begin Patch\n*** Delete File: \n*** End Patch", "", "line 2: the file header needs a path"},
	{"update without changes", "*** Begin Patch\n*** Update File: a\n*** End Patch", "", "line 2: Update File a has no changes"},
	{"empty hunk", "*** Begin Patch\n*** Update File: a\n@@\n@@\n-x\n*** End Patch", "", "line 3: empty hunk"},
	{"empty move", "*** Begin Patch\n*** Update File: a\n*** Move to: \n-x\n*** End Patch", "", "line 3: \"*** Move to:\" needs a path"},
	{"eof outside hunk", "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch", "", "line 3:"},
	{"lines after eof", "*** Begin Patch\n*** Update File: a\n-x\n*** End of File\n+y\n*** End Patch", "", "line 5: hunk lines after"},
}

// describe renders parsed operations compactly for comparison.
func describe(ops []fileOp) string {
	var parts []string
	for _, op := range ops {
		var b strings.Builder
		switch op.kind {
		case opAdd:
			b.WriteString("A " + op.path + " " + strconv.Itoa(len(op.lines)))
		case opDelete:
			b.WriteString("D " + op.path)
		case opUpdate:
			b.WriteString("U " + op.path)
			if op.moveTo != "" {
				b.WriteString(">" + op.moveTo)
			}
			for _, c := range op.chunks {
				b.WriteString(" [" + c.header + "|" + strconv.Itoa(len(c.old)) + ">" + strconv.Itoa(len(c.new)))
				if c.atEOF {
					b.WriteString("$")
				}
				b.WriteString("]")
			}
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ",")
}

func TestParsePatch(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := parsePatch(tt.patch)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(ops); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func FuzzParsePatch(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.patch)
	}
	f.Fuzz(func(t *testing.T, patch string) {
		ops, err := parsePatch(patch)
		if err == nil && len(ops) == 0 {
			t.Fatal("no operations and no error")
		}
		for _, op := range ops {
			if op.kind == opUpdate {
				applyChunks("a\nb\nc\n", op.chunks) // must not panic either
			}
		}
	})
}

func TestApplyPatch(t *testing.T) {
	start := map[string]string{
		"keep.txt": "unchanged\n",
		"u.txt":    "package x\n\nfunc f() {\n\treturn 1\n}\n\nfunc g() {\n\treturn 1\n}\n",
		"old.txt":  "a\nb\n",
		"gone.txt": "bye\n",
		"nonl.txt": "x\ny",
	}
	tests := []struct {
		name    string
		patch   string
		want    string            // result text, or error substring
		after   map[string]string // files after; "" = absent
		wantErr bool
	}{
		{
			name: "all kinds",
			patch: `*** Begin Patch
*** Add File: new/dir/n.txt
+hello
+world
*** Update File: u.txt
@@ func g() {
-	return 1
+	return 2
*** Update File: old.txt
*** Move to: moved/new.txt
 a
-b
+B
*** Delete File: gone.txt
*** End Patch`,
			want: "applied patch:\nA new/dir/n.txt\nM u.txt\nR old.txt -> moved/new.txt\nD gone.txt",
			after: map[string]string{
				"new/dir/n.txt": "hello\nworld\n",
				"u.txt":         "package x\n\nfunc f() {\n\treturn 1\n}\n\nfunc g() {\n\treturn 2\n}\n",
				"old.txt":       "", "moved/new.txt": "a\nB\n", "gone.txt": "",
			},
		},
		{
			name:  "first match after cursor",
			patch: "*** Begin Patch\n*** Update File: u.txt\n@@\n-\treturn 1\n+\treturn 10\n@@\n-\treturn 1\n+\treturn 20\n*** End Patch",
			want:  "applied patch:\nM u.txt",
			after: map[string]string{"u.txt": "package x\n\nfunc f() {\n\treturn 10\n}\n\nfunc g() {\n\treturn 20\n}\n"},
		},
		{
			name:  "end of file anchor",
			patch: "*** Begin Patch\n*** Update File: u.txt\n@@\n-}\n+} // g\n*** End of File\n*** End Patch",
			want:  "applied patch:\nM u.txt",
			after: map[string]string{"u.txt": "package x\n\nfunc f() {\n\treturn 1\n}\n\nfunc g() {\n\treturn 1\n} // g\n"},
		},
		{
			name:  "whitespace-tolerant match, no final newline kept",
			patch: "*** Begin Patch\n*** Update File: nonl.txt\n  x  \n-y\n+z\n*** End Patch",
			want:  "applied patch:\nM nonl.txt",
			after: map[string]string{"nonl.txt": "x\nz"},
		},
		{
			name:  "pure addition after header",
			patch: "*** Begin Patch\n*** Update File: u.txt\n@@ package x\n+// Package x.\n*** End Patch",
			want:  "applied patch:\nM u.txt",
			after: map[string]string{"u.txt": "package x\n// Package x.\n\nfunc f() {\n\treturn 1\n}\n\nfunc g() {\n\treturn 1\n}\n"},
		},
		{
			name:    "hunk does not match: nothing written",
			patch:   "*** Begin Patch\n*** Add File: fresh.txt\n+x\n*** Delete File: gone.txt\n*** Update File: u.txt\n-\treturn 3\n+\treturn 4\n*** End Patch",
			want:    "Update File u.txt: hunk 1 (line 6): its context and removed lines do not match the file",
			after:   map[string]string{"fresh.txt": "", "gone.txt": "bye\n", "u.txt": start["u.txt"]},
			wantErr: true,
		},
		{
			name:    "header not found",
			patch:   "*** Begin Patch\n*** Update File: u.txt\n@@ func h() {\n-x\n*** End Patch",
			want:    `hunk 1 (line 3): context "func h() {" not found`,
			wantErr: true,
		},
		{"add existing", "*** Begin Patch\n*** Add File: keep.txt\n+x\n*** End Patch", "line 2: Add File keep.txt: the file already exists; use Update File", map[string]string{"keep.txt": "unchanged\n"}, true},
		{"delete missing", "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch", "line 2: Delete File nope.txt: no such file", nil, true},
		{"update missing", "*** Begin Patch\n*** Update File: nope.txt\n-x\n*** End Patch", "line 2: Update File nope.txt: no such file", nil, true},
		{"move onto existing", "*** Begin Patch\n*** Update File: old.txt\n*** Move to: keep.txt\n*** End Patch", "Move to keep.txt: the file already exists", map[string]string{"old.txt": "a\nb\n"}, true},
		{"same file twice", "*** Begin Patch\n*** Delete File: gone.txt\n*** Add File: gone.txt\n+x\n*** End Patch", "line 3: gone.txt is already changed by the section at line 2", map[string]string{"gone.txt": "bye\n"}, true},
		{"escape", "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Add File: ../evil.txt\n+x\n*** End Patch", `line 4: path "../evil.txt" is outside the workspace`, map[string]string{"ok.txt": ""}, true},
		{"parse error", "*** Begin Patch\n*** Add File: a\nx\n*** End Patch", "parse patch: line 3:", nil, true},
		{
			name: "write fails: earlier changes rolled back",
			// Both pass validation; the second cannot be written because
			// the first made "q" a file.
			patch:   "*** Begin Patch\n*** Update File: keep.txt\n-unchanged\n+changed\n*** Delete File: gone.txt\n*** Add File: q\n+file\n*** Add File: q/inner.txt\n+x\n*** End Patch",
			want:    "apply patch: q/inner.txt:",
			after:   map[string]string{"keep.txt": "unchanged\n", "gone.txt": "bye\n", "q": "", "q/inner.txt": ""},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, m := newTools(t)
			for name, content := range start {
				writeFile(t, filepath.Join(dir, name), content)
			}
			r := run(t, m["apply_patch"], map[string]any{"patch": tt.patch})
			ok := r.Text == tt.want
			if tt.wantErr {
				ok = strings.Contains(r.Text, tt.want)
			}
			if r.IsError != tt.wantErr || !ok {
				t.Fatalf("got (error %v)\n%s\nwant\n%s", r.IsError, r.Text, tt.want)
			}
			for name, want := range tt.after {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if want == "" {
					if !os.IsNotExist(err) {
						t.Errorf("%s exists (%q, %v)", name, b, err)
					}
					continue
				}
				if string(b) != want {
					t.Errorf("%s = %q, want %q", name, b, want)
				}
			}
		})
	}
}
