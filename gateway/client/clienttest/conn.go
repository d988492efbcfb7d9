package clienttest

import (
	"context"
	"crypto/ed25519"
	"crypto/subtle"
	"encoding/json"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Conn is one client connection to the fake server.
type Conn struct {
	srv    *Server
	ws     *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc

	writeMu sync.Mutex
	seq     uint64 // under writeMu

	connect Connect
	wg      sync.WaitGroup // handler goroutines
}

// Call is one request as a Handler sees it.
type Call struct {
	ID     string
	Method string
	Params json.RawMessage // nil when the frame had none
	Conn   *Conn
}

// Accept sends an interim {status:"accepted", ...} response for a
// two-stage method; the handler's return value is the final response.
// extra fields are merged into the payload.
func (c *Call) Accept(extra map[string]any) error {
	p := map[string]any{"status": "accepted"}
	for k, v := range extra {
		p[k] = v
	}
	return c.Conn.write(protocol.OKResponse(c.ID, p))
}

// Decode unmarshals the call's params into v.
func (c *Call) Decode(v any) error {
	if c.Params == nil {
		return nil
	}
	return json.Unmarshal(c.Params, v)
}

// Connect returns the connect request this connection sent.
func (c *Conn) Connect() Connect { return c.connect }

// Event sends an event to this connection without a seq, as the gateway
// does for connection-targeted events.
func (c *Conn) Event(event string, payload any) error {
	return c.write(protocol.Event{Type: protocol.KindEvent, Event: event, Payload: payload})
}

// Close sends a close frame with code and reason and drops the connection.
func (c *Conn) Close(code int, reason string) {
	c.writeMu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason),
		time.Now().Add(time.Second))
	c.writeMu.Unlock()
	c.ws.Close()
}

func newConn(s *Server, ws *websocket.Conn) *Conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &Conn{srv: s, ws: ws, ctx: ctx, cancel: cancel}
}

func (c *Conn) broadcast(event string, payload any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.seq++
	seq := c.seq
	return c.writeLocked(protocol.Event{Type: protocol.KindEvent, Event: event, Payload: payload, Seq: &seq})
}

func (c *Conn) write(v any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.writeLocked(v)
}

func (c *Conn) writeLocked(v any) error {
	c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

// shutdown closes the socket and waits for running handlers.
func (c *Conn) shutdown() {
	c.cancel()
	c.ws.Close()
	c.wg.Wait()
}

// reject answers the connect with err and closes with code.
func (c *Conn) reject(id string, err *protocol.Error, code int, reason string) error {
	_ = c.write(protocol.ErrResponse(id, err))
	c.Close(code, reason)
	return errClosed
}

// handshake sends the challenge and validates the connect request.
func (c *Conn) handshake() error {
	c.ws.SetReadLimit(protocol.MaxPreauthPayload)
	nonce, ts := uuid.NewString(), time.Now().UnixMilli()
	if !c.srv.cfg.NoChallenge {
		var payload any = protocol.ChallengePayload{Nonce: nonce, Ts: ts}
		if f := c.srv.cfg.Challenge; f != nil {
			payload = f(nonce, ts)
		}
		if err := c.Event(protocol.EventConnectChallenge, payload); err != nil {
			return err
		}
	}
	_, data, err := c.ws.ReadMessage()
	if err != nil {
		return err
	}
	req, err := protocol.DecodeRequest(data)
	if err != nil {
		c.Close(protocol.ClosePolicy, "invalid handshake")
		return errClosed
	}
	if req.Method != "connect" {
		return c.reject(req.ID, protocol.Errorf(protocol.CodeInvalidRequest,
			"invalid handshake: first request must be connect"), protocol.ClosePolicy,
			"invalid handshake: first request must be connect")
	}
	var p protocol.ConnectParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return c.reject(req.ID, protocol.Errorf(protocol.CodeInvalidRequest, "invalid connect params: %v", err),
			protocol.ClosePolicy, "invalid connect params")
	}
	c.connect = Connect{Raw: append(json.RawMessage(nil), data...), ID: req.ID, Params: p, Nonce: nonce, Ts: ts}
	c.srv.mu.Lock()
	c.srv.connects = append(c.srv.connects, c.connect)
	c.srv.mu.Unlock()

	if p.MinProtocol > protocol.Version || p.MaxProtocol < protocol.Version {
		return c.reject(req.ID, protocol.Errorf(protocol.CodeInvalidRequest, "protocol mismatch").WithDetails(map[string]any{
			"code": protocol.DetailProtocolMismatch, "clientMinProtocol": p.MinProtocol,
			"clientMaxProtocol": p.MaxProtocol, "expectedProtocol": protocol.Version,
		}), protocol.CloseProtocolMismatch, "protocol mismatch")
	}
	if !contains(protocol.ClientIDs, p.Client.ID) || !contains(protocol.ClientModes, p.Client.Mode) {
		return c.reject(req.ID, protocol.Errorf(protocol.CodeInvalidRequest, "invalid connect params: client"),
			protocol.ClosePolicy, "invalid connect params")
	}
	if perr := c.checkAuth(p); perr != nil {
		return c.reject(req.ID, perr, protocol.ClosePolicy, perr.Message)
	}
	if perr := checkDevice(p, nonce); perr != nil {
		return c.reject(req.ID, perr, protocol.ClosePolicy, perr.Message)
	}
	if f := c.srv.cfg.Reject; f != nil {
		if perr := f(p); perr != nil {
			return c.reject(req.ID, perr, protocol.ClosePolicy, perr.Message)
		}
	}
	hello := c.hello(p)
	c.ws.SetReadLimit(protocol.MaxPayload)
	// Listed before hello-ok goes out, so a test that has seen Dial
	// return finds this connection in Conns.
	c.srv.ready(c)
	return c.write(protocol.OKResponse(req.ID, hello))
}

func (c *Conn) hello(p protocol.ConnectParams) protocol.HelloOk {
	role := p.Role
	if role == "" {
		role = string(protocol.RoleOperator)
	}
	scopes := p.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	h := protocol.HelloOk{
		Type:     "hello-ok",
		Protocol: protocol.Version,
		Server:   protocol.ServerInfo{Version: "clienttest", ConnID: uuid.NewString()},
		Features: protocol.Features{Methods: c.srv.methods(), Events: []string{protocol.EventTick, protocol.EventHealth}},
		Snapshot: protocol.Snapshot{Presence: []protocol.PresenceEntry{}, Health: map[string]any{}},
		Auth:     protocol.HelloAuth{Method: "token", Role: role, Scopes: scopes},
		Policy: protocol.Policy{MaxPayload: protocol.MaxPayload, MaxBufferedBytes: protocol.MaxBufferedBytes,
			TickIntervalMs: protocol.TickIntervalMs},
	}
	if f := c.srv.cfg.Hello; f != nil {
		f(p, &h)
	}
	return h
}

// checkAuth compares the shared secrets the way the real gateway reports it.
func (c *Conn) checkAuth(p protocol.ConnectParams) *protocol.Error {
	auth := p.Auth
	if auth == nil {
		auth = &protocol.ConnectAuth{}
	}
	authErr := func(detail, reason, msg string) *protocol.Error {
		return protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: %s", msg).WithDetails(map[string]any{
			"code": detail, "authReason": reason, "canRetryWithDeviceToken": false,
			"recommendedNextStep": "update_auth_credentials",
		})
	}
	switch cfg := c.srv.cfg; {
	case cfg.Token != "" && auth.Token == "":
		return authErr(protocol.DetailAuthTokenMissing, "token_missing", "gateway token missing")
	case cfg.Token != "" && !equal(auth.Token, cfg.Token):
		return authErr(protocol.DetailAuthTokenMismatch, "token_mismatch",
			"gateway token mismatch (use this gateway's gateway.auth.token or pair the device)")
	case cfg.Password != "" && auth.Password == "":
		return authErr(protocol.DetailAuthPasswordMissing, "password_missing", "gateway password missing")
	case cfg.Password != "" && !equal(auth.Password, cfg.Password):
		return authErr(protocol.DetailAuthPasswordMismatch, "password_mismatch", "gateway password mismatch")
	}
	return nil
}

// checkDevice verifies a device block: derived id, nonce, and the v3 (then
// v2) signature.
func checkDevice(p protocol.ConnectParams, nonce string) *protocol.Error {
	d := p.Device
	if d == nil {
		return nil
	}
	bad := func(detail, reason string) *protocol.Error {
		return protocol.Errorf(protocol.CodeInvalidRequest, "device identity invalid: %s", reason).
			WithDetails(map[string]any{"code": detail, "reason": reason})
	}
	pub, err := protocol.DecodePublicKey(d.PublicKey)
	if err != nil {
		return bad(protocol.DetailDeviceAuthKeyInvalid, "device-public-key")
	}
	if protocol.DeviceID(pub) != d.ID {
		return bad(protocol.DetailDeviceAuthIDMismatch, "device-id-mismatch")
	}
	if d.Nonce == "" {
		return bad(protocol.DetailDeviceAuthNonceRequired, "device-nonce-missing")
	}
	if d.Nonce != nonce {
		return bad(protocol.DetailDeviceAuthNonceMismatch, "device-nonce-mismatch")
	}
	sig, err := protocol.DecodeSignature(d.Signature)
	if err != nil {
		return bad(protocol.DetailDeviceAuthSigInvalid, "device-signature")
	}
	role := p.Role
	if role == "" {
		role = string(protocol.RoleOperator)
	}
	f := protocol.SignedFields{
		DeviceID: d.ID, ClientID: p.Client.ID, ClientMode: p.Client.Mode, Role: role, Scopes: p.Scopes,
		SignedAtMs: d.SignedAt, Token: p.Auth.SignedToken(), Nonce: d.Nonce,
		Platform: p.Client.Platform, DeviceFamily: p.Client.DeviceFamily,
	}
	if !ed25519.Verify(pub, []byte(f.PayloadV3()), sig) && !ed25519.Verify(pub, []byte(f.PayloadV2()), sig) {
		return bad(protocol.DetailDeviceAuthSigInvalid, "device-signature")
	}
	return nil
}

// serve reads requests after hello-ok and runs each in its own goroutine.
func (c *Conn) serve() {
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		req, err := protocol.DecodeRequest(data)
		if err != nil {
			if req != nil && req.ID != "" {
				_ = c.write(protocol.ErrResponse(req.ID, protocol.Errorf(protocol.CodeInvalidRequest, "%v", err)))
			}
			continue
		}
		c.srv.record(Request{ID: req.ID, Method: req.Method, Params: req.Params})
		h := c.srv.handler(req.Method)
		if h == nil {
			_ = c.write(protocol.ErrResponse(req.ID, protocol.UnknownMethod(req.Method)))
			continue
		}
		call := &Call{ID: req.ID, Method: req.Method, Params: req.Params, Conn: c}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			payload, err := h(c.ctx, call)
			if err != nil {
				_ = c.write(protocol.ErrResponse(call.ID, protocol.AsError(err)))
				return
			}
			_ = c.write(protocol.OKResponse(call.ID, payload))
		}()
	}
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
