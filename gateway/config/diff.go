package config

import (
	"reflect"
	"slices"
)

// restartPaths are the keys whose change needs the listener rebuilt (or the
// process restarted): where and how the gateway listens, and how the logger
// was built. Every other implemented key is applied while running: auth
// mode, token and password, rate limits, allowed origins, pairing,
// trusted proxies and logging.level among them. The store is opened once
// per start, so where it is needs a restart too.
var restartPaths = []string{
	"gateway.mode",
	"gateway.port",
	"gateway.bind",
	"gateway.customBindHost",
	"gateway.controlUi.enabled",
	"gateway.controlUi.basePath",
	"logging.file",
	"logging.consoleStyle",
	"store.driver",
	"store.url",
	"store.leaseInterval",
	"store.leaseTimeout",
}

// Diff returns the changed keys between two configs that cannot be applied
// while running, as dotted paths in restartPaths order; empty means the new
// config can be applied hot. A nil config counts as Defaults().
func Diff(old, new *Config) (restartNeeded []string) {
	for _, p := range Changes(old, new) {
		if slices.Contains(restartPaths, p) {
			restartNeeded = append(restartNeeded, p)
		}
	}
	slices.SortFunc(restartNeeded, func(a, b string) int {
		return slices.Index(restartPaths, a) - slices.Index(restartPaths, b)
	})
	return restartNeeded
}

// Changes returns every implemented key whose value differs between two
// configs, as dotted paths in struct order. A nil config counts as
// Defaults(); a nil *bool counts as its default.
func Changes(old, new *Config) []string {
	if old == nil {
		old = Defaults()
	}
	if new == nil {
		new = Defaults()
	}
	var out []string
	diffValue(reflect.ValueOf(*old), reflect.ValueOf(*new), "", &out)
	return out
}

func diffValue(a, b reflect.Value, path string, out *[]string) {
	if a.Kind() == reflect.Struct && !isLeafType(a.Type()) {
		for _, f := range fieldsOf(a.Type()) {
			diffValue(a.FieldByIndex(f.index), b.FieldByIndex(f.index), JoinPath(path, f.name), out)
		}
		return
	}
	if !leafEqual(a, b) {
		*out = append(*out, path)
	}
}

func leafEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice, reflect.Map:
		return (a.Len() == 0 && b.Len() == 0) || reflect.DeepEqual(a.Interface(), b.Interface())
	case reflect.Struct:
		if sa, ok := a.Interface().(SecretInput); ok {
			return sa.Equal(b.Interface().(SecretInput))
		}
		return reflect.DeepEqual(a.Interface(), b.Interface())
	case reflect.Pointer: // every *bool field defaults to true
		return boolOr(a.Interface().(*bool), true) == boolOr(b.Interface().(*bool), true)
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// isLeafType reports struct types that are one config value with their
// own JSON shape (SecretInput, ModelRef), compared whole.
func isLeafType(t reflect.Type) bool {
	_, ok := reflect.New(t).Interface().(nodeDecoder)
	return ok
}

// TreeChanges returns every dotted path whose value differs between two
// resolved config trees, known keys or not: a key this gateway does not
// implement yet is still a change someone made. Objects are walked; any
// other value (arrays included) is compared whole and reported at its own
// path. A nil tree counts as empty.
func TreeChanges(old, new map[string]any) []string {
	var out []string
	diffTree(old, new, "", &out)
	slices.Sort(out)
	return out
}

func diffTree(a, b map[string]any, path string, out *[]string) {
	for k, av := range a {
		p := JoinPath(path, k)
		bv, ok := b[k]
		if !ok {
			*out = append(*out, p)
			continue
		}
		am, aObj := av.(map[string]any)
		bm, bObj := bv.(map[string]any)
		switch {
		case aObj && bObj:
			diffTree(am, bm, p, out)
		case !reflect.DeepEqual(av, bv):
			*out = append(*out, p)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			*out = append(*out, JoinPath(path, k))
		}
	}
}
