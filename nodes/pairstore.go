package nodes

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/store"
)

const requestColumns = `request_id, node_id, display_name, platform, version, device_family, model_identifier,
	remote_ip, caps, commands, permissions, is_repair, created_at, updated_at`

// pairRow is one row of node_pair_requests.
type pairRow struct {
	PairRequest
	UpdatedAt int64
}

// approve stores s as the node's approved surface.
func (d db) approve(ctx context.Context, c store.Conn, nodeID string, s surface, at int64) (bool, error) {
	res, err := c.ExecContext(ctx, `UPDATE nodes SET approved_commands=?, approved_caps=?, approved_permissions=?, approved_at=?
		WHERE node_id=?`, jsonList(s.Commands), jsonList(s.Caps), jsonList(s.Permissions), at, nodeID)
	if err != nil {
		return false, fmt.Errorf("approve node %s: %w", nodeID, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// approveNow is approve outside a transaction.
func (d db) approveNow(ctx context.Context, nodeID string, s surface, at int64) error {
	_, err := d.approve(ctx, d.sql, nodeID, s, at)
	return err
}

// requestPairing records that a node asks for req's surface: a live
// request for the same surface is kept (its expiry pushed back), a
// different one is superseded by a new request id. created reports a new
// id. Expired requests are dropped first.
func (d db) requestPairing(ctx context.Context, req PairRequest, now, cutoff int64) (out PairRequest, created bool, err error) {
	err = store.Immediate(ctx, d.sql, func(c store.Conn) error {
		if _, err := c.ExecContext(ctx, `DELETE FROM node_pair_requests WHERE updated_at < ?`, cutoff); err != nil {
			return err
		}
		old, err := scanRequest(c.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM node_pair_requests WHERE node_id=?`, req.NodeID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case old.sameSurface(req):
			out = old.PairRequest
			_, err := c.ExecContext(ctx, `UPDATE node_pair_requests SET display_name=?, platform=?, version=?, remote_ip=?, updated_at=?
				WHERE request_id=?`, req.DisplayName, req.Platform, req.Version, req.RemoteIP, now, old.RequestID)
			out.DisplayName, out.Platform, out.Version, out.RemoteIP = req.DisplayName, req.Platform, req.Version, req.RemoteIP
			return err
		default:
			if _, err := c.ExecContext(ctx, `DELETE FROM node_pair_requests WHERE request_id=?`, old.RequestID); err != nil {
				return err
			}
		}
		out, created = req, true
		out.RequestID, out.Ts = uuid.NewString(), now
		perms, _ := json.Marshal(nonNilMap(out.Permissions))
		_, err = c.ExecContext(ctx, `INSERT INTO node_pair_requests (`+requestColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			out.RequestID, out.NodeID, out.DisplayName, out.Platform, out.Version, out.DeviceFamily, out.ModelIdentifier,
			out.RemoteIP, jsonList(out.Caps), jsonList(out.Commands), string(perms), out.IsRepair, now, now)
		return err
	})
	if err != nil {
		return PairRequest{}, false, fmt.Errorf("record pairing request of node %s: %w", req.NodeID, err)
	}
	return out, created, nil
}

// request returns a live request by id, or nil.
func (d db) request(ctx context.Context, requestID string, cutoff int64) (*PairRequest, error) {
	row, err := scanRequest(d.sql.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM node_pair_requests
		WHERE request_id=? AND updated_at >= ?`, requestID, cutoff))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load pairing request %s: %w", requestID, err)
	}
	return &row.PairRequest, nil
}

// pending returns the live requests, oldest first.
func (d db) pending(ctx context.Context, cutoff int64) ([]PairRequest, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT `+requestColumns+` FROM node_pair_requests
		WHERE updated_at >= ? ORDER BY created_at, request_id`, cutoff)
	if err != nil {
		return nil, fmt.Errorf("list pairing requests: %w", err)
	}
	defer rows.Close()
	out := []PairRequest{}
	for rows.Next() {
		r, err := scanRequest(rows)
		if err != nil {
			return nil, fmt.Errorf("list pairing requests: %w", err)
		}
		out = append(out, r.PairRequest)
	}
	return out, rows.Err()
}

// resolve deletes a live request and, when approve is set, stores its
// surface as the node's approved one, in one transaction. It returns the
// request, or nil when there is no live request with that id.
func (d db) resolve(ctx context.Context, requestID string, approve bool, now, cutoff int64) (*PairRequest, error) {
	var out *PairRequest
	err := store.Immediate(ctx, d.sql, func(c store.Conn) error {
		row, err := scanRequest(c.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM node_pair_requests
			WHERE request_id=? AND updated_at >= ?`, requestID, cutoff))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, `DELETE FROM node_pair_requests WHERE request_id=?`, requestID); err != nil {
			return err
		}
		if approve {
			if _, err := d.approve(ctx, c, row.NodeID, row.surface(), now); err != nil {
				return err
			}
		}
		out = &row.PairRequest
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("resolve pairing request %s: %w", requestID, err)
	}
	return out, nil
}

func scanRequest(s interface{ Scan(...any) error }) (pairRow, error) {
	var r pairRow
	var caps, cmds, perms string
	err := s.Scan(&r.RequestID, &r.NodeID, &r.DisplayName, &r.Platform, &r.Version, &r.DeviceFamily, &r.ModelIdentifier,
		&r.RemoteIP, &caps, &cmds, &perms, &r.IsRepair, &r.Ts, &r.UpdatedAt)
	if err != nil {
		return pairRow{}, err
	}
	r.Caps, r.Commands = []string{}, []string{}
	json.Unmarshal([]byte(caps), &r.Caps)
	json.Unmarshal([]byte(cmds), &r.Commands)
	json.Unmarshal([]byte(perms), &r.Permissions)
	if len(r.Permissions) == 0 {
		r.Permissions = nil
	}
	return r, nil
}

func nonNilMap(m map[string]bool) map[string]bool {
	if m == nil {
		return map[string]bool{}
	}
	return m
}
