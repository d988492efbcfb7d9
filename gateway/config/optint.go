package config

import "strconv"

// OptInt is a whole number that may be absent, for keys whose absence
// means "inherit" where 0 is a value of its own (an hour of 0 is midnight,
// 0 idle minutes turns idle resets off).
type OptInt struct {
	V   int
	Set bool
}

// Or returns the value, or def when it is absent.
func (o OptInt) Or(def int) int {
	if o.Set {
		return o.V
	}
	return def
}

// MarshalJSON writes the number, or null when absent.
func (o OptInt) MarshalJSON() ([]byte, error) {
	if !o.Set {
		return []byte("null"), nil
	}
	return []byte(strconv.Itoa(o.V)), nil
}

func (o *OptInt) decodeNode(d *decoder, n *node, path string) {
	zero := int64(0)
	if x, ok := d.integer(n, path, fieldInfo{min: &zero}); ok {
		*o = OptInt{V: int(x), Set: true}
	}
}

func (OptInt) jsonSchema() map[string]any {
	return map[string]any{"type": "integer", "minimum": 0}
}
