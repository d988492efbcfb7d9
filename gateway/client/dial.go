package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Dial connects to a gateway and completes the connect handshake. It
// returns a *protocol.Error when the gateway refuses the connect (check
// details.code, e.g. AUTH_TOKEN_MISMATCH or PAIRING_REQUIRED); any other
// error means the gateway could not be reached or broke the handshake.
//
// ctx bounds the handshake only, together with Options.HandshakeTimeout.
func Dial(ctx context.Context, opts Options) (*Client, error) {
	if opts.URL == "" {
		return nil, errors.New("dial gateway: no url")
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.HandshakeTimeout)
	defer cancel()

	dialer := websocket.Dialer{
		Proxy:             http.ProxyFromEnvironment,
		HandshakeTimeout:  opts.HandshakeTimeout,
		EnableCompression: true,
	}
	if opts.TLSFingerprint != "" {
		pin, err := parseFingerprint(opts.TLSFingerprint)
		if err != nil {
			return nil, fmt.Errorf("dial gateway: %w", err)
		}
		dialer.TLSClientConfig = pinnedTLS(pin)
	}
	conn, resp, err := dialer.DialContext(ctx, opts.URL, opts.Header)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial gateway %s: %w (http %d)", opts.URL, err, resp.StatusCode)
		}
		return nil, fmt.Errorf("dial gateway %s: %w", opts.URL, err)
	}
	c := newClient(conn, opts)
	hello, err := c.handshake(ctx)
	if err != nil {
		conn.Close()
		return nil, err
	}
	c.hello = hello
	c.log.Debug("gateway connected", "url", opts.URL, "connId", hello.Server.ConnID,
		"protocol", hello.Protocol, "scopes", hello.Auth.Scopes)
	go c.readLoop()
	return c, nil
}

// handshake runs challenge, connect and hello-ok on the bare socket, before
// the reader goroutine starts. Cancelling ctx closes the socket, which
// unblocks the read in progress.
func (c *Client) handshake(ctx context.Context) (protocol.HelloOk, error) {
	var hello protocol.HelloOk
	stop := context.AfterFunc(ctx, func() { c.conn.Close() })
	defer stop()
	fail := func(stage string, err error) (protocol.HelloOk, error) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return hello, fmt.Errorf("gateway handshake (%s): %w", stage, ctxErr)
		}
		return hello, err
	}

	nonce, ts, err := c.awaitChallenge()
	if err != nil {
		return fail("waiting for connect.challenge", err)
	}

	params := c.opts.connectParams()
	if id := c.opts.Identity; id != nil {
		if ts == nil {
			return hello, fmt.Errorf("%w: challenge timestamp missing", ErrBadChallenge)
		}
		params.Device = id.Proof(protocol.SignedFields{
			ClientID:     params.Client.ID,
			ClientMode:   params.Client.Mode,
			Role:         params.Role,
			Scopes:       params.Scopes,
			SignedAtMs:   *ts,
			Token:        params.Auth.SignedToken(),
			Nonce:        nonce,
			Platform:     params.Client.Platform,
			DeviceFamily: params.Client.DeviceFamily,
		})
	}
	id := c.nextID()
	if err := c.writeRequest(ctx, id, "connect", params); err != nil {
		return fail("sending connect", err)
	}

	res, err := c.awaitResponse(id)
	if err != nil {
		return fail("waiting for hello-ok", err)
	}
	if !res.OK {
		return hello, responseError(res)
	}
	if err := json.Unmarshal(res.Payload, &hello); err != nil {
		return hello, fmt.Errorf("decode hello-ok: %w", err)
	}
	if hello.Type != "" && hello.Type != "hello-ok" {
		return hello, fmt.Errorf("decode hello-ok: unexpected type %q", hello.Type)
	}
	if !stop() {
		// ctx ended as hello-ok arrived and the socket is being closed.
		return hello, fmt.Errorf("gateway handshake: %w", context.Cause(ctx))
	}
	return hello, nil
}

// awaitChallenge reads frames until connect.challenge and returns its nonce
// and ts (nil when absent). Other frames before it are ignored.
func (c *Client) awaitChallenge() (string, *int64, error) {
	for {
		in, err := c.readFrame()
		if err != nil {
			return "", nil, err
		}
		if in.Type != protocol.KindEvent || in.Event != protocol.EventConnectChallenge {
			c.log.Debug("ignoring frame before challenge", "type", in.Type, "event", in.Event)
			continue
		}
		var p struct {
			Nonce string      `json:"nonce"`
			Ts    json.Number `json:"ts"`
		}
		if err := json.Unmarshal(in.Payload, &p); err != nil {
			return "", nil, fmt.Errorf("%w: %v", ErrBadChallenge, err)
		}
		if p.Nonce == "" {
			return "", nil, fmt.Errorf("%w: nonce missing", ErrBadChallenge)
		}
		if p.Ts == "" {
			return p.Nonce, nil, nil
		}
		ts, err := strconv.ParseInt(string(p.Ts), 10, 64)
		if err != nil {
			return "", nil, fmt.Errorf("%w: timestamp %s is not an integer", ErrBadChallenge, p.Ts)
		}
		return p.Nonce, &ts, nil
	}
}

// awaitResponse reads frames until the response to id. Events that arrive
// meanwhile are queued for Events.
func (c *Client) awaitResponse(id string) (protocol.Inbound, error) {
	for {
		in, err := c.readFrame()
		if err != nil {
			return in, err
		}
		switch {
		case in.Type == protocol.KindRes && in.ID == id:
			return in, nil
		case in.Type == protocol.KindEvent:
			c.pushEvent(in)
		default:
			c.log.Debug("ignoring frame during handshake", "type", in.Type, "id", in.ID)
		}
	}
}

// readFrame reads and decodes one server frame. Frames that are not JSON
// objects are skipped.
func (c *Client) readFrame() (protocol.Inbound, error) {
	for {
		_, data, err := c.conn.ReadMessage()
		if err != nil {
			return protocol.Inbound{}, lostError(err)
		}
		var in protocol.Inbound
		if err := json.Unmarshal(data, &in); err != nil {
			c.log.Debug("ignoring undecodable frame", "err", err, "bytes", len(data))
			continue
		}
		return in, nil
	}
}

// responseError turns an ok:false response into its *protocol.Error.
func responseError(res protocol.Inbound) error {
	if res.Error != nil {
		return res.Error
	}
	return protocol.Errorf(protocol.CodeUnavailable, "request failed without an error object")
}
