// Package devices keeps paired devices, their hashed device tokens, pending
// pairing requests and the audit of refused connects in the gateway's
// database. It implements rpc.Pairing and serves the device.* methods.
//
// A Registry is safe for concurrent use; every write is one SQL statement
// or transaction, so a crash never leaves half a pairing behind.
package devices

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are this package's tables.
func Migrations() store.Migrations {
	return store.FromDir("devices", migrationFiles, "migrations")
}

// PendingTTL is how long a pairing request lives after its last retry.
const PendingTTL = 5 * time.Minute

// Policy is the live pairing configuration.
type Policy struct {
	AutoApproveLocal bool
	AutoApproveCIDRs []netip.Prefix
}

// Notifier is how the registry reaches the bus.
type Notifier interface {
	Broadcast(event string, payload any)
	DisconnectDevice(deviceID, role, reason string) int
	DeviceConnected(deviceID string) bool
}

// Registry is the device store.
type Registry struct {
	db     *sql.DB
	log    *slog.Logger
	policy func() Policy
	notify Notifier
	now    func() time.Time
}

var _ rpc.Pairing = (*Registry)(nil)

// New makes a registry over an opened store (with Migrations applied).
func New(db *sql.DB, log *slog.Logger, policy func() Policy, notify Notifier) *Registry {
	return &Registry{db: db, log: log, policy: policy, notify: notify, now: time.Now}
}

// Device is a paired device as listed to operators (no secrets).
type Device struct {
	DeviceID    string `json:"deviceId"`
	PublicKey   string `json:"publicKey"`
	DisplayName string `json:"displayName,omitempty"`
	// OperatorLabel is the name an operator gave it (device.pair.rename).
	OperatorLabel string   `json:"operatorLabel,omitempty"`
	Platform      string   `json:"platform,omitempty"`
	DeviceFamily  string   `json:"deviceFamily,omitempty"`
	ClientID      string   `json:"clientId,omitempty"`
	ClientMode    string   `json:"clientMode,omitempty"`
	Roles         []string `json:"roles"`
	Scopes        []string `json:"scopes"`
	RemoteIP      string   `json:"remoteIp,omitempty"`
	CreatedAtMs   int64    `json:"createdAtMs"`
	ApprovedAtMs  int64    `json:"approvedAtMs"`
	LastSeenAtMs  int64    `json:"lastSeenAtMs,omitempty"`
	Tokens        []Token  `json:"tokens"`
	Connected     bool     `json:"connected"`
}

// Token describes a device token without its value.
type Token struct {
	Role         string   `json:"role"`
	Scopes       []string `json:"scopes"`
	CreatedAtMs  int64    `json:"createdAtMs"`
	RotatedAtMs  int64    `json:"rotatedAtMs,omitempty"`
	RevokedAtMs  int64    `json:"revokedAtMs,omitempty"`
	LastUsedAtMs int64    `json:"lastUsedAtMs,omitempty"`
}

// Request is a pending pairing request (the device.pair.requested shape).
type Request struct {
	RequestID    string   `json:"requestId"`
	DeviceID     string   `json:"deviceId"`
	PublicKey    string   `json:"publicKey"`
	DisplayName  string   `json:"displayName,omitempty"`
	Platform     string   `json:"platform,omitempty"`
	DeviceFamily string   `json:"deviceFamily,omitempty"`
	ClientID     string   `json:"clientId,omitempty"`
	ClientMode   string   `json:"clientMode,omitempty"`
	Role         string   `json:"role"`
	Roles        []string `json:"roles"`
	Scopes       []string `json:"scopes"`
	RemoteIP     string   `json:"remoteIp,omitempty"`
	IsRepair     bool     `json:"isRepair,omitempty"`
	Ts           int64    `json:"ts"`
	reason       string
}

func hashToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func parseList(s string) []string {
	var v []string
	json.Unmarshal([]byte(s), &v)
	if v == nil {
		v = []string{}
	}
	return v
}

// ErrNotFound is returned for an unknown device or request id.
var ErrNotFound = errors.New("not found")

func (r *Registry) device(ctx context.Context, id string) (*Device, error) {
	d := &Device{DeviceID: id}
	var roles, scopes string
	err := r.db.QueryRowContext(ctx, `SELECT public_key, display_name, operator_label, platform, device_family, client_id, client_mode,
		roles, scopes, remote_ip, created_at, approved_at, last_seen_at FROM devices WHERE device_id=?`, id).
		Scan(&d.PublicKey, &d.DisplayName, &d.OperatorLabel, &d.Platform, &d.DeviceFamily, &d.ClientID, &d.ClientMode,
			&roles, &scopes, &d.RemoteIP, &d.CreatedAtMs, &d.ApprovedAtMs, &d.LastSeenAtMs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load device %s: %w", id, err)
	}
	d.Roles, d.Scopes = parseList(roles), parseList(scopes)
	return d, nil
}

// RecordAuthFailure appends to the audit of refused connects.
func (r *Registry) RecordAuthFailure(ctx context.Context, f rpc.AuthFailure) {
	_, err := r.db.ExecContext(context.WithoutCancel(ctx), `INSERT INTO auth_failures(at, remote_ip, origin, client_id, role, device_id, code)
		VALUES (?,?,?,?,?,?,?)`, f.At.UnixMilli(), f.RemoteIP, f.Origin, f.ClientID, f.Role, f.DeviceID, f.Code)
	if err != nil {
		r.log.Error("record auth failure", "err", err)
	}
	// Keep the audit bounded.
	r.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM auth_failures WHERE id <= (SELECT MAX(id) FROM auth_failures) - 10000`)
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) && !protocol.Satisfies(have, protocol.Scope(w)) {
			return false
		}
	}
	return true
}

func newRequestID() string { return uuid.NewString() }
