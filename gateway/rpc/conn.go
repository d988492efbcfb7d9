package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Conn is one client socket. Its identity fields are set once by the
// handshake and read-only afterwards.
type Conn struct {
	srv       *Server
	ws        *websocket.Conn
	id        string
	ip        netip.Addr
	origin    string
	forwarded bool
	ctx       context.Context
	cancel    context.CancelFunc
	connected time.Time
	preauth   *preauthSlot // released at hello-ok or close
	readBuf   bytes.Buffer // owned by the read goroutine; see readFrame

	// Set by the handshake.
	role        protocol.Role
	scopes      []string
	client      protocol.ClientInfo
	params      *protocol.ConnectParams
	deviceID    string
	deviceToken string
	authMethod  string
	// proxy is what a trusted proxy said at the upgrade (trusted-proxy
	// mode only).
	proxy *proxyIdentity

	// writeMu is held by whoever writes data frames: the writer goroutine
	// for a batch, or a sender taking the direct path.
	writeMu sync.Mutex

	mu         sync.Mutex
	queue      [][]byte
	queued     int
	seq        uint64
	closed     bool
	closing    bool
	closeMsg   []byte
	wake       chan struct{}
	inflight   chan struct{}
	writerDone chan struct{}
}

func newConn(s *Server, ws *websocket.Conn, ip netip.Addr, origin string, forwarded bool) *Conn {
	ctx, cancel := context.WithCancel(s.baseCtx)
	return &Conn{
		srv: s, ws: ws, id: uuid.NewString(), ip: ip, origin: origin, forwarded: forwarded,
		ctx: ctx, cancel: cancel, connected: s.opts.Now(),
		wake: make(chan struct{}, 1), writerDone: make(chan struct{}), inflight: make(chan struct{}, s.opts.MaxInFlight),
	}
}

// ID is the connection id sent in hello-ok.
func (c *Conn) ID() string { return c.id }

// Role is operator or node.
func (c *Conn) Role() protocol.Role { return c.role }

// Scopes are the granted operator scopes.
func (c *Conn) Scopes() []string { return c.scopes }

// Client is what the client said about itself.
func (c *Conn) Client() protocol.ClientInfo { return c.client }

// ConnectParams is the full connect request.
func (c *Conn) ConnectParams() *protocol.ConnectParams { return c.params }

// DeviceID is the verified device identity, or "".
func (c *Conn) DeviceID() string { return c.deviceID }

// RemoteIP is the normalised client address.
func (c *Conn) RemoteIP() netip.Addr { return c.ip }

// ConnectedAt is when the socket opened.
func (c *Conn) ConnectedAt() time.Time { return c.connected }

// Context ends when the connection closes.
func (c *Conn) Context() context.Context { return c.ctx }

// Local reports a direct loopback connection with no browser origin.
//
// A connection a trusted proxy vouched for is never local: its client
// is wherever the proxy's users are, even when the proxy on this host
// sends no forwarding header.
func (c *Conn) Local() bool {
	return c.ip.IsLoopback() && !c.forwarded && c.origin == "" && c.authMethod != "trusted-proxy"
}

// Has reports whether the connection holds a scope (with implications).
func (c *Conn) Has(s protocol.Scope) bool {
	return c.role == protocol.RoleOperator && protocol.Satisfies(c.scopes, s)
}

// SendEvent sends an event to this connection only, without seq (as the
// real gateway does for connection-targeted events).
func (c *Conn) SendEvent(event string, payload any) {
	c.sendEvent(event, payload, false)
}

func (c *Conn) sendEvent(event string, payload any, withSeq bool) {
	f, err := newEventFrame(event, payload)
	if err != nil {
		c.srv.log.Error("encode event", "event", event, "err", err)
		return
	}
	if withSeq {
		c.enqueueEvent(f)
		return
	}
	c.enqueue(f.unsequenced())
}

func (c *Conn) sendResponse(r *protocol.Response) {
	if raw, ok := r.Payload.(json.RawMessage); ok && r.OK {
		// Cached payloads (health) are already valid JSON: splice them in
		// rather than have encoding/json re-check every byte, into a
		// pooled buffer, since copying the payload per call was most of
		// what a busy health poller allocated.
		id, _ := json.Marshal(r.ID)
		bp := frameBufs.Get().(*[]byte)
		b := (*bp)[:0]
		b = append(b, `{"type":"res","id":`...)
		b = append(b, id...)
		b = append(b, `,"ok":true,"payload":`...)
		b = append(b, raw...)
		b = append(b, '}')
		if c.writeNow(b) {
			if cap(b) <= maxPooledFrame {
				*bp = b
				frameBufs.Put(bp)
			}
			return
		}
		c.enqueue(b) // the queue owns b now; the pool makes another
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		c.srv.log.Error("encode response", "id", r.ID, "err", err)
		b, _ = json.Marshal(protocol.ErrResponse(r.ID, protocol.Errorf(protocol.CodeUnavailable, "response could not be encoded")))
	}
	c.sendDirect(b)
}

// frameBufs holds buffers for response frames written on the direct
// path; gorilla copies a frame into the socket before WriteMessage
// returns, so the buffer is free again at once.
var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledFrame keeps one huge response from pinning its buffer in the
// pool.
const maxPooledFrame = 64 << 10

// eventFrame is an event encoded once for many connections; only the
// per-connection seq differs.
type eventFrame struct{ head []byte }

func newEventFrame(event string, payload any) (eventFrame, error) {
	p, err := json.Marshal(payload)
	if err != nil {
		return eventFrame{}, err
	}
	name, _ := json.Marshal(event)
	head := make([]byte, 0, len(p)+len(name)+48)
	head = append(head, `{"type":"event","event":`...)
	head = append(head, name...)
	head = append(head, `,"payload":`...)
	head = append(head, p...)
	return eventFrame{head: head}, nil
}

func (f eventFrame) unsequenced() []byte {
	return append(append(make([]byte, 0, len(f.head)+1), f.head...), '}')
}

func (c *Conn) enqueueEvent(f eventFrame) {
	c.mu.Lock()
	if c.closed || c.closing {
		c.mu.Unlock()
		return
	}
	c.seq++
	b := make([]byte, 0, len(f.head)+24)
	b = append(b, f.head...)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, c.seq, 10)
	b = append(b, '}')
	c.pushLocked(b)
	c.mu.Unlock()
}

// writeTimeout bounds one frame write to a client that stopped reading.
const writeTimeout = 30 * time.Second

// sendDirect writes a response at once, from the caller's goroutine, when
// nothing is queued before it and no write is under way; otherwise it
// queues it. It saves the hand-off to the writer goroutine on the common
// path (one call in flight) without reordering anything queued earlier:
// the writer takes a batch only while holding writeMu.
func (c *Conn) sendDirect(b []byte) {
	if !c.writeNow(b) {
		c.enqueue(b)
	}
}

// writeNow writes b from the caller's goroutine when nothing is queued
// before it and no write is under way, and reports whether it did (a
// failed write counts: the connection is closed and b is dropped). On
// false the caller still owns b.
func (c *Conn) writeNow(b []byte) bool {
	if !c.writeMu.TryLock() {
		return false
	}
	c.mu.Lock()
	direct := len(c.queue) == 0 && !c.closed && !c.closing
	c.mu.Unlock()
	if !direct {
		c.writeMu.Unlock()
		return false
	}
	c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	err := c.ws.WriteMessage(websocket.TextMessage, b)
	c.writeMu.Unlock()
	if err != nil {
		c.markClosed()
	}
	return true
}

func (c *Conn) enqueue(b []byte) {
	c.mu.Lock()
	if !c.closed && !c.closing {
		c.pushLocked(b)
	}
	c.mu.Unlock()
}

// pushLocked queues a frame, or condemns the connection when the client
// has let too much pile up.
func (c *Conn) pushLocked(b []byte) {
	if c.queued+len(b) > c.srv.opts.MaxBufferedBytes {
		c.srv.log.Warn("closing slow consumer", "conn", c.id, "queued", c.queued)
		c.queue = nil
		c.queued = 0
		c.closing = true
		c.closeMsg = websocket.FormatCloseMessage(protocol.ClosePolicy, "slow consumer")
		c.signal()
		// The writer may be stuck on the client's full socket: say why
		// out of band (WriteControl may run beside a writer) and drop it.
		go func(msg []byte) {
			c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
			c.ws.Close()
		}(c.closeMsg)
		return
	}
	c.queue = append(c.queue, b)
	c.queued += len(b)
	c.signal()
}

func (c *Conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// closeAfterFlush sends what is queued, then a close frame.
func (c *Conn) closeAfterFlush(code int, reason string) {
	c.mu.Lock()
	if !c.closed && !c.closing {
		c.closing = true
		c.closeMsg = websocket.FormatCloseMessage(code, truncateReason(reason))
		c.signal()
	}
	c.mu.Unlock()
}

// abort drops the socket at once.
func (c *Conn) abort() {
	c.cancel()
	c.ws.Close()
}

func truncateReason(s string) string {
	if len(s) > 120 { // close reasons are limited to 123 bytes
		return s[:120]
	}
	return s
}

// writeLoop drains the queue. It owns all writes to the socket.
func (c *Conn) writeLoop() {
	defer close(c.writerDone)
	for {
		select {
		case <-c.wake:
		case <-c.ctx.Done():
			c.mu.Lock()
			closing := c.closing
			c.mu.Unlock()
			if !closing {
				return
			}
		}
		c.writeMu.Lock()
		c.mu.Lock()
		batch := c.queue
		c.queue, c.queued = nil, 0
		closing, msg := c.closing, c.closeMsg
		c.mu.Unlock()
		for _, b := range batch {
			if c.condemned() {
				break // a slow consumer gets its close frame, not the backlog
			}
			c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
				c.writeMu.Unlock()
				c.markClosed()
				return
			}
		}
		c.writeMu.Unlock()
		if closing {
			c.mu.Lock()
			rest := len(c.queue)
			c.mu.Unlock()
			if rest > 0 && msg != nil && !isSlowConsumer(msg) {
				continue
			}
			c.ws.SetWriteDeadline(time.Now().Add(time.Second))
			c.ws.WriteMessage(websocket.CloseMessage, msg)
			c.markClosed()
			// Give the peer a moment to answer the close before dropping.
			time.AfterFunc(time.Second, func() { c.ws.Close() })
			return
		}
	}
}

// condemned reports whether the connection was cut off as a slow consumer.
func (c *Conn) condemned() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing && isSlowConsumer(c.closeMsg)
}

func isSlowConsumer(msg []byte) bool {
	return len(msg) > 2 && string(msg[2:]) == "slow consumer"
}

func (c *Conn) markClosed() {
	c.mu.Lock()
	c.closed = true
	c.queue = nil
	c.mu.Unlock()
	c.cancel()
}
