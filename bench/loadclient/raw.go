package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// conn is one load connection: a bare socket with one call in flight, so
// the client spends as little CPU as it can and leaves the cores to the
// gateway under test (it runs on the same machine). The same client
// measures every gateway, so the ratios stay fair.
type conn struct {
	ws    *websocket.Conn
	next  int
	index int // which load connection, from 0
	sent  int // load requests sent (warm-up included)
	ack   time.Duration
	buf   bytes.Buffer // the last frame read
}

// dial opens a socket and performs the handshake as the real CLI does:
// wait for connect.challenge, send connect (client cli/cli, operator,
// the -scope scope, token, protocol 4), read hello-ok. It returns the time
// from opening the socket to hello-ok.
func dial(ctx context.Context, cfg config) (*conn, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	start := time.Now()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, cfg.URL, nil)
	if err != nil {
		return nil, 0, err
	}
	if dl, ok := ctx.Deadline(); ok {
		ws.SetReadDeadline(dl)
	}
	c := &conn{ws: ws, next: 1}
	var ev protocol.Inbound
	if err := ws.ReadJSON(&ev); err != nil || ev.Event != protocol.EventConnectChallenge {
		ws.Close()
		return nil, 0, fmt.Errorf("no connect.challenge: %v", err)
	}
	params := protocol.ConnectParams{
		MinProtocol: protocol.Version, MaxProtocol: protocol.Version,
		Client: protocol.ClientInfo{ID: "cli", Version: "bench", Platform: "linux", DeviceFamily: "Linux", Mode: "cli", InstanceID: uuid.NewString()},
		Caps:   []string{}, Role: string(protocol.RoleOperator), Scopes: []string{cfg.Scope},
		Auth: &protocol.ConnectAuth{Token: cfg.Token},
	}
	res, err := c.call("connect", params)
	if err != nil {
		ws.Close()
		return nil, 0, err
	}
	if !res.OK {
		ws.Close()
		return nil, 0, responseError(res)
	}
	ws.SetReadDeadline(time.Time{})
	return c, time.Since(start), nil
}

// dialWithin connects as dial does, trying again every 100 ms while the
// gateway refuses the socket or closes it before hello-ok, for at most
// cfg.ConnectWithin. It returns the time from the first attempt to
// hello-ok and how many attempts that took.
func dialWithin(ctx context.Context, cfg config) (time.Duration, int, error) {
	start := time.Now()
	for attempts := 1; ; attempts++ {
		c, _, err := dial(ctx, cfg)
		if err == nil {
			d := time.Since(start)
			c.Close()
			return d, attempts, nil
		}
		if ctx.Err() != nil || time.Since(start)+100*time.Millisecond > cfg.ConnectWithin {
			return 0, attempts, fmt.Errorf("no hello-ok after %d attempts in %s: %w", attempts, time.Since(start).Round(time.Millisecond), err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// call sends one request and reads until its response, skipping events.
// For a two-stage method it reads past the {status:"accepted"} answer to
// the final one and keeps in c.ack how long the first took. The frame's
// payload is valid until the next call.
func (c *conn) call(method string, params any) (frame, error) {
	start, acked := time.Now(), false
	c.ack = 0
	id := strconv.Itoa(c.next) + ":bench"
	c.next++
	req := protocol.Request{Type: protocol.KindReq, ID: id, Method: method}
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return frame{}, err
		}
		req.Params = p
	}
	b, err := json.Marshal(req)
	if err != nil {
		return frame{}, err
	}
	if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
		return frame{}, err
	}
	for {
		data, err := c.read()
		if err != nil {
			return frame{}, err
		}
		in, err := parseFrame(data)
		if err != nil {
			return frame{}, fmt.Errorf("read %s response: %w", method, err)
		}
		if in.Type != protocol.KindRes || in.ID != id {
			continue
		}
		if twoStage(method) && in.OK && !acked && accepted(in.Payload) {
			acked, c.ack = true, time.Since(start)
			continue
		}
		return in, nil
	}
}

// read returns the next text frame in the connection's reused buffer.
func (c *conn) read() ([]byte, error) {
	for {
		kind, r, err := c.ws.NextReader()
		if err != nil {
			return nil, err
		}
		if kind != websocket.TextMessage {
			continue
		}
		c.buf.Reset()
		if _, err := c.buf.ReadFrom(r); err != nil {
			return nil, err
		}
		return c.buf.Bytes(), nil
	}
}

// responseError is the error of a response that was not ok.
func responseError(f frame) error {
	if f.ErrorRaw == nil {
		return errors.New("error response without error")
	}
	var e protocol.Error
	if err := json.Unmarshal(f.ErrorRaw, &e); err != nil {
		return fmt.Errorf("error response: %w", err)
	}
	return &e
}

// do performs one load request and returns its latency.
func (c *conn) do(method string, params any) (time.Duration, error) {
	start := time.Now()
	res, err := c.call(method, params)
	d := time.Since(start)
	if err != nil {
		return d, err
	}
	if !res.OK {
		return d, responseError(res)
	}
	if method == "agent" {
		return d, agentOutcome(res.Payload)
	}
	return d, nil
}

func (c *conn) Close() error { return c.ws.Close() }
