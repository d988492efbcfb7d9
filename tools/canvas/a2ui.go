package canvas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxJSONLBytes bounds one a2ui_push: the whole batch is replayed to every
// page that opens the canvas, so a runaway model must not grow it freely.
const MaxJSONLBytes = 1 << 20

// Message is one A2UI v0.8 server-to-client message. Exactly one field is
// set; ParseJSONL guarantees it.
type Message struct {
	SurfaceUpdate   *SurfaceUpdate   `json:"surfaceUpdate,omitempty"`
	DataModelUpdate *DataModelUpdate `json:"dataModelUpdate,omitempty"`
	BeginRendering  *BeginRendering  `json:"beginRendering,omitempty"`
	DeleteSurface   *DeleteSurface   `json:"deleteSurface,omitempty"`
}

// SurfaceUpdate adds or replaces components of a surface.
type SurfaceUpdate struct {
	SurfaceID  string      `json:"surfaceId"`
	Components []Component `json:"components"`
}

// Component is one node of a surface's flat component list. Component
// holds a single key, the component type (Text, Column, ...), whose value
// is left raw: the page interprets the properties, and unknown types are
// shown as placeholders rather than refused so newer catalogs still load.
type Component struct {
	ID        string                     `json:"id"`
	Weight    *float64                   `json:"weight,omitempty"`
	Component map[string]json.RawMessage `json:"component"`
}

// DataModelUpdate sets values a surface's components bind to by path.
type DataModelUpdate struct {
	SurfaceID string          `json:"surfaceId"`
	Path      string          `json:"path,omitempty"`
	Contents  json.RawMessage `json:"contents"`
}

// BeginRendering tells the client a surface is complete enough to draw,
// starting at Root.
type BeginRendering struct {
	SurfaceID string          `json:"surfaceId"`
	Root      string          `json:"root"`
	CatalogID string          `json:"catalogId,omitempty"`
	Styles    json.RawMessage `json:"styles,omitempty"`
}

// DeleteSurface removes a surface.
type DeleteSurface struct {
	SurfaceID string `json:"surfaceId"`
}

// v08Kinds are the message keys of v0.8; v09Keys are keys that only v0.9
// uses, so their presence identifies a v0.9 stream.
var (
	v08Kinds = []string{"surfaceUpdate", "dataModelUpdate", "beginRendering", "deleteSurface"}
	v09Keys  = []string{"createSurface", "updateComponents", "updateDataModel"}
)

// ParseJSONL parses and validates A2UI v0.8 JSONL: one message object per
// line, blank lines ignored. Errors name the 1-based line that failed, so
// a model can fix its output; v0.9 input is refused outright because the
// two versions share key names with different meanings.
func ParseJSONL(jsonl string) ([]Message, error) {
	if len(jsonl) > MaxJSONLBytes {
		return nil, fmt.Errorf("jsonl is %d bytes; at most %d", len(jsonl), MaxJSONLBytes)
	}
	var msgs []Message
	for i, line := range strings.Split(jsonl, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		m, err := parseLine([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		return nil, errors.New("jsonl has no messages")
	}
	return msgs, nil
}

func parseLine(line []byte) (Message, error) {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return Message{}, fmt.Errorf("invalid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, ok := v.(map[string]any); !ok {
		return Message{}, errors.New("a message must be a JSON object")
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		return Message{}, fmt.Errorf("invalid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	for _, k := range v09Keys {
		if _, ok := keys[k]; ok {
			return Message{}, fmt.Errorf("%s is A2UI v0.9; this canvas takes v0.8", k)
		}
	}
	if v, ok := keys["version"]; ok {
		var s string
		json.Unmarshal(v, &s)
		switch {
		case strings.HasPrefix(s, "0.9"):
			return Message{}, fmt.Errorf("version %q is A2UI v0.9; this canvas takes v0.8", s)
		case s != "0.8":
			return Message{}, fmt.Errorf("version %s is not A2UI v0.8; this canvas takes v0.8", v)
		}
		delete(keys, "version")
	}
	var kind string
	for k := range keys {
		if !isV08Kind(k) {
			return Message{}, fmt.Errorf("unknown key %q (want one of %s)", k, strings.Join(v08Kinds, ", "))
		}
		if kind != "" {
			return Message{}, errors.New("a message has exactly one of " + strings.Join(v08Kinds, ", "))
		}
		kind = k
	}
	if kind == "" {
		return Message{}, errors.New("empty message (want one of " + strings.Join(v08Kinds, ", ") + ")")
	}
	var m Message
	var err error
	body := keys[kind]
	switch kind {
	case "surfaceUpdate":
		m.SurfaceUpdate, err = decodeBody[SurfaceUpdate](kind, body)
		if err == nil {
			err = checkSurfaceUpdate(m.SurfaceUpdate)
		}
	case "dataModelUpdate":
		m.DataModelUpdate, err = decodeBody[DataModelUpdate](kind, body)
		if err == nil {
			err = checkDataModelUpdate(m.DataModelUpdate)
		}
	case "beginRendering":
		m.BeginRendering, err = decodeBody[BeginRendering](kind, body)
		if err == nil {
			err = needID(kind, m.BeginRendering.SurfaceID)
		}
		if err == nil && strings.TrimSpace(m.BeginRendering.Root) == "" {
			err = errors.New("beginRendering.root is required")
		}
	case "deleteSurface":
		m.DeleteSurface, err = decodeBody[DeleteSurface](kind, body)
		if err == nil {
			err = needID(kind, m.DeleteSurface.SurfaceID)
		}
	}
	return m, err
}

func isV08Kind(k string) bool {
	for _, v := range v08Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// decodeBody decodes a message body. Unknown fields are tolerated: v0.8
// clients ignore them, and refusing would break agents that send extras.
func decodeBody[T any](kind string, raw json.RawMessage) (*T, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return nil, fmt.Errorf("%s must be an object", kind)
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("%s: %v", kind, strings.TrimPrefix(err.Error(), "json: "))
	}
	return v, nil
}

func needID(kind, id string) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("%s.surfaceId is required", kind)
	}
	return nil
}

func checkSurfaceUpdate(u *SurfaceUpdate) error {
	if err := needID("surfaceUpdate", u.SurfaceID); err != nil {
		return err
	}
	if len(u.Components) == 0 {
		return errors.New("surfaceUpdate.components is empty")
	}
	seen := map[string]bool{}
	for i, c := range u.Components {
		if strings.TrimSpace(c.ID) == "" {
			return fmt.Errorf("surfaceUpdate.components[%d].id is required", i)
		}
		if seen[c.ID] {
			return fmt.Errorf("surfaceUpdate.components[%d]: duplicate id %q", i, c.ID)
		}
		seen[c.ID] = true
		if len(c.Component) != 1 {
			return fmt.Errorf("surfaceUpdate.components[%d] (%s).component must have exactly one type key, e.g. {\"Text\": {...}}", i, c.ID)
		}
		for typ, props := range c.Component {
			if !bytes.HasPrefix(bytes.TrimSpace(props), []byte("{")) {
				return fmt.Errorf("surfaceUpdate.components[%d] (%s).component.%s must be an object", i, c.ID, typ)
			}
		}
	}
	return nil
}

func checkDataModelUpdate(u *DataModelUpdate) error {
	if err := needID("dataModelUpdate", u.SurfaceID); err != nil {
		return err
	}
	if !bytes.HasPrefix(bytes.TrimSpace(u.Contents), []byte("[")) {
		return errors.New("dataModelUpdate.contents must be an array")
	}
	return nil
}

// TextMessages is the quick form of a push: a surface "main" whose only
// component is a Text showing text, ready to render.
func TextMessages(text string) []Message {
	props, _ := json.Marshal(map[string]any{"text": map[string]string{"literalString": text}, "usageHint": "body"})
	return []Message{
		{SurfaceUpdate: &SurfaceUpdate{SurfaceID: "main", Components: []Component{
			{ID: "text", Component: map[string]json.RawMessage{"Text": props}},
		}}},
		{BeginRendering: &BeginRendering{SurfaceID: "main", Root: "text"}},
	}
}

// EncodeJSONL writes messages back as JSONL, the form node commands take.
func EncodeJSONL(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		line, _ := json.Marshal(m) // plain structs and raw JSON already validated
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}
