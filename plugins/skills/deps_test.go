package skills

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDeps keeps skills below the gateway: it may use tools and tools/fs,
// never the layers that wire it.
func TestDeps(t *testing.T) {
	forbidden := []string{"gateway", "agents", "channels", "plugins/mcp", "cmd"}
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f.Name(), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if p == "github.com/openclaw-go/openclaw/"+bad || strings.HasPrefix(p, "github.com/openclaw-go/openclaw/"+bad+"/") {
					t.Errorf("%s imports %s", f.Name(), p)
				}
			}
		}
	}
}
