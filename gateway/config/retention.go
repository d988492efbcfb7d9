package config

import (
	"fmt"
	"time"
)

// Retention is how long something is kept: a duration such as "24h" or
// "30d", or false (or a zero duration such as "0h") for "keep it", as
// cron.sessionRetention is written in OpenClaw's schema.
type Retention struct {
	D   time.Duration // 0 with Off
	Off bool
}

// RetentionOf is a retention of d.
func RetentionOf(d time.Duration) Retention { return Retention{D: d} }

// Keeps reports whether rows are kept for D (false: kept forever).
func (r Retention) Keeps() bool { return !r.Off && r.D > 0 }

// MarshalJSON writes the duration back in Go's form, or false.
func (r Retention) MarshalJSON() ([]byte, error) {
	if !r.Keeps() {
		return []byte("false"), nil
	}
	return renderJSON(r.D.String(), "", "")
}

func (r *Retention) decodeNode(d *decoder, n *node, path string) {
	switch n.kind {
	case kindBool:
		if n.boolean {
			d.issues.errorAt(n, false, path, "true is not a retention; write a duration such as \"24h\", or false to keep everything")
			return
		}
		*r = Retention{Off: true}
	case kindString:
		v, err := ParseDuration(n.str)
		if err != nil {
			d.issues.errorAt(n, false, path, "%v", err)
			return
		}
		if v < 0 {
			d.issues.errorAt(n, false, path, "%s", fmt.Sprintf("a retention cannot be negative (%q)", n.str))
			return
		}
		*r = Retention{D: v, Off: v == 0}
	default:
		d.typeError(n, path, `a duration such as "24h", or false`)
	}
}

func (Retention) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "description": `a duration such as "24h" or "30d"; "0h" keeps everything`},
		map[string]any{"type": "boolean", "const": false},
	}}
}
