package rpc

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// handshakeError is a refused connect: the error answer and how to close.
type handshakeError struct {
	err    *protocol.Error
	close  int
	reason string
}

func refuse(err *protocol.Error, reason string) *handshakeError {
	return &handshakeError{err: err, close: protocol.ClosePolicy, reason: reason}
}

// connect validates the connect request and authenticates it.
func (s *Server) connect(c *Conn, req *protocol.Request, nonce string) (*protocol.HelloOk, *handshakeError) {
	var p protocol.ConnectParams
	if err := json.Unmarshal(req.Params, &p); err != nil || len(req.Params) == 0 {
		if err == nil {
			err = errors.New("params required")
		}
		msg := fmt.Sprintf("invalid connect params: %v", err)
		return nil, refuse(protocol.Errorf(protocol.CodeInvalidRequest, "%s", msg), "invalid connect params")
	}
	if err := validateConnect(&p); err != nil {
		msg := "invalid connect params: " + err.Error()
		return nil, refuse(protocol.Errorf(protocol.CodeInvalidRequest, "%s", msg), "invalid connect params")
	}
	role := protocol.Role(p.Role)
	if role == "" {
		role = protocol.RoleOperator
	}
	if role != protocol.RoleOperator && role != protocol.RoleNode {
		return nil, refuse(protocol.Errorf(protocol.CodeInvalidRequest, "invalid role"), "invalid role")
	}
	if !protocolAccepted(&p) {
		return nil, &handshakeError{
			err: protocol.Errorf(protocol.CodeInvalidRequest, "protocol mismatch").WithDetails(map[string]any{
				"code": protocol.DetailProtocolMismatch, "clientMinProtocol": p.MinProtocol, "clientMaxProtocol": p.MaxProtocol,
				"expectedProtocol": protocol.Version, "minimumProbeProtocol": protocol.MinProbeVersion,
			}),
			close: protocol.CloseProtocolMismatch, reason: "protocol mismatch",
		}
	}
	c.role, c.client, c.params = role, p.Client, &p

	cfg := s.opts.Auth()
	bucketKey := rateLimitKey(c.ip, c.origin)
	limited := !(cfg.RateLimit.ExemptLoopback && c.Local())
	if limited {
		if wait, locked := s.limiter.locked(bucketKey); locked {
			retry := true
			ms := wait.Milliseconds()
			e := protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: too many failed authentication attempts (retry later)").
				WithDetails(authDetails(protocol.DetailAuthRateLimited, "rate_limited", false, "wait_then_retry"))
			e.Retryable, e.RetryAfterMs = &retry, &ms
			s.auditFailure(c, &p, protocol.DetailAuthRateLimited)
			return nil, refuse(e, "rate limited")
		}
	}
	failAuth := func(e *protocol.Error, reason string) *handshakeError {
		code := detailCode(e)
		s.auditFailure(c, &p, code)
		if limited && s.limiter.fail(bucketKey, cfg.RateLimit) {
			s.log.Warn("locking out client after failed connects", "bucket", bucketKey)
		}
		return refuse(e, reason)
	}

	// 1. Shared secret or device token.
	auth := p.Auth
	if auth == nil {
		auth = &protocol.ConnectAuth{}
	}
	shared := false
	useDeviceToken := false
	switch cfg.Mode {
	case "none":
		shared = true
		c.authMethod = "none"
	case "token", "password", "":
		secret, given, kind := cfg.Token, auth.Token, "token"
		if cfg.Mode == "password" {
			secret, given, kind = cfg.Password, auth.Password, "password"
		}
		switch {
		case secret == "":
			return nil, failAuth(protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: gateway %s not configured", kind).
				WithDetails(authDetails("AUTH_"+strings.ToUpper(kind)+"_NOT_CONFIGURED", kind+"_missing_config", false, "update_auth_configuration")), "unauthorized")
		case given != "":
			if subtle.ConstantTimeCompare([]byte(given), []byte(secret)) != 1 {
				canRetry := kind == "token" && p.Device != nil && auth.DeviceToken == ""
				next := "update_auth_credentials"
				if canRetry {
					next = "retry_with_device_token"
				}
				return nil, failAuth(protocol.Errorf(protocol.CodeInvalidRequest,
					"unauthorized: gateway %s mismatch (use this gateway's gateway.auth.%s or pair the device)", kind, kind).
					WithDetails(authDetails("AUTH_"+strings.ToUpper(kind)+"_MISMATCH", kind+"_mismatch", canRetry, next)), "unauthorized: "+kind+" mismatch")
			}
			shared = true
			c.authMethod = kind
		case auth.DeviceToken != "" && p.Device != nil:
			useDeviceToken = true
			c.authMethod = "device-token"
		case p.Auth == nil && p.Device == nil:
			return nil, failAuth(protocol.Errorf(protocol.CodeNotPaired, "device identity required").
				WithDetails(map[string]any{"code": protocol.DetailDeviceIdentityRequired}), "device identity required")
		default:
			return nil, failAuth(protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: gateway %s missing", kind).
				WithDetails(authDetails("AUTH_"+strings.ToUpper(kind)+"_MISSING", kind+"_missing", false, "update_auth_credentials")), "unauthorized: "+kind+" missing")
		}
	case "trusted-proxy":
		id := c.proxy
		switch {
		case id != nil && id.user != "":
			shared = true
			c.authMethod = "trusted-proxy"
		case c.Local() && auth.Password != "" && cfg.Password != "":
			// Internal clients on this host that do not go through the
			// proxy use the password; never a forwarded request.
			if subtle.ConstantTimeCompare([]byte(auth.Password), []byte(cfg.Password)) != 1 {
				return nil, failAuth(protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: gateway password mismatch").
					WithDetails(authDetails("AUTH_PASSWORD_MISMATCH", "password_mismatch", false, "update_auth_credentials")), "unauthorized: password mismatch")
			}
			shared = true
			c.authMethod = "password"
		default:
			reason := "trusted_proxy_no_request"
			if id != nil {
				reason = id.reason
			}
			return nil, failAuth(protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: trusted proxy auth failed (%s)", reason).
				WithDetails(authDetails(protocol.DetailAuthUnauthorized, reason, false, "review_auth_configuration")), "unauthorized: "+reason)
		}
	default:
		return nil, failAuth(protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: auth mode %q is not supported by this gateway", cfg.Mode).
			WithDetails(authDetails(protocol.DetailAuthUnauthorized, "unsupported_mode", false, "review_auth_configuration")), "unauthorized")
	}

	// 2. Device identity.
	var grant DeviceGrant
	if p.Device != nil {
		if derr := verifyDevice(&p, string(role), nonce, s.opts.Now()); derr != nil {
			return nil, failAuth(derr, "device authentication failed")
		}
		c.deviceID = p.Device.ID
		dc := DeviceConnect{
			DeviceID: p.Device.ID, PublicKey: p.Device.PublicKey, Role: role, Scopes: protocol.NormalizeScopes(p.Scopes),
			Client: p.Client, RemoteIP: c.ip, Local: c.Local(), SharedSecret: shared,
		}
		if c.authMethod == "trusted-proxy" {
			// The client is behind the proxy: neither local nor in a
			// CIDR that pairs without asking, whatever the proxy's
			// own address is.
			dc.Local = false
			dc.ProxyUser = c.proxy.user
			dc.ProxyAutoApprove = cfg.TrustedProxy.AutoApprove
			dc.ProxyScopeCap, dc.ProxyHasCap = c.proxy.scopeCap, c.proxy.hasCap
		}
		if role == protocol.RoleNode {
			dc.Scopes = []string{}
		}
		if s.opts.Pairing == nil {
			return nil, refuse(protocol.Errorf(protocol.CodeNotPaired, "pairing unavailable"), "pairing unavailable")
		}
		ctx, cancel := context.WithTimeout(c.ctx, s.opts.HandshakeTimeout)
		defer cancel()
		if useDeviceToken {
			scopes, err := s.opts.Pairing.VerifyDeviceToken(ctx, p.Device.ID, string(role), auth.DeviceToken)
			if err != nil {
				return nil, failAuth(protocol.AsError(err), "unauthorized: device token mismatch")
			}
			dc.DeviceTokenScopes = scopes
		}
		g, err := s.opts.Pairing.AuthorizeDevice(ctx, dc)
		if err != nil {
			pe := protocol.AsError(err)
			s.auditFailure(c, &p, detailCode(pe))
			reason := pe.Message
			if m, ok := pe.Details.(map[string]any); ok && m["requestId"] != nil {
				reason = fmt.Sprintf("%s (requestId: %v)", pe.Message, m["requestId"])
			}
			return nil, refuse(pe, reason)
		}
		grant = g
		c.deviceToken = g.DeviceToken
	} else {
		switch {
		case role == protocol.RoleNode:
			return nil, failAuth(protocol.Errorf(protocol.CodeNotPaired, "device identity required").
				WithDetails(map[string]any{"code": protocol.DetailDeviceIdentityRequired}), "device identity required")
		case p.Client.Mode == "probe":
			// A device-less probe learns only that it can connect.
			grant.Scopes = []string{}
		case shared && c.Local() && c.authMethod != "trusted-proxy":
			// The local CLI with the shared secret keeps what it asked for.
			grant.Scopes = protocol.NormalizeScopes(p.Scopes)
		default:
			// Self-declared scopes of a device-less remote client are not
			// trusted.
			grant.Scopes = []string{}
		}
	}
	if c.authMethod == "trusted-proxy" && role == protocol.RoleOperator {
		grant.Scopes = proxyScopes(grant.Scopes, c.proxy, cfg.TrustedProxy)
	}
	if grant.Scopes == nil || role == protocol.RoleNode {
		grant.Scopes = []string{}
	}
	c.scopes = grant.Scopes
	hello := &protocol.HelloOk{
		Type:     "hello-ok",
		Protocol: protocol.Version,
		Server:   protocol.ServerInfo{Version: s.opts.Version, BootID: s.bootID, ConnID: c.id},
		Features: protocol.Features{Methods: s.Methods(), Events: protocol.AdvertisedEvents, Capabilities: []string{}},
		Auth: protocol.HelloAuth{Method: c.authMethod, Role: string(role), Scopes: grant.Scopes,
			DeviceToken: grant.DeviceToken, IssuedAtMs: grant.IssuedAtMs},
		Policy: protocol.Policy{MaxPayload: protocol.MaxPayload, MaxBufferedBytes: int64(s.opts.MaxBufferedBytes),
			TickIntervalMs: s.opts.TickInterval.Milliseconds()},
	}
	if s.opts.Hello != nil {
		hello.Snapshot = s.opts.Hello(c)
	}
	if hello.Snapshot.Presence == nil {
		hello.Snapshot.Presence = []protocol.PresenceEntry{}
	}
	if hello.Snapshot.Health == nil {
		hello.Snapshot.Health = map[string]any{}
	}
	return hello, nil
}

func authDetails(code, reason string, canRetry bool, next string) map[string]any {
	return map[string]any{"code": code, "authReason": reason, "canRetryWithDeviceToken": canRetry, "recommendedNextStep": next}
}

func detailCode(e *protocol.Error) string {
	if m, ok := e.Details.(map[string]any); ok {
		if s, ok := m["code"].(string); ok {
			return s
		}
	}
	return e.Code
}

func (s *Server) auditFailure(c *Conn, p *protocol.ConnectParams, code string) {
	s.log.Warn("connect refused", "remote", c.ip, "client", p.Client.ID, "role", p.Role, "code", code)
	if s.opts.OnAuthFailure == nil {
		return
	}
	f := AuthFailure{RemoteIP: c.ip.String(), Origin: c.origin, ClientID: p.Client.ID, Role: p.Role, Code: code, At: s.opts.Now()}
	if p.Device != nil {
		f.DeviceID = p.Device.ID
	}
	s.opts.OnAuthFailure(c.ctx, f)
}

// protocolAccepted admits clients whose range includes ours. Probes
// (3..4) and node hosts (3..4) include 4, so no legacy envelope is needed.
func protocolAccepted(p *protocol.ConnectParams) bool {
	return p.MinProtocol <= protocol.Version && protocol.Version <= p.MaxProtocol
}

func validateConnect(p *protocol.ConnectParams) error {
	var problems []string
	if p.MinProtocol < 1 || p.MaxProtocol < 1 {
		problems = append(problems, "minProtocol and maxProtocol must be integers >= 1")
	}
	if p.Client.ID == "" {
		problems = append(problems, "client.id is required")
	} else if !slices.ContainsFunc(protocol.ClientIDs, func(id string) bool { return strings.EqualFold(id, p.Client.ID) }) {
		problems = append(problems, fmt.Sprintf("client.id %q is not a known client id", p.Client.ID))
	}
	if p.Client.Version == "" {
		problems = append(problems, "client.version is required")
	}
	if p.Client.Platform == "" {
		problems = append(problems, "client.platform is required")
	}
	if !slices.Contains(protocol.ClientModes, p.Client.Mode) {
		problems = append(problems, fmt.Sprintf("client.mode %q is not a known mode", p.Client.Mode))
	}
	if d := p.Device; d != nil && (d.ID == "" || d.PublicKey == "" || d.Signature == "") {
		problems = append(problems, "device.id, device.publicKey and device.signature are required")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}
