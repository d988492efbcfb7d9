package config

// Limit is a whole number of at least 0 that may be left out, meaning "no
// limit" (tools.exec.safeBinProfiles.*.maxPositional): 0 is a limit, so
// the zero value cannot stand for "unset".
type Limit struct {
	N   int
	Set bool
}

func (l *Limit) decodeNode(d *decoder, n *node, path string) {
	zero := int64(0)
	if x, ok := d.integer(n, path, fieldInfo{min: &zero}); ok {
		*l = Limit{N: int(x), Set: true}
	}
}

func (Limit) jsonSchema() map[string]any { return map[string]any{"type": "integer", "minimum": 0} }
