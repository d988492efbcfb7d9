package client

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Client is one connection to a gateway. Create it with Dial.
type Client struct {
	conn *websocket.Conn
	opts Options
	log  *slog.Logger

	hello protocol.HelloOk // set by Dial before the reader starts

	counter atomic.Uint64 // request id prefix; connect is 1
	writeMu sync.Mutex    // gorilla allows one writer at a time

	mu      sync.Mutex
	pending map[string]*pendingCall
	closing bool  // Close was called
	err     error // terminal error, set once before done closes

	done      chan struct{} // closed when the reader goroutine exits
	closeOnce sync.Once

	events  chan protocol.Inbound // closed by the reader goroutine on exit
	dropped atomic.Uint64
	lastSeq uint64 // reader goroutine only
}

// pendingCall waits for the response to one request.
type pendingCall struct {
	method string
	final  bool // interim "accepted" responses are skipped
	ch     chan protocol.Inbound
}

func newClient(conn *websocket.Conn, opts Options) *Client {
	conn.SetReadLimit(protocol.MaxPayload + 1<<20)
	return &Client{
		conn:    conn,
		opts:    opts,
		log:     opts.Logger.With("component", "gateway-client"),
		pending: make(map[string]*pendingCall),
		done:    make(chan struct{}),
		events:  make(chan protocol.Inbound, opts.EventBuffer),
	}
}

// Hello returns the hello-ok payload the gateway sent on connect.
func (c *Client) Hello() protocol.HelloOk { return c.hello }

// Events returns the channel of server events (tick, health, agent, ...).
// Its capacity is Options.EventBuffer; when it is full the oldest queued
// event is dropped (see DroppedEvents). It is closed when the connection
// ends, after Close or after the gateway drops the link.
func (c *Client) Events() <-chan protocol.Inbound { return c.events }

// DroppedEvents counts events discarded because Events was full.
func (c *Client) DroppedEvents() uint64 { return c.dropped.Load() }

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns nil while the connection is up, ErrClosed after Close, or an
// error wrapping ErrConnectionLost after the link failed.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close shuts the connection and waits for the reader goroutine to exit.
// Calls in flight return ErrClosed. It is safe to call more than once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		// WriteControl may run beside a data write; no writeMu needed.
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		_ = c.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		c.conn.Close()
	})
	<-c.done
	return nil
}

// nextID returns a request id in the "<n>:<uuid>" form real clients use.
func (c *Client) nextID() string {
	return strconv.FormatUint(c.counter.Add(1), 10) + ":" + uuid.NewString()
}

// writeRequest sends one req frame. The write deadline is ctx's, or
// DefaultWriteTimeout from now.
func (c *Client) writeRequest(ctx context.Context, id, method string, params any) error {
	req := protocol.Request{Type: protocol.KindReq, ID: id, Method: method}
	if params != nil {
		raw, err := marshalParams(params)
		if err != nil {
			return err
		}
		req.Params = raw
	}
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultWriteTimeout)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.conn.SetWriteDeadline(deadline)
	if err := c.conn.WriteMessage(websocket.TextMessage, data); err != nil {
		return lostError(err)
	}
	return nil
}

// readLoop is the one reader goroutine: it routes responses to their
// callers and events to the events channel until the socket fails.
func (c *Client) readLoop() {
	var cause error
	for {
		in, err := c.readFrame()
		if err != nil {
			cause = err
			break
		}
		switch in.Type {
		case protocol.KindRes:
			c.deliver(in)
		case protocol.KindEvent:
			c.pushEvent(in)
		default:
			c.log.Debug("ignoring frame", "type", in.Type)
		}
	}
	c.mu.Lock()
	if c.closing {
		c.err = ErrClosed
	} else {
		c.err = cause
		c.log.Debug("gateway connection lost", "err", cause)
	}
	c.pending = nil
	c.mu.Unlock()
	c.conn.Close()
	close(c.events)
	close(c.done)
}

// deliver hands a response to the call waiting for its id.
func (c *Client) deliver(in protocol.Inbound) {
	c.mu.Lock()
	pc := c.pending[in.ID]
	if pc != nil && pc.final && isAccepted(in) {
		c.mu.Unlock()
		c.log.Debug("interim ack", "id", in.ID, "method", pc.method)
		return
	}
	delete(c.pending, in.ID)
	c.mu.Unlock()
	if pc == nil {
		c.log.Debug("response for no pending call", "id", in.ID)
		return
	}
	pc.ch <- in // buffered 1, delivered once
}

// pushEvent queues an event, dropping the oldest when the queue is full.
// Only one goroutine at a time calls it (the handshake, then the reader).
func (c *Client) pushEvent(in protocol.Inbound) {
	if in.Seq != nil {
		if c.lastSeq != 0 && *in.Seq > c.lastSeq+1 {
			c.log.Debug("event sequence gap", "from", c.lastSeq, "to", *in.Seq)
		}
		c.lastSeq = *in.Seq
	}
	for {
		select {
		case c.events <- in:
			return
		default:
		}
		select {
		case <-c.events:
			c.dropped.Add(1)
		default:
		}
	}
}

// isAccepted reports whether a response is a two-stage interim ack:
// ok:true with payload.status "accepted".
func isAccepted(in protocol.Inbound) bool {
	if !in.OK || len(in.Payload) == 0 || in.Payload[0] != '{' {
		return false
	}
	var p struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(in.Payload, &p) == nil && p.Status == "accepted"
}
