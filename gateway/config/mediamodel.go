package config

// MediaModelRef is the model choice of a media tool
// (agents.defaults.imageModel): a ModelRef whose object form may also
// bound the tool's model call with timeoutMs, as OpenClaw's does.
type MediaModelRef struct {
	ModelRef
	// TimeoutMs bounds one call of the tool's model, fallbacks included.
	// 0: the tool's own timeout.
	TimeoutMs int
}

// MarshalJSON writes the short form when only a primary model is set.
func (m MediaModelRef) MarshalJSON() ([]byte, error) {
	if m.TimeoutMs == 0 {
		return m.ModelRef.MarshalJSON()
	}
	obj := map[string]any{"primary": m.Primary, "timeoutMs": m.TimeoutMs}
	if len(m.Fallbacks) > 0 {
		obj["fallbacks"] = m.Fallbacks
	}
	return renderJSON(obj, "", "")
}

// minMediaTimeoutMs is the smallest timeoutMs accepted: 0 would read as
// "unset" and a negative one means nothing.
var minMediaTimeoutMs int64 = 1

// decodeNode takes timeoutMs out of the object form and leaves the rest
// to ModelRef, so the two refs report the same errors for the same keys.
func (m *MediaModelRef) decodeNode(d *decoder, n *node, path string) {
	if n.kind != kindObject {
		m.ModelRef.decodeNode(d, n, path)
		return
	}
	rest := *n
	rest.members = make([]member, 0, len(n.members))
	for _, mem := range n.members {
		if mem.key != "timeoutMs" {
			rest.members = append(rest.members, mem)
			continue
		}
		p := JoinPath(path, mem.key)
		d.at[p] = mem.val
		if v, ok := d.integer(mem.val, p, fieldInfo{name: mem.key, goName: "TimeoutMs", min: &minMediaTimeoutMs}); ok {
			m.TimeoutMs = int(v)
		}
	}
	m.ModelRef.decodeNode(d, &rest, path)
}

func (MediaModelRef) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "description": `"provider/model"`},
		map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"primary":   map[string]any{"type": "string"},
			"fallbacks": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"timeoutMs": map[string]any{"type": "integer", "minimum": minMediaTimeoutMs},
		}},
	}}
}
