package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Call sends a request and waits for its response. params may be nil (the
// frame then has no params), a json.RawMessage, or any value that marshals
// to JSON. When out is non-nil the response payload is decoded into it (a
// *json.RawMessage receives it verbatim).
//
// An ok:false response returns its *protocol.Error. If ctx ends first, Call
// returns ctx's error; a late response is then discarded.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	return c.call(ctx, method, params, out, false)
}

// CallFinal is Call for two-stage methods such as agent: a response with
// ok:true and payload.status "accepted" is an interim ack, and CallFinal
// keeps waiting for the second response with the same id.
func (c *Client) CallFinal(ctx context.Context, method string, params, out any) error {
	return c.call(ctx, method, params, out, true)
}

func (c *Client) call(ctx context.Context, method string, params, out any, final bool) error {
	id := c.nextID()
	pc := &pendingCall{method: method, final: final, ch: make(chan protocol.Inbound, 1)}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("call %s: %w", method, err)
	}
	c.pending[id] = pc
	c.mu.Unlock()
	defer c.forget(id)

	if err := c.writeRequest(ctx, id, method, params); err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}

	var res protocol.Inbound
	select {
	case res = <-pc.ch:
	case <-ctx.Done():
		return fmt.Errorf("call %s: %w", method, ctx.Err())
	case <-c.done:
		select {
		case res = <-pc.ch: // answered just before the link ended
		default:
			return fmt.Errorf("call %s: %w", method, c.Err())
		}
	}
	if !res.OK {
		return responseError(res)
	}
	if out != nil && len(res.Payload) > 0 {
		if err := json.Unmarshal(res.Payload, out); err != nil {
			return fmt.Errorf("call %s: decode payload: %w", method, err)
		}
	}
	return nil
}

// forget drops a pending call (after its answer, a timeout or a failure).
func (c *Client) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id) // no-op on the nil map left after shutdown
	c.mu.Unlock()
}

// marshalParams encodes request params, passing raw JSON through.
func marshalParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case json.RawMessage:
		if !json.Valid(p) {
			return nil, fmt.Errorf("params are not valid JSON")
		}
		return p, nil
	case []byte:
		if !json.Valid(p) {
			return nil, fmt.Errorf("params are not valid JSON")
		}
		return json.RawMessage(p), nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode params: %w", err)
	}
	return raw, nil
}
