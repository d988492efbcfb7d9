package gateway_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/openclaw-go/openclaw"

// TestImportRules keeps dependencies pointing down, as
// docs/ARCHITECTURE.md describes, and every package documented. It reads
// every package of the module.
func TestImportRules(t *testing.T) {
	root := ".."
	imports := map[string][]string{} // package -> our packages it imports (tests included)
	var undocumented []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, path)
		if pkg.Doc == "" && len(pkg.GoFiles) > 0 {
			undocumented = append(undocumented, rel)
		}
		ip := module
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		for _, list := range [][]string{pkg.Imports, pkg.TestImports} {
			for _, imp := range list {
				if strings.HasPrefix(imp, module+"/") || imp == module {
					imports[ip] = append(imports[ip], imp)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range undocumented {
		t.Errorf("package %s has no package comment", p)
	}
	if len(imports) == 0 {
		t.Fatal("found no packages importing ours; the walk is broken")
	}
	rules := []struct {
		from, why string
		allowed   func(from, imp string) bool
	}{
		{"gateway/protocol", "the wire types are a leaf", func(_, imp string) bool { return false }},
		{"gateway/config", "config imports nothing of ours", func(from, imp string) bool {
			// Its own build commands (the corpus builder) load configs.
			return strings.HasPrefix(from, module+"/gateway/config/internal/") && imp == module+"/gateway/config"
		}},
		{"gateway/store", "the store imports nothing of ours", func(from, imp string) bool {
			// Its test support (a PostgreSQL server, a store on the
			// engine the run names) is built on it and used by its tests.
			return under(imp, "gateway/store") && (under(from, "gateway/store/pgtest") || under(from, "gateway/store/storetest") ||
				imp == module+"/gateway/store/pgtest")
		}},
		{"policy", "policy imports nothing of ours but its own pure shell analyser", func(from, imp string) bool {
			// The guard splits a shell line into its commands with the
			// parser exec approvals use, so the two never read a line apart.
			return from == module+"/policy" && imp == module+"/policy/execpolicy"
		}},
		{"tools", "tools never import channels or agents", func(_, imp string) bool {
			return !under(imp, "channels") && !under(imp, "agents")
		}},
		{"channels", "adapters never import each other", func(from, imp string) bool {
			// channelstest is the fakes' shared test support, no adapter.
			return !under(imp, "channels") || imp == module+"/channels" || imp == module+"/channels/channelstest" || sameSubtree(from, imp)
		}},
		{"backoff", "backoff is a leaf every part that retries may import", func(_, imp string) bool { return false }},
		{"speech", "speech knows the config and nothing of the channels or agents it serves", func(from, imp string) bool {
			return imp == module+"/gateway/config" || under(imp, "speech")
		}},
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if imp == module+"/gateway" && !under(pkg, "cmd") && pkg != module+"/gateway" {
				// The wings under gateway/ are built by the root from
				// small interfaces; reaching back up would undo that.
				t.Errorf("%s imports %s: only cmd/ wires the gateway", pkg, imp)
			}
			for _, r := range rules {
				if under(pkg, r.from) && !r.allowed(pkg, imp) {
					t.Errorf("%s imports %s: %s", pkg, imp, r.why)
				}
			}
		}
	}
}

func under(pkg, dir string) bool {
	p := module + "/" + dir
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// sameSubtree reports whether two channel packages belong to the same
// adapter (channels/telegram and channels/telegram/format).
func sameSubtree(a, b string) bool {
	seg := func(p string) string {
		rest := strings.TrimPrefix(p, module+"/channels/")
		first, _, _ := strings.Cut(rest, "/")
		return first
	}
	return seg(a) == seg(b)
}
