package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ByteSize is a number of bytes written as a number or as a string with
// a unit ("512kb", "20mb", "1gb"), as OpenClaw's byte thresholds
// (agents.defaults.compaction.maxActiveTranscriptBytes) are. 0 is off.
type ByteSize int64

// ParseByteSize reads 1024, "1024", "512b", "64kb", "20mb", "1.5gb"
// (units of 1024; case and a space before the unit do not matter).
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit, like 512kb, 20mb or 1gb", s)
	}
	n, err := strconv.ParseFloat(t[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	var unit float64
	switch strings.TrimSpace(t[i:]) {
	case "", "b":
		unit = 1
	case "k", "kb", "kib":
		unit = 1 << 10
	case "m", "mb", "mib":
		unit = 1 << 20
	case "g", "gb", "gib":
		unit = 1 << 30
	default:
		return 0, fmt.Errorf("size %q: unknown unit %q (b, kb, mb, gb)", s, strings.TrimSpace(t[i:]))
	}
	v := n * unit
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return ByteSize(v), nil
}

func (b *ByteSize) decodeNode(d *decoder, n *node, path string) {
	switch n.kind {
	case kindNumber:
		zero := int64(0)
		if x, ok := d.integer(n, path, fieldInfo{min: &zero}); ok {
			*b = ByteSize(x)
		}
	case kindString:
		v, err := ParseByteSize(n.str)
		if err != nil {
			d.issues.errorAt(n, false, path, "%v", err)
			return
		}
		*b = v
	default:
		d.typeError(n, path, `a number of bytes or a size such as "20mb"`)
	}
}

func (ByteSize) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "integer", "minimum": 0},
		map[string]any{"type": "string", "description": `a size such as "512kb", "20mb" or "1gb"`},
	}}
}
