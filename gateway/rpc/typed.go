package rpc

import (
	"context"

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
	return func(ctx context.Context, req *Request) (any, error) {
		var p P
		if _, none := any(p).(Empty); !none {
			if err := req.Decode(&p); err != nil {
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

// Empty is the params of a method that takes none: whatever is sent,
// object or not, is not decoded, as OpenClaw ignores it.
type Empty struct{}
