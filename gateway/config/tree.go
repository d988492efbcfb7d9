package config

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// srcFile is one config file as the user wrote it.
type srcFile struct {
	name       string
	src        []byte
	lineStarts []int // offsets where lines begin; filled on first use
}

// position turns a byte offset into a 1-based line and a 1-based column
// counted in characters.
func (f *srcFile) position(off int) (line, col int) {
	off = min(max(off, 0), len(f.src))
	if f.lineStarts == nil {
		f.lineStarts = []int{0}
		for i, c := range f.src {
			if c == '\n' {
				f.lineStarts = append(f.lineStarts, i+1)
			}
		}
	}
	i, found := slices.BinarySearch(f.lineStarts, off)
	if !found {
		i--
	}
	return i + 1, 1 + utf8.RuneCount(f.src[f.lineStarts[i]:off])
}

type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

// node is a parsed JSON value that remembers where it was written, so every
// later stage (includes, substitution, decoding) can point at the source.
type node struct {
	kind    nodeKind
	file    *srcFile
	off     int // source offset of the value
	keyOff  int // source offset of the key naming the value; -1 if none
	str     string
	num     float64
	boolean bool
	members []member // objects, in source order, keys unique
	elems   []*node  // arrays
	// missingEnv names the ${VAR}s of a string that were not set;
	// secretUse is set when a secret field consumed the string, which
	// then reports them itself (see reportMissingEnv).
	missingEnv []string
	secretUse  bool
}

type member struct {
	key string
	val *node
}

// pos returns the offset of the node's key when atKey is set and it has one,
// else of its value.
func (n *node) pos(atKey bool) int {
	if atKey && n.keyOff >= 0 {
		return n.keyOff
	}
	return n.off
}

// get returns the member named key, or nil.
func (n *node) get(key string) *node {
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// kindName describes a node's type for messages ("got a string").
func (n *node) kindName() string {
	switch n.kind {
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	}
	return "null"
}

// toAny converts the node to the values encoding/json would produce:
// map[string]any, []any, string, float64, bool and nil.
func (n *node) toAny() any {
	switch n.kind {
	case kindBool:
		return n.boolean
	case kindNumber:
		return n.num
	case kindString:
		return n.str
	case kindObject:
		m := make(map[string]any, len(n.members))
		for _, mem := range n.members {
			m[mem.key] = mem.val.toAny()
		}
		return m
	case kindArray:
		a := make([]any, len(n.elems))
		for i, e := range n.elems {
			a[i] = e.toAny()
		}
		return a
	}
	return nil
}

// parsed is a JSON5 document parsed for reading and for editing.
type parsed struct {
	file *srcFile
	tr   *translation
	ast  hujson.Value // AST of tr.out
}

var hujsonPosRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+), column (\d+)`) })

// parseJSON5 parses a JSON5 document. A syntax error comes back as an Issue
// with the position in the original text.
func parseJSON5(f *srcFile) (*parsed, *Issue) {
	tr, err := translateJSON5(f.src)
	if err != nil {
		var se *syntaxError
		off := 0
		if errors.As(err, &se) {
			off = se.off
		}
		var l issueList
		l.errorf(f, off, "", "%s", err.Error())
		return nil, &l.list[0]
	}
	v, err := hujson.Parse(tr.out)
	if err != nil {
		// translateJSON5 checks the whole grammar, so this is a bug; still
		// point as close to the trouble as hujson says.
		off := 0
		if m := hujsonPosRE().FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			off = tr.srcOffset(outOffset(tr.out, line, col))
		}
		var l issueList
		l.errorf(f, off, "", "parse translated config: %v", err)
		return nil, &l.list[0]
	}
	return &parsed{file: f, tr: tr, ast: v}, nil
}

// outOffset turns hujson's 1-based line and byte column into an offset.
func outOffset(b []byte, line, col int) int {
	off := 0
	for l := 1; l < line && off < len(b); off++ {
		if b[off] == '\n' {
			l++
		}
	}
	return min(off+col-1, len(b))
}

// nodes converts the AST to a node tree. A key written twice keeps its first
// place and its last value (as JavaScript does), with a warning.
func (p *parsed) nodes(issues *issueList) *node {
	return p.build(&p.ast, -1, "", issues)
}

func (p *parsed) build(v *hujson.Value, keyOff int, path string, issues *issueList) *node {
	n := &node{file: p.file, off: p.tr.srcOffset(v.StartOffset), keyOff: keyOff}
	switch t := v.Value.(type) {
	case hujson.Literal:
		switch t.Kind() {
		case 'n':
			n.kind = kindNull
		case 't', 'f':
			n.kind, n.boolean = kindBool, t.Bool()
		case '"':
			n.kind, n.str = kindString, t.String()
		case '0':
			n.kind = kindNumber
			n.num, _ = strconv.ParseFloat(string(t), 64)
		}
	case *hujson.Object:
		n.kind = kindObject
		index := make(map[string]int, len(t.Members))
		for i := range t.Members {
			m := &t.Members[i]
			key := m.Name.Value.(hujson.Literal).String()
			childPath := JoinPath(path, key)
			child := p.build(&m.Value, p.tr.srcOffset(m.Name.StartOffset), childPath, issues)
			if j, dup := index[key]; dup {
				issues.warnAt(child, true, childPath, "key is written more than once; the last value wins")
				n.members[j].val = child
				continue
			}
			index[key] = len(n.members)
			n.members = append(n.members, member{key, child})
		}
	case *hujson.Array:
		n.kind = kindArray
		for i := range t.Elements {
			n.elems = append(n.elems, p.build(&t.Elements[i], -1, indexPath(path, i), issues))
		}
	}
	return n
}
