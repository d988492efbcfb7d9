package nodes

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are this package's tables (component "nodes").
func Migrations() store.Migrations {
	return store.FromDir("nodes", migrationFiles, "migrations")
}

// record is one row of the nodes table.
type record struct {
	NodeID, DeclaredName, CustomName                      string
	Platform, Version, ClientID, ClientMode, DeviceFamily string
	ModelIdentifier, RemoteIP, PathEnv                    string
	HasDevice                                             bool
	Caps, Commands                                        []string
	FirstSeenAt, ConnectedAt, LastSeenAt                  int64
	LastSeenReason                                        string
	// Approved is the surface an operator (or auto-approval) granted;
	// ApprovedAt is zero while none ever was.
	Approved   surface
	ApprovedAt int64
}

// displayName is the operator's name for the node, else its own.
func (r *record) displayName() string {
	if r.CustomName != "" {
		return r.CustomName
	}
	return r.DeclaredName
}

// invocable is the declared commands within the approved surface, in
// declared order; the Policy narrows them further.
func (r *record) invocable() []string {
	out := []string{}
	for _, c := range r.Commands {
		if slices.Contains(r.Approved.Commands, c) {
			out = append(out, c)
		}
	}
	return out
}

type db struct{ sql *sql.DB }

const recordColumns = `node_id, declared_name, custom_name, platform, version, client_id, client_mode,
	device_family, model_identifier, remote_ip, has_device, caps, commands, approved_commands, path_env,
	first_seen_at, connected_at, last_seen_at, last_seen_reason, approved_caps, approved_permissions, approved_at`

// upsertConnect records a connect, keeping the custom name, the
// first-seen time and the approved surface.
func (d db) upsertConnect(ctx context.Context, r *record) error {
	_, err := d.sql.ExecContext(ctx, `INSERT INTO nodes (node_id, declared_name, custom_name, platform, version,
			client_id, client_mode, device_family, model_identifier, remote_ip, has_device, caps, commands, path_env,
			first_seen_at, connected_at, last_seen_at, last_seen_reason)
		VALUES (?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(node_id) DO UPDATE SET declared_name=excluded.declared_name, platform=excluded.platform,
			version=excluded.version, client_id=excluded.client_id, client_mode=excluded.client_mode,
			device_family=excluded.device_family, model_identifier=excluded.model_identifier,
			remote_ip=excluded.remote_ip, has_device=excluded.has_device, caps=excluded.caps,
			commands=excluded.commands, path_env=excluded.path_env,
			connected_at=excluded.connected_at, last_seen_at=excluded.last_seen_at,
			last_seen_reason=excluded.last_seen_reason`,
		r.NodeID, r.DeclaredName, r.Platform, r.Version, r.ClientID, r.ClientMode, r.DeviceFamily,
		r.ModelIdentifier, r.RemoteIP, r.HasDevice, jsonList(r.Caps), jsonList(r.Commands), r.PathEnv,
		r.FirstSeenAt, r.ConnectedAt, r.LastSeenAt, r.LastSeenReason)
	if err != nil {
		return fmt.Errorf("record node %s: %w", r.NodeID, err)
	}
	return nil
}

// touch updates the last-seen time and reason.
func (d db) touch(ctx context.Context, nodeID string, at int64, reason string) error {
	if _, err := d.sql.ExecContext(ctx, `UPDATE nodes SET last_seen_at=?, last_seen_reason=? WHERE node_id=?`, at, reason, nodeID); err != nil {
		return fmt.Errorf("touch node %s: %w", nodeID, err)
	}
	return nil
}

// rename sets the custom name; it reports false for an unknown node.
func (d db) rename(ctx context.Context, nodeID, name string) (bool, error) {
	res, err := d.sql.ExecContext(ctx, `UPDATE nodes SET custom_name=? WHERE node_id=?`, name, nodeID)
	if err != nil {
		return false, fmt.Errorf("rename node %s: %w", nodeID, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// remove forgets a node and its pending request; it reports false for an
// unknown node.
func (d db) remove(ctx context.Context, nodeID string) (bool, error) {
	if _, err := d.sql.ExecContext(ctx, `DELETE FROM node_pair_requests WHERE node_id=?`, nodeID); err != nil {
		return false, fmt.Errorf("remove node %s: %w", nodeID, err)
	}
	res, err := d.sql.ExecContext(ctx, `DELETE FROM nodes WHERE node_id=?`, nodeID)
	if err != nil {
		return false, fmt.Errorf("remove node %s: %w", nodeID, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func (d db) get(ctx context.Context, nodeID string) (*record, error) {
	row := d.sql.QueryRowContext(ctx, `SELECT `+recordColumns+` FROM nodes WHERE node_id=?`, nodeID)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

func (d db) all(ctx context.Context) ([]*record, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT `+recordColumns+` FROM nodes ORDER BY node_id`)
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	defer rows.Close()
	var out []*record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func scanRecord(s interface{ Scan(...any) error }) (*record, error) {
	var r record
	var caps, cmds, approved, approvedCaps, approvedPerms string
	err := s.Scan(&r.NodeID, &r.DeclaredName, &r.CustomName, &r.Platform, &r.Version, &r.ClientID, &r.ClientMode,
		&r.DeviceFamily, &r.ModelIdentifier, &r.RemoteIP, &r.HasDevice, &caps, &cmds, &approved, &r.PathEnv,
		&r.FirstSeenAt, &r.ConnectedAt, &r.LastSeenAt, &r.LastSeenReason, &approvedCaps, &approvedPerms, &r.ApprovedAt)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("read node: %w", err)
	}
	json.Unmarshal([]byte(caps), &r.Caps)
	json.Unmarshal([]byte(cmds), &r.Commands)
	json.Unmarshal([]byte(approved), &r.Approved.Commands)
	json.Unmarshal([]byte(approvedCaps), &r.Approved.Caps)
	json.Unmarshal([]byte(approvedPerms), &r.Approved.Permissions)
	return &r, nil
}

func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}
