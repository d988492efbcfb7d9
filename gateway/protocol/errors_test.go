package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// TestErrorTableUnique reads errors.go's code tables: two names for one
// wire value would let callers branch on either and drift apart, and a
// value typed twice is how a table stops being one.
func TestErrorTableUnique(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]map[string]string{} // prefix -> value -> name
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				val, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				var prefix string
				switch {
				case strings.HasPrefix(name.Name, "Code"):
					prefix = "Code"
				case strings.HasPrefix(name.Name, "Detail"):
					prefix = "Detail"
				default:
					t.Errorf("%s = %q: a code's name starts with Code (error.code) or Detail (error.details.code)", name.Name, val)
					continue
				}
				if tables[prefix] == nil {
					tables[prefix] = map[string]string{}
				}
				if other, dup := tables[prefix][val]; dup {
					t.Errorf("%s and %s are both %q", other, name.Name, val)
				}
				tables[prefix][val] = name.Name
			}
		}
	}
	for _, prefix := range []string{"Code", "Detail"} {
		if len(tables[prefix]) == 0 {
			t.Errorf("found no %s constants in errors.go; the parse is broken", prefix)
		}
	}
}
