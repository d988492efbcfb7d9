package host

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// redacted replaces the approvals socket token in what the node shows.
const redacted = "__OPENCLAW_REDACTED__"

// approvalsGet serves system.execApprovals.get: the node's approvals
// file, its hash and path, with the socket token redacted.
func (h *Host) approvalsGet(context.Context, json.RawMessage, time.Duration) (any, *protocol.Error) {
	snap, err := h.approvals.Get()
	if err != nil {
		return nil, unavailable("read exec approvals: %v", err)
	}
	return redact(snap), nil
}

// approvalsSet serves system.execApprovals.set {file, baseHash}: the new
// file replaces the old only if baseHash is the hash of the file as it is
// now. A missing baseHash is accepted only while no file exists.
func (h *Host) approvalsSet(_ context.Context, raw json.RawMessage, _ time.Duration) (any, *protocol.Error) {
	var p struct {
		File     *execapprovals.File `json:"file"`
		BaseHash string              `json:"baseHash"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.File == nil {
		return nil, invalid("file required")
	}
	cur, err := h.approvals.Get()
	if err != nil {
		return nil, unavailable("read exec approvals: %v", err)
	}
	base := p.BaseHash
	if base == "" {
		if cur.Exists {
			return nil, invalid("baseHash required; get the approvals first").
				WithDetails(map[string]any{"code": protocol.DetailBaseHashRequired, "hash": cur.Hash})
		}
		base = cur.Hash
	}
	// A redacted token sent back unchanged keeps the stored one.
	if s := p.File.Socket; s != nil && s.Token == redacted {
		s.Token = ""
		if cur.File.Socket != nil {
			s.Token = cur.File.Socket.Token
		}
	}
	snap, err := h.approvals.Set(*p.File, base)
	if errors.Is(err, execapprovals.ErrStale) {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "INVALID_REQUEST: %v", err).
			WithDetails(map[string]any{"code": protocol.DetailBaseHashMismatch, "hash": snap.Hash})
	}
	if err != nil {
		return nil, invalid("%v", err)
	}
	return redact(snap), nil
}

func redact(s execapprovals.Snapshot) execapprovals.Snapshot {
	if s.File.Socket != nil && s.File.Socket.Token != "" {
		sock := *s.File.Socket
		sock.Token = redacted
		s.File.Socket = &sock
	}
	return s
}

// allowAlways adds the resolved executables of an allow-always approval
// to the agent's allowlist ("*" when the run named no agent). A failure
// is logged: the approved run goes ahead either way.
func (h *Host) allowAlways(agentID string, resolved []string) {
	if len(resolved) == 0 {
		return
	}
	if agentID == "" {
		agentID = "*"
	}
	for range 3 { // retry a lost compare-and-swap race
		snap, err := h.approvals.Get()
		if err != nil {
			h.log.Warn("allow-always: read exec approvals", "err", err)
			return
		}
		f := snap.File
		if f.Agents == nil {
			f.Agents = map[string]execapprovals.AgentFile{}
		}
		a := f.Agents[agentID]
		a.Allowlist = slices.Clone(a.Allowlist)
		for _, path := range resolved {
			if !slices.ContainsFunc(a.Allowlist, func(e execapprovals.AllowEntry) bool { return e.Pattern == path }) {
				a.Allowlist = append(a.Allowlist, execapprovals.AllowEntry{Pattern: path, Source: "allow-always",
					LastUsedAt: float64(h.now().UnixMilli())})
			}
		}
		f.Agents[agentID] = a
		_, err = h.approvals.Set(f, snap.Hash)
		if errors.Is(err, execapprovals.ErrStale) {
			continue
		}
		if err != nil {
			h.log.Warn("allow-always: write exec approvals", "err", err)
		}
		return
	}
}
