package nodes

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/netip"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// DefaultInvokeTimeout bounds an invoke whose caller gave no timeout.
const DefaultInvokeTimeout = 30 * time.Second

// EventPresence is broadcast to operators when a node connects,
// disconnects or is renamed.
const EventPresence = "node.presence"

// EventInvokeRequest is sent to the target node only.
const EventInvokeRequest = "node.invoke.request"

// Notifier is how the registry reaches operators.
type Notifier interface {
	Broadcast(event string, payload any)
}

// Conn is the part of a bus connection the registry uses: the event that
// carries an invoke request goes to one node's connection only.
// *rpc.Conn implements it.
type Conn interface {
	SendEvent(event string, payload any)
}

var _ Conn = (*rpc.Conn)(nil)

// Options configure a Registry. DB is required (with Migrations applied).
type Options struct {
	DB  *sql.DB
	Log *slog.Logger
	// Policy returns the live command policy; nil means the zero Policy
	// (platform defaults).
	Policy func() Policy
	// Pairing returns the live gateway.nodes.pairing policy; nil means
	// the config default (AutoApproveLocal only).
	Pairing func() PairingPolicy
	// Notify broadcasts node.presence and node.pair.*; optional.
	Notify Notifier
	// DefaultTimeout for invokes; default DefaultInvokeTimeout.
	DefaultTimeout time.Duration
	// Now is the clock; tests replace it.
	Now func() time.Time
}

// Registry tracks connected nodes, remembers known ones and runs invokes.
type Registry struct {
	db   db
	log  *slog.Logger
	opts Options

	mu       sync.Mutex
	live     map[string]*session    // node id -> live connection
	pending  map[string]*invocation // invoke id -> waiting invoke
	inflight map[string]*invocation // node id + idempotency key -> waiting invoke
}

// session is one live node connection.
type session struct {
	rec       record // what it declared on connect
	perms     map[string]bool
	conn      Conn
	hostStats json.RawMessage
}

// New makes a registry.
func New(opts Options) *Registry {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Policy == nil {
		opts.Policy = func() Policy { return Policy{} }
	}
	if opts.Pairing == nil {
		opts.Pairing = func() PairingPolicy { return PairingPolicy{AutoApproveLocal: true} }
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultInvokeTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Registry{
		db: db{sql: opts.DB}, log: opts.Log, opts: opts,
		live: map[string]*session{}, pending: map[string]*invocation{}, inflight: map[string]*invocation{},
	}
}

// Hello is what a node said about itself on connect.
type Hello struct {
	// NodeID is the device id, or the client id without a device.
	NodeID      string
	HasDevice   bool
	Client      protocol.ClientInfo
	Caps        []string
	Commands    []string
	Permissions map[string]bool
	PathEnv     string
	RemoteIP    netip.Addr
	// Local is a direct loopback connection (gateway.nodes.pairing.autoApproveLocal).
	Local       bool
	ConnectedAt time.Time
}

// HelloFrom reads a node connection's hello. ok is false for connections
// that are not node-role.
func HelloFrom(c *rpc.Conn) (h Hello, ok bool) {
	if c.Role() != protocol.RoleNode {
		return Hello{}, false
	}
	h = Hello{NodeID: c.DeviceID(), HasDevice: c.DeviceID() != "", Client: c.Client(), RemoteIP: c.RemoteIP(), Local: c.Local(), ConnectedAt: c.ConnectedAt()}
	if h.NodeID == "" {
		h.NodeID = c.Client().ID
	}
	if p := c.ConnectParams(); p != nil {
		h.Caps, h.Commands, h.Permissions, h.PathEnv = p.Caps, p.Commands, p.Permissions, p.PathEnv
	}
	return h, true
}

// Connect registers a live node. A newer connection of the same node
// replaces the older one (whose pending invokes then fail). A node that
// declares more than its approved surface gets a pending pairing request
// (see [PairRequest]) unless the pairing policy approves it at once.
func (r *Registry) Connect(ctx context.Context, conn Conn, h Hello) {
	now := h.ConnectedAt.UnixMilli()
	if h.ConnectedAt.IsZero() {
		now = r.opts.Now().UnixMilli()
	}
	rec := record{
		NodeID: h.NodeID, DeclaredName: h.Client.DisplayName, Platform: h.Client.Platform, Version: h.Client.Version,
		ClientID: h.Client.ID, ClientMode: h.Client.Mode, DeviceFamily: h.Client.DeviceFamily,
		ModelIdentifier: h.Client.ModelIdentifier, HasDevice: h.HasDevice,
		Caps: nonNil(h.Caps), Commands: nonNil(h.Commands), PathEnv: h.PathEnv,
		FirstSeenAt: now, ConnectedAt: now, LastSeenAt: now, LastSeenReason: "connect",
	}
	if h.RemoteIP.IsValid() {
		rec.RemoteIP = h.RemoteIP.Unmap().String()
	}
	if err := r.db.upsertConnect(ctx, &rec); err != nil {
		r.log.Error("remember node", "node", h.NodeID, "err", err)
	}
	if stored, err := r.db.get(ctx, h.NodeID); err == nil && stored != nil {
		rec.CustomName, rec.FirstSeenAt = stored.CustomName, stored.FirstSeenAt
		rec.Approved, rec.ApprovedAt = stored.Approved, stored.ApprovedAt
	}
	req, created := r.admit(ctx, &rec, h)
	s := &session{rec: rec, perms: h.Permissions, conn: conn}
	r.mu.Lock()
	old := r.live[h.NodeID]
	r.live[h.NodeID] = s
	r.mu.Unlock()
	if old != nil {
		r.failPending(old, "node reconnected during invoke")
	}
	r.log.Info("node connected", "node", h.NodeID, "name", rec.displayName(), "platform", rec.Platform,
		"commands", len(rec.Commands), "approved", len(rec.Approved.Commands))
	// The request goes out before the presence, so an operator who sees
	// the node connect has seen its request too.
	if created && r.opts.Notify != nil {
		r.opts.Notify.Broadcast(EventPairRequested, req)
	}
	r.presence(rec, true, "connect")
}

// Disconnect removes the live node on conn, if it is still the current
// one, and fails its pending invokes.
func (r *Registry) Disconnect(ctx context.Context, conn Conn) {
	s := r.sessionOf(conn)
	if s == nil {
		return
	}
	// Remember the last-seen time before the node leaves the live view,
	// so a reader never sees it offline with its connect time.
	now := r.opts.Now().UnixMilli()
	if err := r.db.touch(ctx, s.rec.NodeID, now, "disconnect"); err != nil {
		r.log.Error("remember node", "node", s.rec.NodeID, "err", err)
	}
	r.mu.Lock()
	if r.live[s.rec.NodeID] == s {
		delete(r.live, s.rec.NodeID)
	}
	s.rec.LastSeenAt, s.rec.LastSeenReason = now, "disconnect"
	rec := s.rec
	r.mu.Unlock()
	r.failPending(s, "node disconnected during invoke")
	r.log.Info("node disconnected", "node", rec.NodeID)
	r.presence(rec, false, "disconnect")
}

func (r *Registry) presence(rec record, connected bool, reason string) {
	if r.opts.Notify == nil {
		return
	}
	r.opts.Notify.Broadcast(EventPresence, map[string]any{
		"nodeId": rec.NodeID, "displayName": rec.displayName(), "platform": rec.Platform,
		"connected": connected, "reason": reason, "ts": r.opts.Now().UnixMilli(),
	})
}

// session returns the live session of a node, or nil.
func (r *Registry) session(nodeID string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live[nodeID]
}

// sessionOf returns the live session on conn, or nil.
func (r *Registry) sessionOf(conn Conn) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.live {
		if s.conn == conn {
			return s
		}
	}
	return nil
}

// Node is one node as node.list and node.describe show it.
type Node struct {
	NodeID          string   `json:"nodeId"`
	DisplayName     string   `json:"displayName,omitempty"`
	Platform        string   `json:"platform,omitempty"`
	Version         string   `json:"version,omitempty"`
	ClientID        string   `json:"clientId,omitempty"`
	ClientMode      string   `json:"clientMode,omitempty"`
	DeviceFamily    string   `json:"deviceFamily,omitempty"`
	ModelIdentifier string   `json:"modelIdentifier,omitempty"`
	RemoteIP        string   `json:"remoteIp,omitempty"`
	Caps            []string `json:"caps"`
	// Commands are the invocable ones: declared, approved and allowed by
	// the policy.
	Commands []string `json:"commands"`
	// DeclaredCommands is everything the node declared.
	DeclaredCommands []string        `json:"declaredCommands"`
	PathEnv          string          `json:"pathEnv,omitempty"`
	Permissions      map[string]bool `json:"permissions,omitempty"`
	// ApprovalState is "pending" while a pairing request waits,
	// "approved" once a surface was approved, else "unapproved".
	ApprovalState string `json:"approvalState"`
	// PairingRequestID is the pending request, if any.
	PairingRequestID string          `json:"pairingRequestId,omitempty"`
	ConnectedAtMs    int64           `json:"connectedAtMs,omitempty"`
	LastSeenAtMs     int64           `json:"lastSeenAtMs,omitempty"`
	LastSeenReason   string          `json:"lastSeenReason,omitempty"`
	Paired           bool            `json:"paired"`
	Connected        bool            `json:"connected"`
	HostStats        json.RawMessage `json:"hostStats,omitempty"`
}

func (r *Registry) view(rec *record, s *session, p Policy, pending map[string]PairRequest) Node {
	n := Node{
		NodeID: rec.NodeID, DisplayName: rec.displayName(), Platform: rec.Platform, Version: rec.Version,
		ClientID: rec.ClientID, ClientMode: rec.ClientMode, DeviceFamily: rec.DeviceFamily,
		ModelIdentifier: rec.ModelIdentifier, RemoteIP: rec.RemoteIP, Caps: nonNil(rec.Caps),
		Commands: p.Effective(rec.Platform, rec.invocable()), DeclaredCommands: nonNil(rec.Commands),
		PathEnv: rec.PathEnv, ApprovalState: "unapproved", LastSeenAtMs: rec.LastSeenAt,
		LastSeenReason: rec.LastSeenReason, Paired: rec.HasDevice,
	}
	if rec.ApprovedAt > 0 {
		n.ApprovalState = "approved"
	}
	if q, ok := pending[rec.NodeID]; ok {
		n.ApprovalState, n.PairingRequestID = "pending", q.RequestID
	}
	if s != nil {
		n.Connected, n.ConnectedAtMs, n.Permissions = true, rec.ConnectedAt, s.perms
		if len(s.hostStats) > 0 {
			n.HostStats = s.hostStats
		}
	}
	return n
}

// List returns every known node, connected ones first, then by name.
// Nodes are listed from memory when the database cannot be read.
func (r *Registry) List(ctx context.Context) []Node {
	recs, err := r.db.all(ctx)
	if err != nil {
		r.log.Error("list nodes", "err", err)
	}
	p := r.opts.Policy()
	pending := r.pendingByNode(ctx)
	r.mu.Lock()
	out := make([]Node, 0, len(recs)+len(r.live))
	seen := map[string]bool{}
	for _, rec := range recs {
		s := r.live[rec.NodeID]
		if s != nil {
			live := s.rec
			live.CustomName = rec.CustomName
			rec = &live
		}
		seen[rec.NodeID] = true
		out = append(out, r.view(rec, s, p, pending))
	}
	for id, s := range r.live {
		if !seen[id] {
			rec := s.rec
			out = append(out, r.view(&rec, s, p, pending))
		}
	}
	r.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Connected != out[j].Connected {
			return out[i].Connected
		}
		if out[i].DisplayName != out[j].DisplayName {
			return out[i].DisplayName < out[j].DisplayName
		}
		return out[i].NodeID < out[j].NodeID
	})
	return out
}

// Describe returns one node, or an UNKNOWN_NODE error.
func (r *Registry) Describe(ctx context.Context, nodeID string) (Node, error) {
	rec, err := r.db.get(ctx, nodeID)
	if err != nil {
		return Node{}, err
	}
	p := r.opts.Policy()
	pending := r.pendingByNode(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.live[nodeID]
	if s != nil {
		live := s.rec
		if rec != nil {
			live.CustomName = rec.CustomName
		}
		rec = &live
	}
	if rec == nil {
		return Node{}, errUnknownNode(nodeID)
	}
	return r.view(rec, s, p, pending), nil
}

// Rename gives a node the operator's display name; it outlives reconnects.
func (r *Registry) Rename(ctx context.Context, nodeID, name string) error {
	ok, err := r.db.rename(ctx, nodeID, name)
	if err != nil {
		return err
	}
	if !ok {
		return errUnknownNode(nodeID)
	}
	r.mu.Lock()
	s := r.live[nodeID]
	var rec record
	if s != nil {
		s.rec.CustomName = name
		rec = s.rec
	}
	r.mu.Unlock()
	if s != nil {
		r.presence(rec, true, "rename")
	} else if stored, err := r.db.get(ctx, nodeID); err == nil && stored != nil {
		r.presence(*stored, false, "rename")
	}
	return nil
}

// Forget removes a known node that is not connected.
func (r *Registry) Forget(ctx context.Context, nodeID string) error {
	if r.session(nodeID) != nil {
		return protocol.Errorf(protocol.CodeInvalidRequest, "node %s is connected; disconnect it first", nodeID)
	}
	ok, err := r.db.remove(ctx, nodeID)
	if err != nil {
		return err
	}
	if !ok {
		return errUnknownNode(nodeID)
	}
	return nil
}

// Connected reports whether a node is live.
func (r *Registry) Connected(nodeID string) bool { return r.session(nodeID) != nil }

// seen updates a live node's last-seen time (node.event traffic).
func (r *Registry) seen(ctx context.Context, s *session, reason string) {
	now := r.opts.Now().UnixMilli()
	r.mu.Lock()
	s.rec.LastSeenAt, s.rec.LastSeenReason = now, reason
	r.mu.Unlock()
	if err := r.db.touch(ctx, s.rec.NodeID, now, reason); err != nil {
		r.log.Warn("remember node", "node", s.rec.NodeID, "err", err)
	}
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return slices.Clone(l)
}
