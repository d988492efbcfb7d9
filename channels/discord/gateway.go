package discord

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/channels"
)

// intents are the gateway events the adapter asks for. MessageContent is
// privileged: it must be enabled for the bot in the developer portal, or
// Discord closes the connection with 4014.
const intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentsDirectMessages |
	discordgo.IntentsMessageContent | discordgo.IntentsGuildMessageReactions | discordgo.IntentsDirectMessageReactions

// stableAfter is how long a connection must last for the reconnect
// backoff to start again from BackoffMin.
const stableAfter = time.Minute

// maxFrame caps one gateway frame.
const maxFrame = 16 << 20

// Gateway opcodes.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opResume         = 6
	opReconnect      = 7
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatAck   = 11
)

// frame is one gateway payload.
type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d,omitempty"`
	S  *int64          `json:"s,omitempty"`
	T  string          `json:"t,omitempty"`
}

// session is what a resume needs; it survives reconnects.
type session struct {
	id        string
	resumeURL string
	seq       int64
	dialFails int // failed dials of resumeURL in a row
}

// maxResumeDials is how many failed dials of the resume URL end the
// session: then a fresh identify asks gateway/bot for a URL again.
const maxResumeDials = 3

// fatalError ends the gateway loop for good: the token or the settings
// were refused and retrying cannot help.
type fatalError struct {
	detail string
	err    error
}

func (e *fatalError) Error() string { return e.detail + ": " + e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// errSilent is why a connection was dropped by the receive watchdog.
var errSilent = errors.New("no event and no heartbeat ACK for two heartbeat intervals")

// run is the adapter's one long-lived goroutine: connect, read until the
// connection ends, back off, resume or identify again, until ctx ends or
// the token is refused.
func (a *Adapter) run(ctx context.Context) {
	var sess session
	failures := 0
	for ctx.Err() == nil {
		began := time.Now()
		ready, err := a.connectOnce(ctx, &sess)
		if ctx.Err() != nil {
			return
		}
		var fe *fatalError
		if errors.As(err, &fe) {
			a.log.Error("discord refused the bot; gateway stopped until the settings are fixed", "err", err)
			a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: fe.detail, LastError: a.scrub(err.Error())})
			return
		}
		if ready && time.Since(began) >= stableAfter {
			// Only a connection that lasted resets the backoff, so a
			// gateway that drops us right after READY is not hammered.
			failures = 0
		}
		failures++
		msg := "gateway connection lost"
		if err != nil {
			msg = a.scrub(err.Error())
		}
		a.log.Warn("discord gateway disconnected; reconnecting", "attempt", failures, "resume", sess.id != "", "err", msg)
		a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: failures,
			Detail: "gateway disconnected", LastError: msg})
		if !channels.Sleep(ctx, a.backoff(failures-1, err)) {
			return
		}
	}
}

// connectOnce runs one gateway connection: dial, HELLO, IDENTIFY or
// RESUME, then the reader until it fails. ready says whether the
// connection got as far as READY or RESUMED.
func (a *Adapter) connectOnce(ctx context.Context, sess *session) (ready bool, err error) {
	url := sess.resumeURL
	resume := sess.id != "" && url != ""
	if !resume {
		*sess = session{}
		if url, err = a.gatewayURL(ctx); err != nil {
			return false, err
		}
	}
	dialer := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 30 * time.Second}
	if u := a.proxyURL(); u != nil {
		dialer.Proxy = http.ProxyURL(u)
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	conn, resp, err := dialer.DialContext(dctx, withQuery(url), nil)
	cancel()
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		// The session stays for a few tries: a network outage does not
		// end it, and Discord answers a stale resume with op 9.
		if resume {
			if sess.dialFails++; sess.dialFails >= maxResumeDials {
				sess.id = ""
			}
		}
		return false, fmt.Errorf("dial gateway: %w", err)
	}
	sess.dialFails = 0
	conn.SetReadLimit(maxFrame)
	c := &gwConn{a: a, conn: conn, sess: sess, done: make(chan struct{})}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer c.close()
	return c.serve(ctx, resume)
}

// gatewayURL is Options.GatewayURL or the answer of GET gateway/bot.
func (a *Adapter) gatewayURL(ctx context.Context) (string, error) {
	if a.opts.GatewayURL != "" {
		return a.opts.GatewayURL, nil
	}
	var gb *discordgo.GatewayBotResponse
	err := a.call(ctx, "get gateway", func(o ...discordgo.RequestOption) (err error) {
		gb, err = a.rest.GatewayBot(o...)
		return err
	})
	if err != nil {
		if isUnauthorized(err) {
			return "", &fatalError{detail: "bot token refused (401 Unauthorized)", err: err}
		}
		return "", err
	}
	if gb == nil || gb.URL == "" || gb.URL == "/" {
		return "", fmt.Errorf("discord get gateway: %w: no url", ErrMalformedResponse)
	}
	return gb.URL, nil
}

func withQuery(u string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "v=" + discordgo.APIVersion + "&encoding=json"
}

// gwConn is one gateway WebSocket connection.
type gwConn struct {
	a    *Adapter
	conn *websocket.Conn
	sess *session
	wmu  sync.Mutex   // one writer at a time
	seq  atomic.Int64 // last stored sequence, for heartbeats
	done chan struct{}
	once sync.Once
}

func (c *gwConn) close() {
	c.once.Do(func() {
		close(c.done)
		c.conn.Close()
	})
}

func (c *gwConn) write(v any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return c.conn.WriteJSON(v)
}

// read reads one frame, waiting at most wait (the watchdog). A frame
// that is not JSON comes back with ok false and no error.
func (c *gwConn) read(wait time.Duration) (f frame, ok bool, err error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(wait))
	_, data, err := c.conn.ReadMessage()
	if err != nil {
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) && ne.Timeout() {
			return frame{}, false, errSilent
		}
		return frame{}, false, closeError(err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return frame{}, false, nil
	}
	return f, true, nil
}

// closeError turns Discord's fatal close codes into *fatalError.
func closeError(err error) error {
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return err
	}
	detail := ""
	switch ce.Code {
	case 4004:
		detail = "bot token refused (gateway close 4004)"
	case 4010, 4011:
		detail = fmt.Sprintf("sharding refused (gateway close %d)", ce.Code)
	case 4012:
		detail = "gateway version refused (close 4012)"
	case 4013, 4014:
		detail = fmt.Sprintf("intents refused (gateway close %d): enable the Message Content intent for the bot", ce.Code)
	default:
		return err
	}
	return &fatalError{detail: detail, err: err}
}

// Errors that end a connection and ask for another.
var (
	errReconnect      = errors.New("gateway asked to reconnect (op 7)")
	errInvalidSession = errors.New("gateway invalidated the session (op 9)")
)

// serve runs the handshake and the reader of one connection.
func (c *gwConn) serve(ctx context.Context, resume bool) (ready bool, err error) {
	a := c.a
	hello, ok, err := c.read(60 * time.Second)
	if err != nil {
		return false, fmt.Errorf("read HELLO: %w", err)
	}
	var h struct {
		Interval float64 `json:"heartbeat_interval"`
	}
	if !ok || hello.Op != opHello || json.Unmarshal(hello.D, &h) != nil || h.Interval <= 0 {
		return false, fmt.Errorf("gateway did not start with HELLO (op %d)", hello.Op)
	}
	interval := time.Duration(h.Interval * float64(time.Millisecond))
	c.seq.Store(c.sess.seq)
	go c.heartbeat(interval)

	if resume {
		err = c.write(map[string]any{"op": opResume, "d": map[string]any{
			"token": a.opts.Token, "session_id": c.sess.id, "seq": c.sess.seq}})
	} else {
		identify := map[string]any{
			"token":   a.opts.Token,
			"intents": intents,
			"properties": map[string]string{
				"os": "linux", "browser": "openclaw-go", "device": "openclaw-go",
			},
		}
		if a.opts.Presence != nil {
			identify["presence"] = a.opts.Presence
		}
		err = c.write(map[string]any{"op": opIdentify, "d": identify})
	}
	if err != nil {
		return false, fmt.Errorf("send %s: %w", map[bool]string{true: "RESUME", false: "IDENTIFY"}[resume], err)
	}

	watchdog := 2 * interval
	for {
		f, ok, err := c.read(watchdog)
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && (ce.Code == 4007 || ce.Code == 4009) {
				c.sess.id = "" // sequence or session no longer valid: identify
			}
			return ready, err
		}
		if !ok {
			a.log.Warn("discord gateway frame is not JSON; skipped")
			continue
		}
		switch f.Op {
		case opDispatch:
			if !c.dispatch(ctx, f, &ready) {
				return ready, ctx.Err()
			}
		case opHeartbeat:
			if err := c.beat(); err != nil {
				return ready, err
			}
		case opReconnect:
			return ready, errReconnect
		case opInvalidSession:
			var resumable bool
			_ = json.Unmarshal(f.D, &resumable)
			if !resumable {
				c.sess.id = ""
			}
			return ready, errInvalidSession
		case opHeartbeatAck:
			// The read deadline moved on; that is all an ACK is for.
		}
	}
}

// dispatch handles one op 0 event. It returns false when ctx ended while
// the event was being stored.
func (c *gwConn) dispatch(ctx context.Context, f frame, ready *bool) bool {
	a := c.a
	switch f.T {
	case "READY":
		var r struct {
			SessionID        string `json:"session_id"`
			ResumeGatewayURL string `json:"resume_gateway_url"`
			User             struct {
				ID       string `json:"id"`
				Username string `json:"username"`
			} `json:"user"`
			Application struct {
				ID string `json:"id"`
			} `json:"application"`
		}
		if err := json.Unmarshal(f.D, &r); err != nil || r.User.ID == "" {
			a.log.Warn("discord READY undecodable", "err", err)
			break
		}
		c.sess.id, c.sess.resumeURL = r.SessionID, r.ResumeGatewayURL
		a.self.Store(&botIdentity{ID: r.User.ID, Username: r.User.Username, AppID: cmp.Or(r.Application.ID, r.User.ID)})
		*ready = true
		a.log.Info("discord gateway connected", "bot", r.User.Username)
		a.life.Report(channels.Status{State: channels.StateConnected, Bot: r.User.Username})
	case "RESUMED":
		*ready = true
		a.log.Info("discord gateway resumed")
		a.life.Report(channels.Status{State: channels.StateConnected})
	default:
		if !a.handle(ctx, f.T, f.D) {
			return false
		}
	}
	if f.S != nil {
		// Only now, with the event stored, does a resume skip it.
		c.sess.seq = *f.S
		c.seq.Store(*f.S)
	}
	return true
}

// heartbeat sends op 1 every interval (the first after a random part of
// it, as Discord asks) until the connection ends.
func (c *gwConn) heartbeat(interval time.Duration) {
	t := time.NewTimer(time.Duration(rand.Int64N(int64(interval)) + 1))
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		if err := c.beat(); err != nil {
			c.conn.Close() // the reader sees it and reconnects
			return
		}
		t.Reset(interval)
	}
}

func (c *gwConn) beat() error {
	var d any
	if s := c.seq.Load(); s > 0 {
		d = s
	}
	return c.write(map[string]any{"op": opHeartbeat, "d": d})
}

// backoff is the wait before attempt n+1 (see channels.Backoff).
func (a *Adapter) backoff(n int, err error) time.Duration {
	return channels.Backoff(a.opts.BackoffMin, a.opts.BackoffMax, n, err)
}
