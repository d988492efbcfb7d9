package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	includeKey      = "$include"
	maxIncludeDepth = 10
	maxIncludeBytes = 2 << 20
)

// includer replaces $include members with the files they name.
//
// A single path replaces the object holding it; an array of paths is deep
// merged in order (objects merge key by key, arrays concatenate, anything
// else: the later value wins); keys beside $include are merged over the
// result the same way. Paths are relative to the file that holds them and
// must stay inside one of roots (the config file's directory first), also
// after following symlinks.
type includer struct {
	roots  []string
	issues *issueList
	files  []string // included files that were read, in order
}

// resolve returns n with every $include under it replaced. chain holds the
// files being read, outermost first; the last one is n's own file.
func (in *includer) resolve(n *node, path string, chain []string) *node {
	switch n.kind {
	case kindArray:
		out := *n
		out.elems = make([]*node, len(n.elems))
		for i, e := range n.elems {
			out.elems[i] = in.resolve(e, indexPath(path, i), chain)
		}
		return &out
	case kindObject:
	default:
		return n
	}
	out := *n
	out.members = make([]member, 0, len(n.members))
	for _, m := range n.members {
		if m.key != includeKey {
			out.members = append(out.members, member{m.key, in.resolve(m.val, JoinPath(path, m.key), chain)})
		}
	}
	ref := n.get(includeKey)
	if ref == nil {
		return &out
	}
	included := in.load(ref, path, chain)
	switch {
	case included == nil:
		return &out
	case len(out.members) == 0:
		return included
	case included.kind != kindObject:
		in.issues.errorAt(ref, false, JoinPath(path, includeKey), "keys beside $include need the included file to hold an object, but it holds %s", included.kindName())
		return &out
	}
	return deepMerge(included, &out)
}

// load reads the file or files a $include value names; nil if none could be.
func (in *includer) load(ref *node, path string, chain []string) *node {
	incPath := JoinPath(path, includeKey)
	var refs []*node
	switch ref.kind {
	case kindString:
		refs = []*node{ref}
	case kindArray:
		for i, e := range ref.elems {
			if e.kind != kindString {
				in.issues.errorAt(e, false, indexPath(incPath, i), "expected a file path string, got %s", e.kindName())
				continue
			}
			refs = append(refs, e)
		}
	default:
		in.issues.errorAt(ref, false, incPath, "expected a file path or an array of file paths, got %s", ref.kindName())
		return nil
	}
	var result *node
	for _, r := range refs {
		n := in.loadFile(r, path, incPath, chain)
		switch {
		case n == nil:
		case result == nil:
			result = n
		default:
			result = deepMerge(result, n)
		}
	}
	return result
}

func (in *includer) loadFile(ref *node, path, incPath string, chain []string) *node {
	name := ref.str
	if name == "" || strings.ContainsRune(name, 0) || len(name) >= 4096 {
		in.issues.errorAt(ref, false, incPath, "invalid include path %q", name)
		return nil
	}
	target := name
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(chain[len(chain)-1]), target)
	}
	target = filepath.Clean(target)
	root, rel, ok := in.rootFor(target)
	if !ok {
		in.issues.errorAt(ref, false, incPath, "include %q is outside the config directory %s", name, in.roots[0])
		return nil
	}
	for _, c := range chain {
		if c == target {
			in.issues.errorAt(ref, false, incPath, "include cycle: %s", strings.Join(append(chain, target), " -> "))
			return nil
		}
	}
	if len(chain) > maxIncludeDepth {
		in.issues.errorAt(ref, false, incPath, "includes nest more than %d levels deep at %q", maxIncludeDepth, name)
		return nil
	}
	data, err := readConfined(root, rel)
	if err != nil {
		in.issues.errorAt(ref, false, incPath, "include %q: %v", name, err)
		return nil
	}
	in.files = append(in.files, target)
	f := &srcFile{name: target, src: data}
	p, syntaxIssue := parseJSON5(f)
	if syntaxIssue != nil {
		in.issues.list = append(in.issues.list, *syntaxIssue)
		return nil
	}
	return in.resolve(p.nodes(in.issues), path, append(chain[:len(chain):len(chain)], target))
}

// rootFor finds the root holding target, by path alone.
func (in *includer) rootFor(target string) (root, rel string, ok bool) {
	for _, r := range in.roots {
		rel, err := filepath.Rel(r, target)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return r, rel, true
		}
	}
	return "", "", false
}

// readConfined reads root/rel through os.Root, which refuses symlinks that
// lead out of root, and only if it is a regular file of at most 2 MB.
func readConfined(root, rel string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open include root: %w", err)
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("file not found")
		}
		if strings.Contains(err.Error(), "escapes") {
			return nil, fmt.Errorf("resolves outside the config directory through a symlink")
		}
		return nil, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIncludeBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if len(data) > maxIncludeBytes {
		return nil, fmt.Errorf("file is larger than %d bytes", maxIncludeBytes)
	}
	return data, nil
}

// deepMerge merges b over a: objects key by key, arrays by concatenation,
// anything else by taking b. Neither input is modified.
func deepMerge(a, b *node) *node {
	switch {
	case a.kind == kindArray && b.kind == kindArray:
		out := *b
		out.elems = append(append([]*node(nil), a.elems...), b.elems...)
		return &out
	case a.kind != kindObject || b.kind != kindObject:
		return b
	}
	out := *b
	out.members = append([]member(nil), a.members...)
	for _, m := range b.members {
		found := false
		for i := range out.members {
			if out.members[i].key == m.key {
				out.members[i].val = deepMerge(out.members[i].val, m.val)
				found = true
				break
			}
		}
		if !found {
			out.members = append(out.members, m)
		}
	}
	return &out
}
