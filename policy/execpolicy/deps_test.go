package execpolicy

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the package pure: no imports from this module, and no
// package that does I/O; resolution goes through the injected functions.
func TestImports(t *testing.T) {
	forbidden := []string{"os", "os/exec", "net", "net/http", "syscall", "io/ioutil", "unsafe", "io/fs", "log", "log/slog"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			switch {
			case p == "mvdan.cc/sh/v3/syntax":
			case strings.Contains(first, "."):
				t.Errorf("%s imports %s; only mvdan.cc/sh/v3/syntax is allowed outside the standard library", name, p)
			case slices.Contains(forbidden, p):
				t.Errorf("%s imports %s, which does I/O", name, p)
			}
		}
	}
}
