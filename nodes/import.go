package nodes

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ImportedNode is a node pairing carried over from another install
// (openclaw migrate): the node and the command surface an operator
// approved for it there.
type ImportedNode struct {
	NodeID       string
	DisplayName  string
	Platform     string
	Version      string
	ClientID     string
	ClientMode   string
	DeviceFamily string
	HasDevice    bool
	Caps         []string
	Commands     []string
	CreatedAtMs  int64
	ApprovedAtMs int64
}

// Known reports whether db has a record of the node.
func Known(ctx context.Context, db *sql.DB, nodeID string) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM nodes WHERE node_id=?`, nodeID).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look up node %s: %w", nodeID, err)
	}
	return true, nil
}

// Import records n with its approved surface, so the node's commands are
// invocable when it reconnects without a new `nodes approve`. A node
// already known here is left alone and Import reports false.
func Import(ctx context.Context, db *sql.DB, n ImportedNode) (bool, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO nodes (node_id, declared_name, platform, version, client_id, client_mode,
		device_family, has_device, caps, commands, first_seen_at, approved_commands, approved_caps, approved_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(node_id) DO NOTHING`,
		n.NodeID, n.DisplayName, n.Platform, n.Version, n.ClientID, n.ClientMode, n.DeviceFamily, n.HasDevice,
		jsonList(n.Caps), jsonList(n.Commands), n.CreatedAtMs, jsonList(n.Commands), jsonList(n.Caps), n.ApprovedAtMs)
	if err != nil {
		return false, fmt.Errorf("import node %s: %w", n.NodeID, err)
	}
	k, _ := res.RowsAffected()
	return k > 0, nil
}
