package admin

import (
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Hello is the snapshot part of hello-ok: presence, health and the
// session defaults a client starts from.
func (w *Wing) Hello(c *rpc.Conn) protocol.Snapshot {
	snap := w.opts.Config()
	cfg := snap.Config
	def := cfg.DefaultAgentID()
	mc := cfg.PrimaryModel(def) != ""
	mainKey := sessions.MainKey(def, cfg.Session.MainKey)
	_, mk, _ := strings.Cut(strings.TrimPrefix(mainKey, "agent:"), ":")
	scope := cfg.Session.Scope
	if scope == "" {
		scope = "per-sender"
	}
	if scope == "global" {
		mainKey = "global" // one session for everyone, as OpenClaw names it
	}
	return protocol.Snapshot{
		Presence:          w.Presence(),
		Health:            w.Health(false),
		StateVersion:      protocol.StateVersion{Presence: 1, Health: w.HealthVersion()},
		UptimeMs:          time.Since(w.opts.Started).Milliseconds(),
		AppliedConfigHash: snap.Hash,
		ConfigPath:        snap.Path,
		StateDir:          w.opts.StateDir,
		AuthMode:          w.opts.AuthMode(),
		SessionDefaults: &protocol.SessionDefaults{
			DefaultAgentID: def, MainKey: mk, MainSessionKey: mainKey, Scope: scope, ModelConfigured: &mc,
		},
		Suspension: &protocol.Suspension{Phase: "accepting"},
	}
}
