package extproc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrPluginExited fails calls that were in flight, or made, when a
// plugin's process went away. The caller answers with an error result;
// the supervisor restarts the plugin with backoff.
var ErrPluginExited = errors.New("plugin process exited")

// maxLine bounds one message from a plugin; a plugin that writes more
// without a newline is treated as broken rather than grow our memory.
const maxLine = 16 << 20

// message is any JSON-RPC 2.0 message on the wire.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is an error a plugin answered with.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("plugin error %d: %s", e.Code, e.Message) }

// rpcClient is the gateway's end of one plugin process's stdio: requests
// with numeric ids out, responses and notifications in. Calls may be made
// concurrently; responses are matched by id, so a slow hook does not hold
// up a tool call.
type rpcClient struct {
	wmu sync.Mutex // one line at a time on w
	w   io.WriteCloser

	notify func(method string, params json.RawMessage)

	mu      sync.Mutex
	next    int64
	pending map[int64]chan message
	done    chan struct{} // closed when the read side ended
	err     error
}

func newRPCClient(w io.WriteCloser, notify func(string, json.RawMessage)) *rpcClient {
	return &rpcClient{w: w, notify: notify, pending: map[int64]chan message{}, done: make(chan struct{})}
}

// readLoop reads r until it ends, then fails everything pending. notify
// runs on this goroutine, so it must not call back into the client.
func (c *rpcClient) readLoop(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var msg message
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			continue // a stray line (a debug print) is not a reason to drop the plugin
		}
		switch {
		case msg.Method != "" && len(msg.ID) == 0:
			if c.notify != nil {
				c.notify(msg.Method, msg.Params)
			}
		case msg.Method != "":
			// The plugin asked us something; we serve nothing yet.
			c.send(message{JSONRPC: "2.0", ID: msg.ID, Error: &RPCError{Code: -32601, Message: "method not found: " + msg.Method}})
		default:
			var id int64
			if json.Unmarshal(msg.ID, &id) != nil {
				continue
			}
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg // buffered; nobody else sends on it
			}
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	c.mu.Lock()
	c.err = fmt.Errorf("%w: %v", ErrPluginExited, err)
	c.pending = nil
	c.mu.Unlock()
	close(c.done)
}

func (c *rpcClient) send(msg message) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// call sends a request and waits for its answer, ctx or the plugin's end.
// out may be nil.
func (c *rpcClient) call(ctx context.Context, method string, params, out any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.pending == nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		if c.pending != nil {
			delete(c.pending, id)
		}
		c.mu.Unlock()
	}

	idb, _ := json.Marshal(id)
	// A plugin that stops reading its stdin fills the pipe and blocks the
	// write; writing aside keeps ctx (a hook's 2 s) in charge. The write
	// ends when the process is killed and the pipe closes.
	wrote := make(chan error, 1)
	go func() { wrote <- c.send(message{JSONRPC: "2.0", ID: idb, Method: method, Params: p}) }()
	for {
		select {
		case err := <-wrote:
			if err != nil {
				forget()
				return fmt.Errorf("%w: write %s: %v", ErrPluginExited, method, err)
			}
			wrote = nil
		case msg := <-ch:
			return decodeResult(method, msg, out)
		case <-c.done:
			select {
			case msg := <-ch: // it answered just before leaving
				return decodeResult(method, msg, out)
			default:
			}
			c.mu.Lock()
			err := c.err
			c.mu.Unlock()
			return err
		case <-ctx.Done():
			// A late answer finds no pending entry and is dropped.
			forget()
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
	}
}

func decodeResult(method string, msg message, out any) error {
	if msg.Error != nil {
		return msg.Error
	}
	if out != nil {
		if err := json.Unmarshal(msg.Result, out); err != nil {
			return fmt.Errorf("%s: decode result: %w", method, err)
		}
	}
	return nil
}
