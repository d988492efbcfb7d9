package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Validator is a params type that checks itself after decoding.
type Validator interface {
	Validate() error
}

// Typed adapts a handler over typed params and result: the params are
// decoded into P (empty params as {}), checked with P's Validate when it
// has one (a failure is INVALID_REQUEST naming the method), and the result
// is sent as R. It replaces the decode-and-check preamble every handler
// would otherwise repeat.
func Typed[P, R any](fn func(ctx context.Context, req *Request, p P) (R, error)) Handler {
	return typed(fn, func(req *Request, p any) error { return req.Decode(p) })
}

// TypedStrict is Typed for a method whose params schema refuses keys it
// does not name (OpenClaw's additionalProperties: false, as cron's): an
// unknown key, trailing data or a mistyped field is INVALID_REQUEST
// naming the method and the key, where Typed would drop or report them
// in Go's words.
func TypedStrict[P, R any](fn func(ctx context.Context, req *Request, p P) (R, error)) Handler {
	return typed(fn, func(req *Request, p any) error {
		if err := DecodeStrict(req.Params, p); err != nil {
			return protocol.InvalidParams(req.Method, err)
		}
		return nil
	})
}

func typed[P, R any](fn func(ctx context.Context, req *Request, p P) (R, error), decode func(req *Request, p any) error) Handler {
	return func(ctx context.Context, req *Request) (any, error) {
		var p P
		if _, none := any(p).(Empty); !none {
			if err := decode(req, &p); err != nil {
				return nil, err
			}
		}
		if v, ok := any(&p).(Validator); ok {
			if err := v.Validate(); err != nil {
				return nil, protocol.InvalidParams(req.Method, err)
			}
		}
		r, err := fn(ctx, req, p)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// DecodeStrict decodes one JSON object (empty or blank raw as {}) into v,
// refusing unknown keys and trailing data, so a typo is an error rather
// than a silently different request. Its errors are DecodeError's.
func DecodeStrict(raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return DecodeError(err)
	}
	if dec.More() {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// DecodeError words a JSON decode error for a client: a mistyped value
// as "field: expected T, got V", anything else without the "json: "
// prefix.
func DecodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: expected %s, got %s", te.Field, te.Type, te.Value)
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

// Empty is the params of a method that takes none: whatever is sent,
// object or not, is not decoded, as OpenClaw ignores it.
type Empty struct{}
