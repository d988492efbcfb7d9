package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// decoder decodes a node tree strictly into the config structs, reporting
// every problem with its position instead of stopping at the first.
type decoder struct {
	issues *issueList
	getenv func(string) string
	at     map[string]*node // value node of every decoded path
	// unresolved are the secrets whose environment variable is not set.
	unresolved []Issue
}

// unresolvedSecret records, and warns of, a secret left without a value
// because the variables it names are not set.
func (d *decoder) unresolvedSecret(n *node, path string, vars []string) {
	msg := fmt.Sprintf("environment variable %s is not set; the secret is unavailable", strings.Join(vars, ", "))
	if len(vars) > 1 {
		msg = fmt.Sprintf("environment variables %s are not set; the secret is unavailable", strings.Join(vars, ", "))
	}
	d.issues.warnAt(n, false, path, "%s", msg)
	is := Issue{Path: path, Message: msg, Severity: SeverityWarning}
	if n.file != nil {
		is.File = n.file.name
		if off := n.pos(false); off >= 0 {
			is.Line, is.Column = n.file.position(off)
		}
	}
	d.unresolved = append(d.unresolved, is)
}

// nodeDecoder is implemented by field types with their own JSON shape.
type nodeDecoder interface {
	decodeNode(d *decoder, n *node, path string)
}

// fieldInfo is what the decoder and Schema need about one struct field.
type fieldInfo struct {
	name     string // JSON key
	goName   string
	owner    string // the struct type declaring the field (its doc key)
	index    []int  // for reflect's FieldByIndex: embedded structs are flattened
	enum     []string
	min, max *int64
}

// docKey is the field's key in fieldDocs.
func (f fieldInfo) docKey() string { return f.owner + "." + f.goName }

var fieldCache sync.Map // reflect.Type -> []fieldInfo

// fieldsOf lists the JSON fields of a config struct type from its tags.
func fieldsOf(t reflect.Type) []fieldInfo {
	if cached, ok := fieldCache.Load(t); ok {
		return cached.([]fieldInfo)
	}
	var out []fieldInfo
	for i := range t.NumField() {
		sf := t.Field(i)
		// An embedded struct without a key of its own shares its keys
		// with the outer section (a channel and its accounts).
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("json") == "" {
			for _, inner := range fieldsOf(sf.Type) {
				inner.index = append([]int{i}, inner.index...)
				out = append(out, inner)
			}
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" {
			continue
		}
		fi := fieldInfo{name: name, goName: sf.Name, owner: t.Name(), index: []int{i}}
		if e := sf.Tag.Get("enum"); e != "" {
			fi.enum = strings.Split(e, ",")
		}
		fi.min = intTag(sf.Tag.Get("min"))
		fi.max = intTag(sf.Tag.Get("max"))
		out = append(out, fi)
	}
	fieldCache.Store(t, out)
	return out
}

func intTag(s string) *int64 {
	if s == "" {
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("config: bad integer struct tag %q", s))
	}
	return &v
}

func fieldNames(fields []fieldInfo) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// decodeStruct decodes object n into struct v. Keys with a field are
// decoded; keys OpenClaw knows (per k) draw a "not implemented" warning and
// are checked further; other keys are errors.
func (d *decoder) decodeStruct(n *node, v reflect.Value, k *keyTree, segs []segment) {
	path := formatPath(segs)
	if n.kind != kindObject {
		d.typeError(n, path, "an object")
		return
	}
	d.at[path] = n
	if pm, ok := v.Addr().Interface().(presenceMarker); ok {
		pm.markPresent()
	}
	fields := fieldsOf(v.Type())
	for _, m := range n.members {
		childSegs := append(segs[:len(segs):len(segs)], segment{key: m.key})
		childPath := JoinPath(path, m.key)
		known := k.child(m.key)
		i := slices.IndexFunc(fields, func(f fieldInfo) bool { return f.name == m.key })
		switch {
		case i >= 0:
			d.decodeField(m.val, v.FieldByIndex(fields[i].index), fields[i], known, childSegs)
		case known != nil:
			if hint := legacyWebSearchHint(path, m.key); hint != "" {
				d.issues.warnAt(m.val, true, childPath, "%s", hint)
			} else if len(segs) > 0 || !silentKeys[m.key] {
				d.issues.warnAt(m.val, true, childPath, "not implemented yet; OpenClaw knows this key, so it is kept but has no effect here")
			}
			d.checkKnown(m.val, known, childSegs, false)
		default:
			// A plugin's config is the plugin's to define: a key we do
			// not know there is a warning, as in checkKnown.
			d.unknownKey(m.val, childPath, m.key, func() []string { return append(fieldNames(fields), k.names()...) }, inPluginConfig(segs))
		}
	}
}

// legacyWebSearchPlugins maps the provider sections OpenClaw no longer
// reads under tools.web.search to the plugin that holds them now.
var legacyWebSearchPlugins = map[string]string{
	"brave": "brave", "duckduckgo": "duckduckgo", "exa": "exa", "firecrawl": "firecrawl", "gemini": "google",
	"grok": "xai", "kimi": "moonshot", "minimax": "minimax", "ollama": "ollama", "perplexity": "perplexity",
	"searxng": "searxng", "tavily": "tavily",
}

// legacyWebSearchHint says where a tools.web.search provider section or
// apiKey belongs now; OpenClaw refuses such a config, this gateway keeps
// it without effect and says how to move it. "" for other keys.
func legacyWebSearchHint(parent, key string) string {
	if parent != "tools.web.search" {
		return ""
	}
	if key == "apiKey" {
		return "has no effect: OpenClaw reads a search provider's key from plugins.entries.<provider>.config.webSearch.apiKey"
	}
	if plugin, ok := legacyWebSearchPlugins[key]; ok {
		return fmt.Sprintf("has no effect: OpenClaw reads the %s provider's settings from plugins.entries.%s.config.webSearch (apiKey, baseUrl)", key, plugin)
	}
	return ""
}

// inPluginConfig reports whether segs lie in plugins.entries.<id>.config.
func inPluginConfig(segs []segment) bool {
	return len(segs) >= 4 && segs[0].key == "plugins" && segs[1].key == "entries" && segs[3].key == "config"
}

func (d *decoder) decodeField(n *node, v reflect.Value, f fieldInfo, k *keyTree, segs []segment) {
	path := formatPath(segs)
	d.at[path] = n
	if nd, ok := v.Addr().Interface().(nodeDecoder); ok {
		nd.decodeNode(d, n, path)
		return
	}
	switch v.Kind() {
	case reflect.String:
		if n.kind != kindString {
			d.typeError(n, path, "a string")
			return
		}
		if len(f.enum) > 0 && !slices.Contains(f.enum, n.str) {
			d.issues.errorAt(n, false, path, "%q is not allowed here; want one of %s", n.str, quoteList(f.enum))
			return
		}
		v.SetString(n.str)
	case reflect.Int:
		if x, ok := d.integer(n, path, f); ok {
			v.SetInt(x)
		}
	case reflect.Float64: // prices and the like: any number, not below 0
		if n.kind != kindNumber {
			d.typeError(n, path, "a number")
			return
		}
		if n.num < 0 {
			d.issues.errorAt(n, false, path, "must be at least 0, got %s", formatNumber(n.num))
			return
		}
		v.SetFloat(n.num)
	case reflect.Bool:
		if n.kind != kindBool {
			d.typeError(n, path, "true or false")
			return
		}
		v.SetBool(n.boolean)
	case reflect.Pointer: // *bool: nil means "use the default"
		if n.kind != kindBool {
			d.typeError(n, path, "true or false")
			return
		}
		b := n.boolean
		v.Set(reflect.ValueOf(&b))
	case reflect.Map: // map[string]T: an object whose keys the user names
		if n.kind != kindObject {
			d.typeError(n, path, "an object")
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.members))
		elemInfo := fieldInfo{name: f.name, goName: f.goName, enum: f.enum, min: f.min, max: f.max}
		for _, mem := range n.members {
			elem := reflect.New(v.Type().Elem()).Elem()
			d.decodeField(mem.val, elem, elemInfo, k.child(mem.key), append(segs[:len(segs):len(segs)], segment{key: mem.key}))
			m.SetMapIndex(reflect.ValueOf(mem.key), elem)
		}
		v.Set(m)
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.String {
			d.decodeList(n, v, f, k, segs)
			return
		}
		if n.kind != kindArray {
			d.typeError(n, path, "an array of strings")
			return
		}
		out := make([]string, 0, len(n.elems))
		for i, e := range n.elems {
			d.at[indexPath(path, i)] = e
			if e.kind != kindString {
				d.typeError(e, indexPath(path, i), "a string")
				continue
			}
			out = append(out, e.str)
		}
		v.Set(reflect.ValueOf(out))
	case reflect.Struct:
		d.decodeStruct(n, v, k, segs)
	default:
		panic(fmt.Sprintf("config: field %s has unsupported kind %s", f.goName, v.Kind()))
	}
}

// decodeList decodes an array of objects (or other non-string elements).
func (d *decoder) decodeList(n *node, v reflect.Value, f fieldInfo, k *keyTree, segs []segment) {
	path := formatPath(segs)
	if n.kind != kindArray {
		d.typeError(n, path, "an array")
		return
	}
	out := reflect.MakeSlice(v.Type(), len(n.elems), len(n.elems))
	for i, e := range n.elems {
		d.decodeField(e, out.Index(i), f, k.items(), append(segs[:len(segs):len(segs)], segment{index: i, isIndex: true}))
	}
	v.Set(out)
}

// integer checks that n is a whole number within the field's bounds.
func (d *decoder) integer(n *node, path string, f fieldInfo) (int64, bool) {
	if n.kind != kindNumber {
		d.typeError(n, path, "a number")
		return 0, false
	}
	if n.num != math.Trunc(n.num) || math.Abs(n.num) > 1<<53 {
		d.issues.errorAt(n, false, path, "expected a whole number, got %s", formatNumber(n.num))
		return 0, false
	}
	x := int64(n.num)
	if f.min != nil && x < *f.min {
		d.issues.errorAt(n, false, path, "must be at least %d, got %d", *f.min, x)
		return 0, false
	}
	if f.max != nil && x > *f.max {
		d.issues.errorAt(n, false, path, "must be at most %d, got %d", *f.max, x)
		return 0, false
	}
	return x, true
}

func (d *decoder) typeError(n *node, path, want string) {
	d.issues.errorAt(n, false, path, "expected %s, got %s", want, n.kindName())
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// quoteList writes "a", "b" or "c".
func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
