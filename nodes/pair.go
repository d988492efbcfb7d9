package nodes

import (
	"context"
	"net/netip"
	"slices"
	"sort"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// The second pairing layer. Device pairing (gateway/devices) decides
// whether a node may connect at all; this layer decides which of the
// commands, caps and permissions it declares it may use. Each node has an
// approved surface in the nodes table. A node that connects declaring more
// than that gets one pending request (node.pair.requested); until an
// operator approves it (node.pair.approve) only the approved commands stay
// invocable. The command Policy still applies on top.

// PendingTTL is how long a pairing request lives after the node's last
// retry (its last connect asking for the same surface).
const PendingTTL = 5 * time.Minute

// Events of the pairing layer; both need operator.pairing.
const (
	// EventPairRequested carries a [PairRequest] when one is created.
	EventPairRequested = "node.pair.requested"
	// EventPairResolved carries {requestId, nodeId, decision, ts} with
	// decision "approved" or "rejected".
	EventPairResolved = "node.pair.resolved"
)

// PairingPolicy is the live gateway.nodes.pairing config. The zero value
// approves nothing by itself.
type PairingPolicy struct {
	// AutoApproveLocal approves, without asking, the surface of a node on
	// a direct loopback connection (config default true).
	AutoApproveLocal bool
	// AutoApproveCIDRs approves nodes connecting from these ranges.
	AutoApproveCIDRs []netip.Prefix
}

// autoApproves reports whether the policy approves h without an operator.
func (p PairingPolicy) autoApproves(h Hello) bool {
	if h.Local && p.AutoApproveLocal {
		return true
	}
	ip := h.RemoteIP.Unmap()
	for _, pfx := range p.AutoApproveCIDRs {
		if ip.IsValid() && pfx.Contains(ip) {
			return true
		}
	}
	return false
}

// surface is what a node may use: commands, caps and the names of the
// permissions it reports granted.
type surface struct {
	Commands, Caps, Permissions []string
}

// widerThan reports whether s holds anything approved does not.
func (s surface) widerThan(approved surface) bool {
	return !subset(s.Commands, approved.Commands) || !subset(s.Caps, approved.Caps) ||
		!subset(s.Permissions, approved.Permissions)
}

func subset(l, of []string) bool {
	for _, v := range l {
		if !slices.Contains(of, v) {
			return false
		}
	}
	return true
}

// granted lists the permission names set true, sorted.
func granted(perms map[string]bool) []string {
	out := []string{}
	for k, v := range perms {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// PairRequest is a pending request for a node's surface, as
// node.pair.list and node.pair.requested show it.
type PairRequest struct {
	RequestID       string          `json:"requestId"`
	NodeID          string          `json:"nodeId"`
	DisplayName     string          `json:"displayName,omitempty"`
	Platform        string          `json:"platform,omitempty"`
	Version         string          `json:"version,omitempty"`
	DeviceFamily    string          `json:"deviceFamily,omitempty"`
	ModelIdentifier string          `json:"modelIdentifier,omitempty"`
	RemoteIP        string          `json:"remoteIp,omitempty"`
	Caps            []string        `json:"caps"`
	Commands        []string        `json:"commands"`
	Permissions     map[string]bool `json:"permissions,omitempty"`
	// IsRepair is set when the node had an approved surface before.
	IsRepair bool `json:"isRepair,omitempty"`
	// Ts is when the request was created (Unix ms).
	Ts int64 `json:"ts"`
}

func (r PairRequest) surface() surface {
	return surface{Commands: nonNil(r.Commands), Caps: nonNil(r.Caps), Permissions: granted(r.Permissions)}
}

func (r pairRow) sameSurface(o PairRequest) bool {
	a, b := r.surface(), o.surface()
	return slices.Equal(sorted(a.Commands), sorted(b.Commands)) && slices.Equal(sorted(a.Caps), sorted(b.Caps)) &&
		slices.Equal(a.Permissions, b.Permissions)
}

func sorted(l []string) []string {
	l = slices.Clone(l)
	sort.Strings(l)
	return l
}

// PairedNode is a node with an approved surface, as node.pair.list shows it.
type PairedNode struct {
	NodeID          string   `json:"nodeId"`
	DisplayName     string   `json:"displayName,omitempty"`
	Platform        string   `json:"platform,omitempty"`
	Version         string   `json:"version,omitempty"`
	DeviceFamily    string   `json:"deviceFamily,omitempty"`
	ModelIdentifier string   `json:"modelIdentifier,omitempty"`
	RemoteIP        string   `json:"remoteIp,omitempty"`
	Caps            []string `json:"caps"`
	// Commands are the approved commands (the policy may narrow them).
	Commands          []string `json:"commands"`
	Permissions       []string `json:"permissions,omitempty"`
	CreatedAtMs       int64    `json:"createdAtMs"`
	ApprovedAtMs      int64    `json:"approvedAtMs"`
	LastConnectedAtMs int64    `json:"lastConnectedAtMs,omitempty"`
	Connected         bool     `json:"connected"`
}

// admit compares what a connecting node declared with its approved
// surface (rec.Approved, loaded from the store) and settles the
// difference: nothing to do, approval without asking, or a pending
// request. created reports a new request to announce.
func (r *Registry) admit(ctx context.Context, rec *record, h Hello) (req PairRequest, created bool) {
	want := surface{Commands: nonNil(rec.Commands), Caps: nonNil(rec.Caps), Permissions: granted(h.Permissions)}
	if rec.ApprovedAt > 0 && !want.widerThan(rec.Approved) {
		return PairRequest{}, false
	}
	now := r.opts.Now().UnixMilli()
	if r.opts.Pairing().autoApproves(h) {
		if err := r.db.approveNow(ctx, rec.NodeID, want, now); err != nil {
			r.log.Error("approve node surface", "node", rec.NodeID, "err", err)
			return PairRequest{}, false
		}
		rec.Approved, rec.ApprovedAt = want, now
		r.log.Info("node surface approved without asking", "node", rec.NodeID, "commands", len(want.Commands))
		return PairRequest{}, false
	}
	req = PairRequest{
		NodeID: rec.NodeID, DisplayName: rec.displayName(), Platform: rec.Platform, Version: rec.Version,
		DeviceFamily: rec.DeviceFamily, ModelIdentifier: rec.ModelIdentifier, RemoteIP: rec.RemoteIP,
		Caps: want.Caps, Commands: want.Commands, Permissions: h.Permissions, IsRepair: rec.ApprovedAt > 0,
	}
	req, created, err := r.db.requestPairing(ctx, req, now, now-PendingTTL.Milliseconds())
	if err != nil {
		r.log.Error("request node pairing", "node", rec.NodeID, "err", err)
		return PairRequest{}, false
	}
	r.log.Info("node surface needs approval", "node", rec.NodeID, "requestId", req.RequestID, "new", created)
	return req, created
}

func (r *Registry) cutoff() int64 { return r.opts.Now().Add(-PendingTTL).UnixMilli() }

// Pending returns the live pairing requests, oldest first.
func (r *Registry) Pending(ctx context.Context) ([]PairRequest, error) {
	return r.db.pending(ctx, r.cutoff())
}

// pendingByNode maps node ids to their live request; nil on error.
func (r *Registry) pendingByNode(ctx context.Context) map[string]PairRequest {
	reqs, err := r.Pending(ctx)
	if err != nil {
		r.log.Error("list node pairing requests", "err", err)
		return nil
	}
	out := make(map[string]PairRequest, len(reqs))
	for _, q := range reqs {
		out[q.NodeID] = q
	}
	return out
}

// Paired returns the nodes with an approved surface, by node id.
func (r *Registry) Paired(ctx context.Context) ([]PairedNode, error) {
	recs, err := r.db.all(ctx)
	if err != nil {
		return nil, err
	}
	out := []PairedNode{}
	for _, rec := range recs {
		if rec.ApprovedAt == 0 {
			continue
		}
		out = append(out, PairedNode{
			NodeID: rec.NodeID, DisplayName: rec.displayName(), Platform: rec.Platform, Version: rec.Version,
			DeviceFamily: rec.DeviceFamily, ModelIdentifier: rec.ModelIdentifier, RemoteIP: rec.RemoteIP,
			Caps: nonNil(rec.Approved.Caps), Commands: nonNil(rec.Approved.Commands), Permissions: rec.Approved.Permissions,
			CreatedAtMs: rec.FirstSeenAt, ApprovedAtMs: rec.ApprovedAt, LastConnectedAtMs: rec.ConnectedAt,
			Connected: r.Connected(rec.NodeID),
		})
	}
	return out, nil
}

// Request returns a live pairing request, or an INVALID_REQUEST error
// when the id is unknown, expired or already resolved.
func (r *Registry) Request(ctx context.Context, requestID string) (PairRequest, error) {
	q, err := r.db.request(ctx, requestID, r.cutoff())
	if err != nil {
		return PairRequest{}, err
	}
	if q == nil {
		return PairRequest{}, errUnknownRequest(requestID)
	}
	return *q, nil
}

// Approve grants a pending request's surface: it is stored, applies to
// the node's live connection at once and node.pair.resolved is broadcast.
func (r *Registry) Approve(ctx context.Context, requestID string) (PairRequest, error) {
	return r.resolve(ctx, requestID, true)
}

// Reject drops a pending request; the node keeps the surface approved
// before.
func (r *Registry) Reject(ctx context.Context, requestID string) (PairRequest, error) {
	return r.resolve(ctx, requestID, false)
}

func (r *Registry) resolve(ctx context.Context, requestID string, approve bool) (PairRequest, error) {
	now := r.opts.Now()
	q, err := r.db.resolve(ctx, requestID, approve, now.UnixMilli(), r.cutoff())
	if err != nil {
		return PairRequest{}, err
	}
	if q == nil {
		return PairRequest{}, errUnknownRequest(requestID)
	}
	decision := "rejected"
	if approve {
		decision = "approved"
		r.mu.Lock()
		if s := r.live[q.NodeID]; s != nil {
			s.rec.Approved, s.rec.ApprovedAt = q.surface(), now.UnixMilli()
		}
		r.mu.Unlock()
	}
	r.log.Info("node pairing resolved", "node", q.NodeID, "requestId", q.RequestID, "decision", decision)
	if r.opts.Notify != nil {
		r.opts.Notify.Broadcast(EventPairResolved, map[string]any{
			"requestId": q.RequestID, "nodeId": q.NodeID, "decision": decision, "ts": now.UnixMilli(),
		})
	}
	return *q, nil
}

// approveScope is the operator scope approving q needs beside
// operator.pairing: admin when it grants commands that run programs or
// reach files (system.run, system.which, browser.proxy, fs.listDir, exec
// approvals), write for other commands, none for a commandless request.
func approveScope(q PairRequest) protocol.Scope {
	need := protocol.ScopeNone
	for _, c := range q.Commands {
		switch {
		case c == "system.run" || c == "system.run.prepare" || c == "system.which" || c == "fs.listDir" ||
			c == "browser.proxy" || c == "browser.proxy.upload.v1" || c == "system.execApprovals.get" ||
			c == "system.execApprovals.set":
			return protocol.ScopeAdmin
		default:
			need = protocol.ScopeWrite
		}
	}
	return need
}

// PendingPairings and ResolvePairing serve the nodes tool's pending,
// approve and reject actions.
func (r *Registry) PendingPairings(ctx context.Context) (any, error) {
	p, err := r.Pending(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"pending": p}, nil
}

// ResolvePairing approves or rejects a pending request.
func (r *Registry) ResolvePairing(ctx context.Context, requestID string, approve bool) (any, error) {
	q, err := r.resolve(ctx, requestID, approve)
	if err != nil {
		return nil, err
	}
	decision := "rejected"
	if approve {
		decision = "approved"
	}
	return map[string]any{"requestId": q.RequestID, "nodeId": q.NodeID, "decision": decision}, nil
}
