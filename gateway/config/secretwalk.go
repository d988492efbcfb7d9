package config

import (
	"reflect"
	"slices"
	"strings"
)

var secretInputType = reflect.TypeFor[SecretInput]()

// EachSecret calls fn with the path and a pointer to every SecretInput in
// the config, in field order and sorted map order. Changes fn makes through
// the pointer are kept, map values included.
func (c *Config) EachSecret(fn func(path string, s *SecretInput)) {
	walkSecrets(reflect.ValueOf(c).Elem(), "", fn)
}

// walkSecrets reports whether it changed anything under v, so that a map
// value (not addressable) is written back only then.
func walkSecrets(v reflect.Value, path string, fn func(string, *SecretInput)) bool {
	if v.Type() == secretInputType {
		s := v.Addr().Interface().(*SecretInput)
		before := *s
		fn(path, s)
		return !before.Equal(*s) || before.Problem != s.Problem
	}
	changed := false
	switch v.Kind() {
	case reflect.Struct:
		for _, f := range fieldsOf(v.Type()) {
			if walkSecrets(v.FieldByIndex(f.index), JoinPath(path, f.name), fn) {
				changed = true
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if walkSecrets(v.Index(i), indexPath(path, i), fn) {
				changed = true
			}
		}
	case reflect.Pointer:
		if !v.IsNil() && v.Elem().Kind() == reflect.Struct {
			changed = walkSecrets(v.Elem(), path, fn)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String || !holdsSecrets(v.Type().Elem(), map[reflect.Type]bool{}) {
			return false
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			elem := reflect.New(v.Type().Elem()).Elem()
			elem.Set(v.MapIndex(k))
			if walkSecrets(elem, JoinPath(path, k.String()), fn) {
				v.SetMapIndex(k, elem)
				changed = true
			}
		}
	}
	return changed
}

// holdsSecrets reports whether values of t can contain a SecretInput, so
// the walk skips the maps that cannot.
func holdsSecrets(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == secretInputType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() && holdsSecrets(t.Field(i).Type, seen) {
				return true
			}
		}
	case reflect.Slice, reflect.Pointer, reflect.Map:
		return holdsSecrets(t.Elem(), seen)
	}
	return false
}
