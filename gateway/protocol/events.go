package protocol

// Event names this gateway emits.
const (
	EventConnectChallenge    = "connect.challenge"
	EventTick                = "tick"
	EventShutdown            = "shutdown"
	EventHealth              = "health"
	EventHeartbeat           = "heartbeat"
	EventPresence            = "presence"
	EventConfigChanged       = "config.changed"
	EventDevicePairRequested = "device.pair.requested"
	EventDevicePairResolved  = "device.pair.resolved"
	EventDevicePairChanged   = "device.pair.changed"

	EventChannelPairingRequested = "channels.pairing.requested"
	EventChannelPairingResolved  = "channels.pairing.resolved"
)

// eventScopes gates broadcast events by operator scope. Events not in the
// table fail closed: only admins get them. ScopeNone means every
// connection, nodes included.
var eventScopes = map[string]Scope{
	EventTick:                ScopeNone,
	EventHealth:              ScopeNone,
	EventHeartbeat:           ScopeNone,
	EventShutdown:            ScopeNone,
	"gateway.suspension":     ScopeNone,
	"update.available":       ScopeNone,
	EventPresence:            ScopeRead,
	EventConfigChanged:       ScopeRead,
	"agent":                  ScopeRead,
	"chat":                   ScopeRead,
	"cron":                   ScopeRead,
	"task":                   ScopeRead,
	"sessions.changed":       ScopeRead,
	"skills.changed":         ScopeRead,
	"voicewake.changed":      ScopeRead,
	"node.presence":          ScopeRead,
	EventDevicePairRequested: ScopePairing,
	EventDevicePairResolved:  ScopePairing,
	EventDevicePairChanged:   ScopePairing,
	"node.pair.requested":    ScopePairing,
	"node.pair.resolved":     ScopePairing,
	// DM pairing of channels: this gateway's events, beside OpenClaw's
	// channels.pairing.* methods.
	EventChannelPairingRequested: ScopePairing,
	EventChannelPairingResolved:  ScopePairing,
	"exec.approval.requested":    ScopeApprovals,
	"exec.approval.resolved":     ScopeApprovals,
	"exec.finished":              ScopeApprovals, // node exec outcomes, rebroadcast from node.event
	"exec.denied":                ScopeApprovals,
	"plugin.approval.requested":  ScopeApprovals,
	"plugin.approval.resolved":   ScopeApprovals,
	"question.requested":         ScopeQuestions,
	"question.resolved":          ScopeQuestions,
	"talk.mode":                  ScopeTalk,
}

// EventVisible reports whether a connection with role and scopes may
// receive a broadcast of event. Node connections get only unrestricted
// events; node-targeted events are sent to one connection, not broadcast.
func EventVisible(event string, role Role, scopes []string) bool {
	need, ok := eventScopes[event]
	if !ok {
		need = ScopeAdmin
	}
	if need == ScopeNone {
		return true
	}
	if role != RoleOperator {
		return false
	}
	return Satisfies(scopes, need)
}

// AdvertisedEvents are listed in hello-ok features.events.
var AdvertisedEvents = []string{
	EventConnectChallenge, EventTick, EventShutdown, EventHealth, EventHeartbeat, EventPresence,
	EventConfigChanged, EventDevicePairRequested, EventDevicePairResolved, EventDevicePairChanged,
}
