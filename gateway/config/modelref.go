package config

import "strings"

// ModelRef is a model choice: "provider/model", or an object with a
// primary model and fallbacks tried in order when it fails.
type ModelRef struct {
	Primary   string
	Fallbacks []string
}

// IsSet reports whether a primary model is named.
func (m ModelRef) IsSet() bool { return m.Primary != "" }

// Chain lists the primary then the fallbacks.
func (m ModelRef) Chain() []string {
	if !m.IsSet() {
		return nil
	}
	return append([]string{m.Primary}, m.Fallbacks...)
}

// MarshalJSON writes the short form when there are no fallbacks.
func (m ModelRef) MarshalJSON() ([]byte, error) {
	if len(m.Fallbacks) == 0 {
		return renderJSON(m.Primary, "", "")
	}
	return renderJSON(map[string]any{"primary": m.Primary, "fallbacks": m.Fallbacks}, "", "")
}

func (m *ModelRef) decodeNode(d *decoder, n *node, path string) {
	check := func(n *node, p, ref string) bool {
		// A bare name may be an alias from agents.defaults.models; the
		// validation after decoding resolves it or refuses it.
		if prov, model, ok := strings.Cut(ref, "/"); ok && (prov == "" || model == "") || strings.TrimSpace(ref) == "" {
			d.issues.errorAt(n, false, p, "%q is not a model reference; write \"provider/model\", e.g. \"openai/gpt-4o\"", ref)
			return false
		}
		return true
	}
	switch n.kind {
	case kindString:
		if check(n, path, n.str) {
			m.Primary = n.str
		}
	case kindObject:
		for _, mem := range n.members {
			p := JoinPath(path, mem.key)
			d.at[p] = mem.val
			switch mem.key {
			case "primary":
				if mem.val.kind != kindString {
					d.typeError(mem.val, p, "a string")
				} else if check(mem.val, p, mem.val.str) {
					m.Primary = mem.val.str
				}
			case "fallbacks":
				if mem.val.kind != kindArray {
					d.typeError(mem.val, p, "an array of strings")
					continue
				}
				for i, e := range mem.val.elems {
					ip := indexPath(p, i)
					d.at[ip] = e
					if e.kind != kindString {
						d.typeError(e, ip, "a string")
					} else if check(e, ip, e.str) {
						m.Fallbacks = append(m.Fallbacks, e.str)
					}
				}
			default:
				d.unknownKey(mem.val, p, mem.key, func() []string { return []string{"primary", "fallbacks"} }, false)
			}
		}
	default:
		d.typeError(n, path, `"provider/model" or {primary, fallbacks}`)
	}
}

func (ModelRef) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "description": `"provider/model"`},
		map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"primary":   map[string]any{"type": "string"},
			"fallbacks": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		}},
	}}
}
