package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// transportError is a failure to reach or keep talking to the gateway,
// reported as type gateway_transport_error.
type transportError struct {
	target      target
	err         error
	timeout     time.Duration // set when --timeout ran out
	unreachable bool          // nothing accepted the connection
}

func (e *transportError) Error() string {
	if e.timeout > 0 {
		return "gateway timeout after " + strconv.FormatInt(e.timeout.Milliseconds(), 10) + "ms (" + e.target.String() + ")"
	}
	return e.err.Error()
}

func (e *transportError) Unwrap() error { return e.err }

// session is an open connection for one command.
type session struct {
	*client.Client
	target target
	flags  *gatewayFlags
}

// connect resolves the target and dials it asking for scopes. Shared
// secrets to a loopback gateway need no device identity, as with the real
// CLI; otherwise the CLI's device key signs the connect.
func (a *app) connect(ctx context.Context, g *gatewayFlags, scopes []string) (*session, error) {
	if g.timeoutMs <= 0 {
		return nil, usageErrorf("--timeout must be a positive number of milliseconds")
	}
	t, err := resolveTarget(g)
	if err != nil {
		return nil, err
	}
	opts := client.Options{
		URL:            t.url,
		TLSFingerprint: g.tlsPin,
		Token:          t.token,
		Password:       t.password,
		Role:           protocol.RoleOperator,
		Scopes:         scopes,
		Version:        version,
		Logger:         slog.New(slog.DiscardHandler),
	}
	if !t.loopback || (t.token == "" && t.password == "") {
		path, err := identityPath(g.dev)
		if err != nil {
			return nil, err
		}
		if opts.Identity, err = client.LoadOrCreateDeviceIdentity(path); err != nil {
			return nil, err
		}
	}
	c, err := client.Dial(ctx, opts)
	if err != nil {
		return nil, classify(err, t, g)
	}
	return &session{Client: c, target: t, flags: g}, nil
}

// call runs one method, waiting for the final answer of a two-stage
// method when final is set.
func (s *session) call(ctx context.Context, method string, params, out any, final bool) error {
	var err error
	if final {
		err = s.CallFinal(ctx, method, params, out)
	} else {
		err = s.Call(ctx, method, params, out)
	}
	if err != nil {
		return classify(err, s.target, s.flags)
	}
	return nil
}

// callOnce connects, runs one method and disconnects, all within
// --timeout.
func (a *app) callOnce(ctx context.Context, g *gatewayFlags, method string, scopes []string, params, out any, final bool) error {
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(ctx, g, scopes)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.call(ctx, method, params, out, final)
}

// classify keeps gateway error responses as they are and turns everything
// else into a transportError.
func classify(err error, t target, g *gatewayFlags) error {
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return perr
	}
	te := &transportError{target: t, err: err}
	if errors.Is(err, context.DeadlineExceeded) {
		te.timeout = g.timeout()
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		te.unreachable = true
	}
	return te
}
