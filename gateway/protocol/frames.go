package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the protocol version this gateway speaks.
const Version = 4

// MinProbeVersion is the oldest version a client in "probe" mode may ask for.
const MinProbeVersion = 3

// Limits advertised in hello-ok policy and enforced by the server.
const (
	MaxPreauthPayload  = 64 << 10   // bytes of one frame before hello-ok
	MaxPayload         = 25 << 20   // bytes of one frame after hello-ok
	MaxBufferedBytes   = 50 << 20   // unsent bytes queued for one client
	TickIntervalMs     = 30_000     // tick event period
	IdempotencyTTLMs   = 5 * 60_000 // how long a result is replayed for a repeated key
	IdempotencyMax     = 1000       // entries kept in the replay cache
	HandshakeTimeoutMs = 15_000     // time allowed from open to a valid connect
)

// Frame kinds.
const (
	KindReq   = "req"
	KindRes   = "res"
	KindEvent = "event"
)

// Request is a client-to-server call. Params stays raw so each handler
// decodes exactly the shape it expects.
type Request struct {
	Type        string          `json:"type"`
	ID          string          `json:"id"`
	Method      string          `json:"method"`
	Params      json.RawMessage `json:"params,omitempty"`
	Traceparent string          `json:"traceparent,omitempty"`
}

// Response answers one Request by ID. Exactly one of Payload or Error is set.
type Response struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	OK      bool   `json:"ok"`
	Payload any    `json:"payload,omitempty"`
	Error   *Error `json:"error,omitempty"`
}

// Event is a server push. Seq is set on broadcast events and counts per
// connection; events aimed at one connection (connect.challenge,
// node.invoke.request) carry none.
type Event struct {
	Type         string        `json:"type"`
	Event        string        `json:"event"`
	Payload      any           `json:"payload,omitempty"`
	Seq          *uint64       `json:"seq,omitempty"`
	StateVersion *StateVersion `json:"stateVersion,omitempty"`
}

// StateVersion counts changes of the presence list and the health snapshot.
type StateVersion struct {
	Presence int64 `json:"presence"`
	Health   int64 `json:"health"`
}

// Inbound is any frame as decoded from the wire, before its kind is known.
// Clients decode server frames into it too.
type Inbound struct {
	Type        string          `json:"type"`
	ID          string          `json:"id,omitempty"`
	Method      string          `json:"method,omitempty"`
	Params      json.RawMessage `json:"params,omitempty"`
	Traceparent string          `json:"traceparent,omitempty"`
	OK          bool            `json:"ok,omitempty"`
	Payload     json.RawMessage `json:"payload,omitempty"`
	Error       *Error          `json:"error,omitempty"`
	Event       string          `json:"event,omitempty"`
	Seq         *uint64         `json:"seq,omitempty"`
}

// Errors returned by DecodeRequest. The server treats ErrNotJSON and
// ErrNotRequest as noise before the handshake (the real gateway closes
// without answering) and ignores them after it. ErrTooDeep (framedepth.go)
// comes with the request's id when it could be read, to be answered.
var (
	ErrNotJSON    = errors.New("frame is not a JSON object")
	ErrNotRequest = errors.New("frame is not a request")
)

// DecodeRequest parses one client frame. It returns ErrNotJSON for text that
// is not a JSON object, ErrNotRequest for a well-formed frame of another
// type, ErrTooDeep for a frame nested past MaxFrameDepth, and a descriptive
// error for a request missing its id or method.
func DecodeRequest(data []byte) (*Request, error) {
	var in Inbound
	if err := json.Unmarshal(data, &in); err != nil {
		// encoding/json refuses a frame past its nesting limit like any
		// malformed text; such a frame is a request all the same when its
		// top level says so, and its sender is owed an answer.
		if h := skimFrame(data); h.depth > MaxFrameDepth {
			if h.typ == KindReq && h.id != "" {
				return &Request{Type: KindReq, ID: h.id, Method: h.method}, ErrTooDeep
			}
			return nil, ErrTooDeep
		}
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	if in.Type != KindReq {
		return nil, ErrNotRequest
	}
	if in.ID == "" {
		return nil, errors.New("invalid request frame: id must be a non-empty string")
	}
	if in.Method == "" {
		return &Request{Type: KindReq, ID: in.ID}, errors.New("invalid request frame: method must be a non-empty string")
	}
	if len(in.Traceparent) > 128 {
		return &Request{Type: KindReq, ID: in.ID, Method: in.Method}, errors.New("invalid request frame: traceparent longer than 128 characters")
	}
	params := in.Params
	if string(params) == "null" {
		params = nil
	}
	return &Request{Type: KindReq, ID: in.ID, Method: in.Method, Params: params, Traceparent: in.Traceparent}, nil
}

// OKResponse builds a successful response.
func OKResponse(id string, payload any) *Response {
	return &Response{Type: KindRes, ID: id, OK: true, Payload: payload}
}

// ErrResponse builds a failed response.
func ErrResponse(id string, err *Error) *Response {
	return &Response{Type: KindRes, ID: id, OK: false, Error: err}
}
