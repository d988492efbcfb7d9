package providers

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
)

// answer accumulates one streamed completion: text as it arrives (passed
// on to Hooks.OnDelta) and tool calls whose arguments come in pieces,
// keyed by the index the wire gives them (OpenAI's tool_calls[].index,
// Anthropic's content block index).
type answer struct {
	hooks   Hooks
	text    strings.Builder
	calls   []*partialCall // in order of first appearance
	byIndex map[int64]int  // wire index → position in calls
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

func newAnswer(hooks Hooks) *answer {
	return &answer{hooks: hooks, byIndex: map[int64]int{}}
}

// addText records a piece of answer text and hands it to OnDelta.
func (a *answer) addText(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	if a.hooks.OnDelta != nil {
		a.hooks.OnDelta(s)
	}
}

// addCall records what a delta says of the call at index: the id and
// name when present (they usually come once, first) and a piece of the
// arguments. A new id at an index already in use starts another call:
// some servers send every call whole, all at index 0.
func (a *answer) addCall(index int64, id, name, args string) {
	pos, ok := a.byIndex[index]
	if !ok || (id != "" && a.calls[pos].id != "" && id != a.calls[pos].id) {
		a.calls = append(a.calls, &partialCall{})
		pos = len(a.calls) - 1
		a.byIndex[index] = pos
	}
	c := a.calls[pos]
	if id != "" {
		c.id = id
	}
	if name != "" {
		c.name = name
	}
	c.args.WriteString(args)
}

// toolCalls returns the finished calls. A call the server gave no id gets
// one ("call_<n>") so tool results can refer to it.
func (a *answer) toolCalls(log *slog.Logger) []ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	out := make([]ToolCall, 0, len(a.calls))
	for i, c := range a.calls {
		id := c.id
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		out = append(out, ToolCall{ID: id, Name: c.name, Arguments: argumentsJSON(c.args.String(), c.name, log)})
	}
	return out
}

// argumentsJSON makes streamed arguments valid JSON: nothing becomes {},
// and text that is not JSON is kept as a JSON string so the tool layer can
// say what was wrong with it.
func argumentsJSON(raw, tool string, log *slog.Logger) json.RawMessage {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(raw)):
		return json.RawMessage(raw)
	}
	log.Warn("tool call arguments are not JSON", "tool", tool, "bytes", len(raw))
	quoted, _ := json.Marshal(raw)
	return quoted
}

// argumentsText is the arguments of a call as sent back to a model in the
// transcript: always a JSON document, {} when empty.
func argumentsText(args json.RawMessage) string {
	s := strings.TrimSpace(string(args))
	if s == "" || s == "null" {
		return "{}"
	}
	return s
}

// schemaObject decodes a tool's JSON Schema; an empty schema is an object
// without properties.
func schemaObject(schema json.RawMessage) (map[string]any, error) {
	if len(strings.TrimSpace(string(schema))) == 0 || string(schema) == "null" {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		return nil, err
	}
	return m, nil
}
