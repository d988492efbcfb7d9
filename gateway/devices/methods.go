package devices

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Register adds the device.* methods to the bus.
func (r *Registry) Register(s *rpc.Server) {
	s.HandleFunc("device.pair.list", r.handleList)
	s.HandleFunc("device.pair.approve", rpc.Typed(r.handleApprove))
	s.HandleFunc("device.pair.reject", rpc.Typed(r.handleReject))
	s.HandleFunc("device.pair.remove", rpc.Typed(r.handleRemove))
	s.HandleFunc("device.pair.rename", rpc.Typed(r.handleRename))
	s.HandleFunc("device.token.rotate", rpc.Typed(r.handleRotate))
	s.HandleFunc("device.token.revoke", rpc.Typed(r.handleRevoke))
}

// ListResult is the device.pair.list answer.
type ListResult struct {
	Pending []Request `json:"pending"`
	Paired  []Device  `json:"paired"`
}

// List returns pending requests (unexpired) and paired devices.
func (r *Registry) List(ctx context.Context, connected func(deviceID string) bool) (*ListResult, error) {
	out := &ListResult{Pending: []Request{}, Paired: []Device{}}
	cut := r.now().UnixMilli() - PendingTTL.Milliseconds()
	rows, err := r.db.QueryContext(ctx, `SELECT request_id, device_id, public_key, display_name, platform, device_family,
		client_id, client_mode, role, scopes, remote_ip, reason, created_at FROM device_pair_requests WHERE updated_at >= ?
		ORDER BY created_at`, cut)
	if err != nil {
		return nil, fmt.Errorf("list pairing requests: %w", err)
	}
	for rows.Next() {
		var q Request
		var scopes string
		if err := rows.Scan(&q.RequestID, &q.DeviceID, &q.PublicKey, &q.DisplayName, &q.Platform, &q.DeviceFamily,
			&q.ClientID, &q.ClientMode, &q.Role, &scopes, &q.RemoteIP, &q.reason, &q.Ts); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list pairing requests: %w", err)
		}
		q.Scopes, q.Roles, q.IsRepair = parseList(scopes), []string{q.Role}, q.reason != "not-paired"
		out.Pending = append(out.Pending, q)
	}
	rows.Close()
	rows, err = r.db.QueryContext(ctx, `SELECT device_id FROM devices ORDER BY approved_at`)
	if err != nil {
		return nil, fmt.Errorf("list devices: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		d, err := r.device(ctx, id)
		if err != nil {
			continue // removed meanwhile
		}
		d.Tokens, err = r.tokens(ctx, id)
		if err != nil {
			return nil, err
		}
		if connected != nil {
			d.Connected = connected(id)
		}
		out.Paired = append(out.Paired, *d)
	}
	return out, nil
}

func (r *Registry) tokens(ctx context.Context, deviceID string) ([]Token, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT role, scopes, issued_at, rotated_at, revoked_at, last_used_at
		FROM device_tokens WHERE device_id=? ORDER BY role`, deviceID)
	if err != nil {
		return nil, fmt.Errorf("list device tokens: %w", err)
	}
	defer rows.Close()
	out := []Token{}
	for rows.Next() {
		var t Token
		var scopes string
		if err := rows.Scan(&t.Role, &scopes, &t.CreatedAtMs, &t.RotatedAtMs, &t.RevokedAtMs, &t.LastUsedAtMs); err != nil {
			return nil, err
		}
		t.Scopes = parseList(scopes)
		out = append(out, t)
	}
	return out, rows.Err()
}

func (r *Registry) handleList(ctx context.Context, req *rpc.Request) (any, error) {
	return r.List(ctx, r.notify.DeviceConnected)
}

// Approve pairs the device of a pending request.
func (r *Registry) Approve(ctx context.Context, requestID string) (*Request, error) {
	q, err := r.request(ctx, requestID)
	if err != nil {
		return nil, err
	}
	if err := r.upsertDevice(ctx, *q); err != nil {
		return nil, err
	}
	r.notify.Broadcast(protocol.EventDevicePairResolved, map[string]any{
		"requestId": requestID, "deviceId": q.DeviceID, "decision": "approved", "ts": r.now().UnixMilli(),
	})
	r.log.Info("device pairing approved", "device", q.DeviceID, "role", q.Role, "request", requestID)
	return q, nil
}

// Reject drops a pending request.
func (r *Registry) Reject(ctx context.Context, requestID string) (*Request, error) {
	q, err := r.request(ctx, requestID)
	if err != nil {
		return nil, err
	}
	if _, err := r.db.ExecContext(ctx, `DELETE FROM device_pair_requests WHERE request_id=?`, requestID); err != nil {
		return nil, fmt.Errorf("reject pairing request: %w", err)
	}
	r.notify.Broadcast(protocol.EventDevicePairResolved, map[string]any{
		"requestId": requestID, "deviceId": q.DeviceID, "decision": "rejected", "ts": r.now().UnixMilli(),
	})
	return q, nil
}

func (r *Registry) request(ctx context.Context, id string) (*Request, error) {
	var q Request
	var scopes string
	err := r.db.QueryRowContext(ctx, `SELECT request_id, device_id, public_key, display_name, platform, device_family,
		client_id, client_mode, role, scopes, remote_ip, reason, created_at FROM device_pair_requests WHERE request_id=? AND updated_at >= ?`,
		id, r.now().UnixMilli()-PendingTTL.Milliseconds()).Scan(&q.RequestID, &q.DeviceID, &q.PublicKey, &q.DisplayName,
		&q.Platform, &q.DeviceFamily, &q.ClientID, &q.ClientMode, &q.Role, &scopes, &q.RemoteIP, &q.reason, &q.Ts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "unknown requestId: %s", id)
	}
	if err != nil {
		return nil, fmt.Errorf("load pairing request %s: %w", id, err)
	}
	q.Scopes, q.Roles = parseList(scopes), []string{q.Role}
	return &q, nil
}

type requestParams struct {
	RequestID string `json:"requestId"`
}

func (p *requestParams) Validate() error {
	if p.RequestID == "" {
		return errors.New("requestId is required")
	}
	return nil
}

// approveResult is the device.pair.approve answer: the device and the
// grant it now holds.
type approveResult struct {
	RequestID string        `json:"requestId"`
	Device    approvedGrant `json:"device"`
}

type approvedGrant struct {
	DeviceID string   `json:"deviceId"`
	Role     string   `json:"role"`
	Scopes   []string `json:"scopes"`
}

func (r *Registry) handleApprove(ctx context.Context, req *rpc.Request, p requestParams) (*approveResult, error) {
	q, err := r.request(ctx, p.RequestID)
	if err != nil {
		return nil, err
	}
	// Approving a grant wider than one's own would be an escalation.
	if !req.Conn.Has(protocol.ScopeAdmin) && !protocol.SubsetOf(q.Scopes, req.Conn.Scopes()) {
		return nil, protocol.MissingScope(protocol.ScopeAdmin)
	}
	if _, err := r.Approve(ctx, p.RequestID); err != nil {
		return nil, err
	}
	return &approveResult{RequestID: p.RequestID, Device: approvedGrant{DeviceID: q.DeviceID, Role: q.Role, Scopes: q.Scopes}}, nil
}

// rejectResult is the device.pair.reject answer.
type rejectResult struct {
	RequestID string `json:"requestId"`
	DeviceID  string `json:"deviceId"`
}

func (r *Registry) handleReject(ctx context.Context, req *rpc.Request, p requestParams) (*rejectResult, error) {
	q, err := r.Reject(ctx, p.RequestID)
	if err != nil {
		return nil, err
	}
	return &rejectResult{RequestID: p.RequestID, DeviceID: q.DeviceID}, nil
}

// Remove unpairs a device and closes its live sockets.
func (r *Registry) Remove(ctx context.Context, deviceID string) error {
	res, err := r.db.ExecContext(ctx, `DELETE FROM devices WHERE device_id=?`, deviceID)
	if err != nil {
		return fmt.Errorf("remove device %s: %w", deviceID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return protocol.Errorf(protocol.CodeInvalidRequest, "unknown deviceId: %s", deviceID)
	}
	r.notify.DisconnectDevice(deviceID, "", "device removed")
	r.notify.Broadcast(protocol.EventDevicePairChanged, map[string]any{"deviceId": deviceID, "action": "removed", "ts": r.now().UnixMilli()})
	return nil
}

type removeParams struct {
	DeviceID string `json:"deviceId"`
}

func (p *removeParams) Validate() error {
	if p.DeviceID == "" {
		return errors.New("deviceId is required")
	}
	return nil
}

// removeResult is the device.pair.remove answer.
type removeResult struct {
	DeviceID string `json:"deviceId"`
	Removed  bool   `json:"removed"`
}

func (r *Registry) handleRemove(ctx context.Context, req *rpc.Request, p removeParams) (*removeResult, error) {
	if err := r.ownOrAdmin(req, p.DeviceID); err != nil {
		return nil, err
	}
	if err := r.Remove(ctx, p.DeviceID); err != nil {
		return nil, err
	}
	return &removeResult{DeviceID: p.DeviceID, Removed: true}, nil
}

// MaxLabelLen bounds an operator's label for a device, as OpenClaw does.
const MaxLabelLen = 64

// Rename sets the label an operator gave a paired device.
func (r *Registry) Rename(ctx context.Context, deviceID, label string) error {
	res, err := r.db.ExecContext(ctx, `UPDATE devices SET operator_label=? WHERE device_id=?`, label, deviceID)
	if err != nil {
		return fmt.Errorf("rename device %s: %w", deviceID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return protocol.Errorf(protocol.CodeInvalidRequest, "unknown deviceId: %s", deviceID)
	}
	r.notify.Broadcast(protocol.EventDevicePairChanged, map[string]any{"deviceId": deviceID, "action": "renamed", "ts": r.now().UnixMilli()})
	r.log.Info("device renamed", "device", deviceID, "label", label)
	return nil
}

// handleRename is device.pair.rename {deviceId, label}: admins rename any
// device; others only their own, and only while it is operator-only.
type renameParams struct {
	DeviceID string `json:"deviceId"`
	Label    string `json:"label"`
}

func (p *renameParams) Validate() error {
	p.Label = strings.TrimSpace(p.Label)
	switch {
	case p.DeviceID == "":
		return errors.New("deviceId is required")
	case p.Label == "":
		return errors.New("label required")
	case utf8.RuneCountInString(p.Label) > MaxLabelLen:
		return fmt.Errorf("label must be at most %d characters", MaxLabelLen)
	}
	return nil
}

// renameResult is the device.pair.rename answer: the label as stored
// (trimmed).
type renameResult struct {
	DeviceID string `json:"deviceId"`
	Label    string `json:"label"`
}

func (r *Registry) handleRename(ctx context.Context, req *rpc.Request, p renameParams) (*renameResult, error) {
	label := p.Label
	if err := r.ownOrAdmin(req, p.DeviceID); err != nil {
		return nil, err
	}
	if !req.Conn.Has(protocol.ScopeAdmin) {
		d, err := r.device(ctx, p.DeviceID)
		if err == nil && slices.ContainsFunc(d.Roles, func(role string) bool { return role != string(protocol.RoleOperator) }) {
			return nil, protocol.MissingScope(protocol.ScopeAdmin)
		}
	}
	if err := r.Rename(ctx, p.DeviceID, label); err != nil {
		return nil, err
	}
	return &renameResult{DeviceID: p.DeviceID, Label: label}, nil
}

// ownOrAdmin lets non-admin callers manage only their own device.
func (r *Registry) ownOrAdmin(req *rpc.Request, deviceID string) error {
	if req.Conn.Has(protocol.ScopeAdmin) || req.Conn.DeviceID() == deviceID {
		return nil
	}
	return protocol.MissingScope(protocol.ScopeAdmin)
}

type tokenParams struct {
	DeviceID string   `json:"deviceId"`
	Role     string   `json:"role"`
	Scopes   []string `json:"scopes"`
}

func (p *tokenParams) Validate() error {
	if p.DeviceID == "" || p.Role == "" {
		return errors.New("deviceId and role are required")
	}
	return nil
}

// rotateResult is the device.token.rotate answer. The token itself is
// only sent to the device it belongs to (tokenDelivery in-band); a
// rotation from another device withholds it.
type rotateResult struct {
	DeviceID      string   `json:"deviceId"`
	Role          string   `json:"role"`
	Scopes        []string `json:"scopes"`
	RotatedAtMs   int64    `json:"rotatedAtMs"`
	Token         string   `json:"token,omitempty"`
	TokenDelivery string   `json:"tokenDelivery"`
}

func (r *Registry) handleRotate(ctx context.Context, req *rpc.Request, p tokenParams) (*rotateResult, error) {
	if err := r.ownOrAdmin(req, p.DeviceID); err != nil {
		return nil, err
	}
	d, err := r.device(ctx, p.DeviceID)
	if errors.Is(err, ErrNotFound) {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "unknown deviceId: %s", p.DeviceID)
	}
	if err != nil {
		return nil, err
	}
	if !slices.Contains(d.Roles, p.Role) {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "device %s is not paired for role %s", p.DeviceID, p.Role)
	}
	scopes := p.Scopes
	if scopes == nil {
		scopes = d.Scopes
	}
	if p.Role == string(protocol.RoleNode) {
		scopes = []string{}
	}
	for _, s := range scopes {
		if !protocol.IsOperatorScope(s) {
			return nil, protocol.InvalidParams(req.Method, fmt.Errorf("unknown scope %q", s))
		}
	}
	// A rotated token never carries more than the device was approved for,
	// nor more than the caller holds.
	if !protocol.SubsetOf(scopes, d.Scopes) || !protocol.SubsetOf(scopes, req.Conn.Scopes()) {
		return nil, protocol.Errorf(protocol.CodeForbidden, "rotate would widen scopes").WithDetails(map[string]any{
			"code": protocol.DetailAuthScopeMismatch, "requestedScopes": scopes, "approvedScopes": d.Scopes,
		})
	}
	tok, err := r.issueToken(ctx, p.DeviceID, p.Role, scopes)
	if err != nil {
		return nil, err
	}
	now := r.now().UnixMilli()
	out := &rotateResult{DeviceID: p.DeviceID, Role: p.Role, Scopes: nonNil(scopes), RotatedAtMs: now}
	if req.Conn.DeviceID() == p.DeviceID {
		out.Token, out.TokenDelivery = tok, "in-band"
	} else {
		out.TokenDelivery = "withheld-cross-device"
		r.notify.DisconnectDevice(p.DeviceID, p.Role, "device token rotated")
	}
	return out, nil
}

// revokeResult is the device.token.revoke answer: disconnected counts
// the sockets the revoked token had open.
type revokeResult struct {
	DeviceID     string `json:"deviceId"`
	Role         string `json:"role"`
	RevokedAtMs  int64  `json:"revokedAtMs"`
	Disconnected int    `json:"disconnected"`
}

func (r *Registry) handleRevoke(ctx context.Context, req *rpc.Request, p tokenParams) (*revokeResult, error) {
	if err := r.ownOrAdmin(req, p.DeviceID); err != nil {
		return nil, err
	}
	now := r.now().UnixMilli()
	res, err := r.db.ExecContext(ctx, `UPDATE device_tokens SET revoked_at=? WHERE device_id=? AND role=?`, now, p.DeviceID, p.Role)
	if err != nil {
		return nil, fmt.Errorf("revoke device token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "no token for device %s role %s", p.DeviceID, p.Role)
	}
	closed := r.notify.DisconnectDevice(p.DeviceID, p.Role, "device token revoked")
	return &revokeResult{DeviceID: p.DeviceID, Role: p.Role, RevokedAtMs: now, Disconnected: closed}, nil
}
