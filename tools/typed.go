package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/invopop/jsonschema"
)

// Default timeouts by kind of tool.
const (
	TimeoutFast       = 30 * time.Second  // lookups, file reads, session tools
	TimeoutShell      = 60 * time.Second  // shell and browser
	TimeoutGeneration = 300 * time.Second // image, music, video generation
)

// Typed is a tool whose arguments are a Go struct: its JSON Schema is
// generated from the struct (field tags json, jsonschema:"description=…"),
// and arguments are validated against it before the tool runs: unknown
// fields, wrong types and missing required fields (those without
// omitempty) are refused with a message naming the field.
type Typed[A any] struct {
	spec Spec // without Parameters
	// schema is reflected on first use: a gateway registers some sixty
	// tools at every start, and most are never described to a model
	// before the process ends (a CLI command, a quiet gateway).
	schema func() typedSchema
	fn     func(ctx context.Context, c Call, args A) (Result, error)
}

type typedSchema struct {
	parameters json.RawMessage
	required   []string
}

var _ Tool = (*Typed[struct{}])(nil)

// NewTyped makes a typed tool. spec.Parameters is filled in.
func NewTyped[A any](spec Spec, fn func(ctx context.Context, c Call, args A) (Result, error)) *Typed[A] {
	name := spec.Name
	spec.Parameters = nil
	return &Typed[A]{spec: spec, fn: fn, schema: sync.OnceValue(func() typedSchema {
		r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: false}
		s := r.Reflect(new(A))
		s.Version = ""
		schema, err := json.Marshal(s)
		if err != nil {
			panic(fmt.Sprintf("tools: schema of %s: %v", name, err)) // a programming error, caught by any test
		}
		return typedSchema{parameters: schema, required: s.Required}
	})}
}

// Spec describes the tool.
func (t *Typed[A]) Spec() Spec {
	spec := t.spec
	spec.Parameters = t.schema().parameters
	return spec
}

// specHead is Spec without the parameter schema, for the registry's
// bookkeeping.
func (t *Typed[A]) specHead() Spec { return t.spec }

// specHead is t's Spec, without building a schema that is built lazily.
func specHead(t Tool) Spec {
	if h, ok := t.(interface{ specHead() Spec }); ok {
		return h.specHead()
	}
	return t.Spec()
}

// Validate checks arguments against the schema's shape.
func (t *Typed[A]) Validate(raw json.RawMessage) error {
	_, err := t.decode(raw)
	return err
}

func (t *Typed[A]) decode(raw json.RawMessage) (A, error) {
	var args A
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(raw, &present); err != nil {
		return args, errors.New("arguments must be a JSON object")
	}
	var missing []string
	for _, name := range t.schema().required {
		if _, ok := present[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return args, fmt.Errorf("missing required %s", strings.Join(missing, ", "))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return args, fmt.Errorf("%v", strings.TrimPrefix(err.Error(), "json: "))
	}
	return args, nil
}

// Call decodes the arguments and runs the function.
func (t *Typed[A]) Call(ctx context.Context, c Call) (Result, error) {
	args, err := t.decode(c.Args)
	if err != nil {
		return Result{Text: "invalid arguments: " + err.Error(), IsError: true}, nil
	}
	return t.fn(ctx, c, args)
}

// MCPScope applies the per-agent MCP rule: when an agent has ticked no
// MCP tools, every enabled MCP tool joins its set; once it ticks some,
// only those do.
func MCPScope(enabled, ticked []string) []string {
	if len(ticked) == 0 {
		return enabled
	}
	want := map[string]bool{}
	for _, t := range ticked {
		want[strings.ToLower(t)] = true
	}
	var out []string
	for _, e := range enabled {
		if want[strings.ToLower(e)] {
			out = append(out, e)
		}
	}
	return out
}
