package devices

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// AuthorizeDevice implements rpc.Pairing.
func (r *Registry) AuthorizeDevice(ctx context.Context, c rpc.DeviceConnect) (rpc.DeviceGrant, error) {
	role := string(c.Role)
	want := c.Scopes
	if c.DeviceTokenScopes != nil {
		// A device token never carries more than it was issued with.
		want = slices.DeleteFunc(slices.Clone(want), func(s string) bool {
			return !protocol.Satisfies(c.DeviceTokenScopes, protocol.Scope(s))
		})
	}
	d, err := r.device(ctx, c.DeviceID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return rpc.DeviceGrant{}, err
	}
	reason := ""
	switch {
	case d == nil:
		reason = "not-paired"
	case d.PublicKey != c.PublicKey && normalizeKey(d.PublicKey) != normalizeKey(c.PublicKey):
		reason = "not-paired"
	case !slices.Contains(d.Roles, role):
		reason = "role-upgrade"
	case !containsAll(d.Scopes, want):
		reason = "scope-upgrade"
	}
	if reason == "not-paired" && d == nil && c.ProxyUser != "" && c.ProxyAutoApprove != nil && proxyApprovable(c) {
		// A new browser device of a proxy-authenticated user, under
		// deviceAutoApprove: paired with what it asks for within the
		// configured scopes (all of them when it asks for none), within
		// the proxy's cap.
		c.Scopes = proxyApprovedScopes(c)
		want = c.Scopes
		if err := r.approveDirect(ctx, c); err != nil {
			return rpc.DeviceGrant{}, err
		}
		r.log.Info("paired trusted-proxy browser device automatically", "device", c.DeviceID, "user", c.ProxyUser, "scopes", want)
		reason = ""
	}
	if reason != "" {
		if !r.autoApprove(c) {
			return rpc.DeviceGrant{}, r.requirePairing(ctx, c, reason, d != nil)
		}
		if err := r.approveDirect(ctx, c); err != nil {
			return rpc.DeviceGrant{}, err
		}
		r.log.Info("paired local device automatically", "device", c.DeviceID, "role", role)
	}
	now := r.now().UnixMilli()
	r.db.ExecContext(ctx, `UPDATE devices SET last_seen_at=?, remote_ip=? WHERE device_id=?`, now, c.RemoteIP.String(), c.DeviceID)
	grant := rpc.DeviceGrant{Scopes: want}
	if c.DeviceTokenScopes != nil {
		r.db.ExecContext(ctx, `UPDATE device_tokens SET last_used_at=? WHERE device_id=? AND role=?`, now, c.DeviceID, role)
		return grant, nil
	}
	tok, err := r.issueToken(ctx, c.DeviceID, role, want)
	if err != nil {
		return rpc.DeviceGrant{}, err
	}
	grant.DeviceToken, grant.IssuedAtMs = tok, now
	return grant, nil
}

// proxyApprovable: only an operator Control UI or WebChat device.
func proxyApprovable(c rpc.DeviceConnect) bool {
	if c.Role != protocol.RoleOperator {
		return false
	}
	switch strings.ToLower(c.Client.ID) {
	case "openclaw-control-ui", "webchat-ui", "webchat":
		return true
	}
	return false
}

func proxyApprovedScopes(c rpc.DeviceConnect) []string {
	allowed := protocol.NormalizeScopes(c.ProxyAutoApprove)
	out := allowed
	if len(c.Scopes) > 0 {
		out = slices.DeleteFunc(slices.Clone(c.Scopes), func(s string) bool { return !slices.Contains(allowed, s) })
	}
	if c.ProxyHasCap {
		out = slices.DeleteFunc(slices.Clone(out), func(s string) bool { return !slices.Contains(c.ProxyScopeCap, s) })
	}
	return out
}

func (r *Registry) autoApprove(c rpc.DeviceConnect) bool {
	p := r.policy()
	if !c.SharedSecret || c.ProxyUser != "" {
		// A proxy user's devices pair only through deviceAutoApprove.
		return false
	}
	if c.Local && p.AutoApproveLocal {
		return true
	}
	for _, pfx := range p.AutoApproveCIDRs {
		if pfx.Contains(c.RemoteIP) {
			return true
		}
	}
	return false
}

// requirePairing records (or refreshes) the pending request and returns
// the NOT_PAIRED error the client gets.
func (r *Registry) requirePairing(ctx context.Context, c rpc.DeviceConnect, reason string, repair bool) error {
	now := r.now().UnixMilli()
	role := string(c.Role)
	_, err := r.db.ExecContext(ctx, `DELETE FROM device_pair_requests WHERE updated_at < ?`, now-PendingTTL.Milliseconds())
	if err != nil {
		return fmt.Errorf("expire pairing requests: %w", err)
	}
	var id string
	err = r.db.QueryRowContext(ctx, `SELECT request_id FROM device_pair_requests WHERE device_id=? AND role=?`, c.DeviceID, role).Scan(&id)
	fresh := errors.Is(err, sql.ErrNoRows)
	if err != nil && !fresh {
		return fmt.Errorf("load pairing request: %w", err)
	}
	if fresh {
		id = newRequestID()
		_, err = r.db.ExecContext(ctx, `INSERT INTO device_pair_requests(request_id, device_id, public_key, display_name, platform,
			device_family, client_id, client_mode, role, scopes, remote_ip, reason, created_at, updated_at)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, id, c.DeviceID, c.PublicKey, c.Client.DisplayName, c.Client.Platform,
			c.Client.DeviceFamily, c.Client.ID, c.Client.Mode, role, jsonList(c.Scopes), c.RemoteIP.String(), reason, now, now)
	} else {
		_, err = r.db.ExecContext(ctx, `UPDATE device_pair_requests SET scopes=?, public_key=?, remote_ip=?, reason=?, updated_at=?
			WHERE request_id=?`, jsonList(c.Scopes), c.PublicKey, c.RemoteIP.String(), reason, now, id)
	}
	if err != nil {
		return fmt.Errorf("save pairing request: %w", err)
	}
	if fresh {
		r.notify.Broadcast(protocol.EventDevicePairRequested, Request{
			RequestID: id, DeviceID: c.DeviceID, PublicKey: c.PublicKey, DisplayName: c.Client.DisplayName,
			Platform: c.Client.Platform, DeviceFamily: c.Client.DeviceFamily, ClientID: c.Client.ID, ClientMode: c.Client.Mode,
			Role: role, Roles: []string{role}, Scopes: nonNil(c.Scopes), RemoteIP: c.RemoteIP.String(), IsRepair: repair, Ts: now,
		})
	}
	return protocol.Errorf(protocol.CodeNotPaired, "pairing required: %s", reason).WithDetails(map[string]any{
		"code": protocol.DetailPairingRequired, "reason": reason, "requestId": id, "deviceId": c.DeviceID,
		"requestedRole": role, "requestedScopes": nonNil(c.Scopes),
		"remediationHint":     "approve with `openclaw devices approve " + id + "`",
		"recommendedNextStep": "wait_then_retry", "retryable": true, "pauseReconnect": false,
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// approveDirect pairs a device without a request (local auto-approval).
func (r *Registry) approveDirect(ctx context.Context, c rpc.DeviceConnect) error {
	return r.upsertDevice(ctx, Request{
		DeviceID: c.DeviceID, PublicKey: c.PublicKey, DisplayName: c.Client.DisplayName, Platform: c.Client.Platform,
		DeviceFamily: c.Client.DeviceFamily, ClientID: c.Client.ID, ClientMode: c.Client.Mode,
		Role: string(c.Role), Scopes: c.Scopes, RemoteIP: c.RemoteIP.String(),
	})
}

// upsertDevice adds the request's role and scopes to the device record.
func (r *Registry) upsertDevice(ctx context.Context, q Request) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("pair device %s: %w", q.DeviceID, err)
	}
	defer tx.Rollback()
	now := r.now().UnixMilli()
	var rolesJSON, scopesJSON, key string
	err = tx.QueryRowContext(ctx, `SELECT roles, scopes, public_key FROM devices WHERE device_id=?`, q.DeviceID).Scan(&rolesJSON, &scopesJSON, &key)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, `INSERT INTO devices(device_id, public_key, display_name, platform, device_family, client_id,
			client_mode, roles, scopes, remote_ip, created_at, approved_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
			q.DeviceID, q.PublicKey, q.DisplayName, q.Platform, q.DeviceFamily, q.ClientID, q.ClientMode,
			jsonList([]string{q.Role}), jsonList(q.Scopes), q.RemoteIP, now, now)
	case err == nil:
		roles := parseList(rolesJSON)
		if !slices.Contains(roles, q.Role) {
			roles = append(roles, q.Role)
		}
		scopes := parseList(scopesJSON)
		for _, s := range q.Scopes {
			if !slices.Contains(scopes, s) {
				scopes = append(scopes, s)
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE devices SET public_key=?, roles=?, scopes=?, approved_at=?, display_name=?,
			platform=?, device_family=?, client_id=?, client_mode=? WHERE device_id=?`, q.PublicKey, jsonList(roles),
			jsonList(scopes), now, q.DisplayName, q.Platform, q.DeviceFamily, q.ClientID, q.ClientMode, q.DeviceID)
	}
	if err != nil {
		return fmt.Errorf("pair device %s: %w", q.DeviceID, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM device_pair_requests WHERE device_id=? AND role=?`, q.DeviceID, q.Role); err != nil {
		return fmt.Errorf("pair device %s: %w", q.DeviceID, err)
	}
	return tx.Commit()
}

// issueToken mints a fresh device token for device+role, replacing any
// earlier one, and returns its only plaintext copy.
func (r *Registry) issueToken(ctx context.Context, deviceID, role string, scopes []string) (string, error) {
	tok := newToken()
	now := r.now().UnixMilli()
	_, err := r.db.ExecContext(ctx, `INSERT INTO device_tokens(device_id, role, token_hash, scopes, issued_at)
		VALUES (?,?,?,?,?) ON CONFLICT(device_id, role) DO UPDATE SET token_hash=excluded.token_hash,
		scopes=excluded.scopes, rotated_at=excluded.issued_at, revoked_at=0`, deviceID, role, hashToken(tok), jsonList(scopes), now)
	if err != nil {
		return "", fmt.Errorf("issue device token: %w", err)
	}
	return tok, nil
}

// VerifyDeviceToken implements rpc.Pairing.
func (r *Registry) VerifyDeviceToken(ctx context.Context, deviceID, role, token string) ([]string, error) {
	var hash, scopes string
	var revoked int64
	err := r.db.QueryRowContext(ctx, `SELECT token_hash, scopes, revoked_at FROM device_tokens WHERE device_id=? AND role=?`,
		deviceID, role).Scan(&hash, &scopes, &revoked)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load device token: %w", err)
	}
	if err != nil || revoked != 0 || subtle.ConstantTimeCompare([]byte(hash), []byte(hashToken(token))) != 1 {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: device token mismatch").WithDetails(map[string]any{
			"code": protocol.DetailAuthDeviceTokenMismatch, "authReason": "device_token_mismatch",
			"canRetryWithDeviceToken": false, "recommendedNextStep": "update_auth_credentials",
		})
	}
	return parseList(scopes), nil
}

func normalizeKey(k string) string {
	pub, err := protocol.DecodePublicKey(k)
	if err != nil {
		return k
	}
	return protocol.EncodeKey(pub)
}
