package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// serve runs one connection from open to close.
func (c *Conn) serve() {
	authed := false
	defer func() {
		c.srv.preauth.release(c.preauth)
		// Let the writer deliver a queued answer and close frame first.
		c.mu.Lock()
		flushing := c.closing && !c.closed
		c.mu.Unlock()
		if flushing {
			select {
			case <-c.writerDone:
			case <-time.After(2 * time.Second):
			}
		}
		c.markClosed()
		c.ws.Close()
		if authed {
			c.srv.remove(c)
		}
	}()
	go c.writeLoop()

	c.ws.SetReadLimit(protocol.MaxPreauthPayload)
	// The handshake deadline was set by the pre-auth budget, which may
	// shorten it under a flood.
	nonce := uuid.NewString()
	challengeTs := c.srv.opts.Now().UnixMilli()
	c.SendEvent(protocol.EventConnectChallenge, protocol.ChallengePayload{
		Nonce: nonce, Ts: challengeTs, Capabilities: []string{"model-catalog-snapshot"},
	})

	hello, ok := c.handshake(nonce)
	if !ok {
		return
	}
	if !c.srv.add(c) {
		c.closeAfterFlush(protocol.CloseTryAgainLater, "gateway shutting down")
		return
	}
	authed = true
	// Release first: from then on the budget no longer touches this
	// socket's deadline, and clearing it cannot be undone by a late cut.
	c.srv.preauth.release(c.preauth)
	c.ws.SetReadLimit(protocol.MaxPayload)
	c.ws.SetReadDeadline(time.Time{})
	c.sendResponse(hello)
	if c.srv.opts.OnConnect != nil {
		c.srv.opts.OnConnect(c)
	}
	c.readLoop()
}

// readFrame reads one text frame; binary frames are ignored. The bytes
// are only valid until the next call: they live in the connection's read
// buffer, which every frame reuses (decoding copies what it keeps).
func (c *Conn) readFrame() ([]byte, error) {
	for {
		kind, r, err := c.ws.NextReader()
		if err != nil {
			return nil, err
		}
		if kind != websocket.TextMessage {
			continue
		}
		if c.readBuf.Cap() > maxKeptReadBuf {
			c.readBuf = bytes.Buffer{} // one large frame does not stay resident
		}
		c.readBuf.Reset()
		if _, err := c.readBuf.ReadFrom(r); err != nil {
			return nil, err
		}
		return c.readBuf.Bytes(), nil
	}
}

// maxKeptReadBuf is the largest read buffer a connection keeps between
// frames.
const maxKeptReadBuf = 64 << 10

func (c *Conn) handshake(nonce string) (*protocol.Response, bool) {
	data, err := c.readFrame()
	if err != nil {
		var ne net.Error
		switch {
		case errors.Is(err, websocket.ErrReadLimit):
			c.srv.log.Warn("pre-auth frame too large", "remote", c.ip)
			c.closeAfterFlush(websocket.CloseMessageTooBig, "frame too large before connect")
		case errors.As(err, &ne) && ne.Timeout():
			// The handshake deadline passed, or the budget evicted the
			// socket to make room: OpenClaw closes a timed-out handshake
			// with 1000 and no reason.
			c.closeAfterFlush(websocket.CloseNormalClosure, "")
		}
		return nil, false
	}
	if !c.srv.preauth.started(c.preauth) {
		c.closeAfterFlush(websocket.CloseNormalClosure, "") // evicted as the frame came in
		return nil, false
	}
	req, err := protocol.DecodeRequest(data)
	if err != nil {
		if req != nil && req.ID != "" {
			// A request we could not take (no method, nested too deep) is
			// told why before the close, like any refused connect.
			c.sendResponse(protocol.ErrResponse(req.ID, protocol.Errorf(protocol.CodeInvalidRequest, "invalid handshake: %v", err)))
			c.closeAfterGrace(protocol.ClosePolicy, "invalid handshake")
			return nil, false
		}
		c.closeAfterFlush(protocol.ClosePolicy, "invalid handshake")
		return nil, false
	}
	if req.Method != "connect" {
		msg := "invalid handshake: first request must be connect"
		c.sendResponse(protocol.ErrResponse(req.ID, protocol.Errorf(protocol.CodeInvalidRequest, "%s", msg)))
		c.closeAfterGrace(protocol.ClosePolicy, msg)
		return nil, false
	}
	hello, herr := c.srv.connect(c, req, nonce)
	if herr != nil {
		c.sendResponse(protocol.ErrResponse(req.ID, herr.err))
		c.closeAfterGrace(herr.close, herr.reason)
		return nil, false
	}
	return protocol.OKResponse(req.ID, hello), true
}

func (c *Conn) readLoop() {
	for {
		data, err := c.readFrame()
		if err != nil {
			if errors.Is(err, websocket.ErrReadLimit) {
				c.closeAfterFlush(websocket.CloseMessageTooBig, "frame too large")
			}
			return
		}
		req, err := protocol.DecodeRequest(data)
		if err != nil {
			if req != nil && req.ID != "" {
				c.sendResponse(protocol.ErrResponse(req.ID, protocol.Errorf(protocol.CodeInvalidRequest, "%v", err)))
			}
			// Noise after the handshake is ignored, as the real gateway
			// does; a request that could not be taken (nested past
			// protocol.MaxFrameDepth, say) was answered above.
			continue
		}
		if req.Method == "connect" {
			c.sendResponse(protocol.ErrResponse(req.ID, protocol.Errorf(protocol.CodeInvalidRequest, "already connected")))
			continue
		}
		if rt, ok := c.srv.route(req.Method); ok && rt.Inline {
			c.dispatch(req)
			continue
		}
		select {
		case c.inflight <- struct{}{}:
		case <-c.ctx.Done():
			return
		}
		go func() {
			defer func() { <-c.inflight }()
			c.dispatch(req)
		}()
	}
}

// dispatch authorizes and runs one request.
func (c *Conn) dispatch(in *protocol.Request) {
	rt, ok := c.srv.route(in.Method)
	if !ok {
		c.sendResponse(protocol.ErrResponse(in.ID, protocol.UnknownMethod(in.Method)))
		return
	}
	if perr := c.authorize(rt); perr != nil {
		c.sendResponse(protocol.ErrResponse(in.ID, perr))
		return
	}
	if gate := c.srv.opts.Gate; gate != nil {
		if perr := gate(in.Method, rt); perr != nil {
			c.sendResponse(protocol.ErrResponse(in.ID, perr))
			return
		}
	}
	req := &Request{ID: in.ID, Method: in.Method, Params: in.Params, Conn: c}
	key := idempotencyKey(in.Params)
	if key == "" {
		c.sendResponse(c.run(rt, req))
		return
	}
	res := c.srv.idem.do(in.Method+"\x00"+key, func() *protocol.Response { return c.run(rt, req) })
	if res.ID != in.ID { // replayed from an earlier call
		cp := *res
		cp.ID = in.ID
		res = &cp
	}
	c.sendResponse(res)
}

func (c *Conn) authorize(rt Route) *protocol.Error {
	switch {
	case rt.Scope == protocol.ScopeNode:
		if c.role != protocol.RoleNode {
			return protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized role: %s", c.role)
		}
	case c.role == protocol.RoleNode:
		if rt.Scope != protocol.ScopeNone {
			return protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized role: %s", c.role)
		}
	case rt.Scope == protocol.ScopeDynamic, rt.Scope == protocol.ScopeNone:
		// the handler decides
	default:
		if !protocol.Satisfies(c.scopes, rt.Scope) {
			return protocol.MissingScope(rt.Scope)
		}
	}
	return nil
}

func (c *Conn) run(rt Route, req *Request) (res *protocol.Response) {
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("handler panic", "method", req.Method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res = protocol.ErrResponse(req.ID, protocol.Errorf(protocol.CodeUnavailable, "internal error in %s", req.Method))
		}
	}()
	payload, err := rt.Handler(req.Conn.ctx, req)
	if err != nil {
		return protocol.ErrResponse(req.ID, protocol.AsError(err))
	}
	return protocol.OKResponse(req.ID, payload)
}

// idempotencyKey pulls params.idempotencyKey without decoding the rest
// when the key is plainly absent.
func idempotencyKey(params json.RawMessage) string {
	if !bytes.Contains(params, []byte(`"idempotencyKey"`)) {
		return ""
	}
	var p struct {
		Key string `json:"idempotencyKey"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.Key
}

// closeGrace is how long a refused client gets to read its error answer
// before the close frame: clients handle the answer asynchronously and
// would otherwise report only the close.
const closeGrace = time.Second

// closeAfterGrace waits until the peer closes or closeGrace passes, then
// closes with code.
func (c *Conn) closeAfterGrace(code int, reason string) {
	c.ws.SetReadDeadline(time.Now().Add(closeGrace))
	c.srv.preauth.refusing(c.preauth)
	for {
		if _, _, err := c.ws.ReadMessage(); err != nil {
			break
		}
	}
	c.closeAfterFlush(code, reason)
}
