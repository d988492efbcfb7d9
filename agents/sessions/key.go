package sessions

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is what a session key addresses.
type Kind string

const (
	KindMain     Kind = "main"     // agent:<a>:<mainKey>
	KindDirect   Kind = "direct"   // a direct-message peer (dmScope other than main)
	KindGroup    Kind = "group"    // agent:<a>:<channel>:group:<id>
	KindChannel  Kind = "channel"  // a room or channel: agent:<a>:<channel>:channel:<id>
	KindThread   Kind = "thread"   // <base>:thread:<id>
	KindTopic    Kind = "topic"    // <base>:topic:<id> (Telegram forum topics)
	KindCron     Kind = "cron"     // cron:<jobId> or agent:<a>:cron:<jobId>
	KindHook     Kind = "hook"     // hook:<id> or agent:<a>:hook:<id>
	KindSubagent Kind = "subagent" // agent:<a>:subagent:<id>[:subagent:<id>...]
	KindGlobal   Kind = "global"   // the literal key "global"
	KindUnknown  Kind = "unknown"  // the literal key "unknown"
	KindOther    Kind = "other"    // any other well-formed key
)

// Peer kinds, as in bindings' match.peer.kind.
const (
	PeerDirect  = "direct"
	PeerGroup   = "group"
	PeerChannel = "channel"
)

// MaxKeyLen is the longest session key accepted (chat.send's sessionKey limit).
const MaxKeyLen = 512

// Key is a parsed session key. Parse fills it; String rebuilds the key from
// the fields, so Parse(k.String()) == k for every parsed k.
type Key struct {
	// Raw is the key in canonical form: trimmed and lower-cased.
	Raw string
	// AgentID is the owning agent; empty for cron:, hook:, global, unknown
	// and keys without the agent: prefix.
	AgentID string
	Kind    Kind
	// MainKey is the last part of a main key (session.mainKey, "main").
	MainKey string
	// Channel and AccountID name where a peer key came from, when the key
	// says (per-channel-peer, per-account-channel-peer, groups, rooms).
	Channel   string
	AccountID string
	// PeerKind is direct, group or channel; PeerID the peer, group or room id.
	PeerKind string
	PeerID   string
	// ThreadID and TopicID are set on thread and topic keys (and on keys
	// derived from them).
	ThreadID string
	TopicID  string
	// ID is the cron job id, the hook id, the last sub-agent id, or the
	// unrecognised remainder of an "other" key.
	ID string
	// Depth is the sub-agent nesting: 1 for agent:<a>:subagent:<id>, 2 for
	// one more :subagent:<id>, and so on; 0 for other keys.
	Depth int
	// Parent is the key this one extends: the base of a thread or topic key,
	// or the enclosing sub-agent of a nested sub-agent key. A depth-1
	// sub-agent key does not name its parent (the store's SpawnedBy does).
	Parent string
	// Legacy is set for direct keys written with the old "dm" marker.
	Legacy bool
}

// IsMain reports whether k is an agent's main session.
func (k Key) IsMain() bool { return k.Kind == KindMain }

// RowKind is the kind a session row reports to clients (SessionRow.kind):
// global, unknown, group (groups, rooms and their threads) or direct.
func (k Key) RowKind() string {
	switch {
	case k.Kind == KindGlobal || k.Kind == KindUnknown:
		return string(k.Kind)
	case k.PeerKind == PeerGroup || k.PeerKind == PeerChannel:
		return "group"
	}
	return "direct"
}

// ToolKind is the kind the sessions_list tool filters on: main, group, cron,
// hook or other.
func (k Key) ToolKind() string {
	switch {
	case k.Kind == KindMain:
		return "main"
	case k.Kind == KindCron || k.Kind == KindHook:
		return string(k.Kind)
	case k.PeerKind == PeerGroup || k.PeerKind == PeerChannel:
		return "group"
	}
	return "other"
}

// markers are the words with a meaning inside agent keys.
var markers = map[string]bool{
	"direct": true, "dm": true, "group": true, "channel": true, "thread": true,
	"topic": true, "subagent": true, "cron": true, "hook": true,
}

// Parse reads a session key. It accepts any letter case and surrounding
// spaces and returns the key in canonical (lower-case) form in Raw. Errors
// wrap ErrInvalidKey.
func Parse(raw string) (Key, error) {
	if !utf8.ValidString(raw) {
		return Key{}, fmt.Errorf("%w %q: not valid UTF-8", ErrInvalidKey, clip(raw))
	}
	s := strings.ToLower(strings.TrimSpace(raw))
	why := checkChars(s)
	var k Key
	if why == "" {
		k, why = parse(s)
	}
	if why != "" {
		return Key{}, fmt.Errorf("%w %q: %s", ErrInvalidKey, clip(raw), why)
	}
	return k, nil
}

// clip shortens a bad key for an error message.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:80] + "..."
}

// checkChars says what is wrong with the characters of s, or "".
func checkChars(s string) string {
	switch {
	case s == "":
		return "empty"
	case len(s) > MaxKeyLen:
		return fmt.Sprintf("longer than %d bytes", MaxKeyLen)
	case strings.HasPrefix(s, ":") || strings.HasSuffix(s, ":") || strings.Contains(s, "::"):
		return "empty part"
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return "contains whitespace or a control character"
		}
	}
	return ""
}

// parse reads a canonical key; a non-empty string says why it is invalid.
func parse(s string) (Key, string) {
	switch s {
	case "global":
		return Key{Raw: s, Kind: KindGlobal}, ""
	case "unknown":
		return Key{Raw: s, Kind: KindUnknown}, ""
	}
	tok := strings.Split(s, ":")
	switch tok[0] {
	case "cron", "hook":
		if len(tok) < 2 {
			return Key{}, "missing " + tok[0] + " id"
		}
		return Key{Raw: s, Kind: Kind(tok[0]), ID: strings.Join(tok[1:], ":")}, ""
	case "agent":
	default:
		return Key{Raw: s, Kind: KindOther, ID: s}, ""
	}
	if len(tok) < 3 {
		return Key{}, "want agent:<agentId>:<rest>"
	}
	if !ValidAgentID(tok[1]) {
		return Key{}, fmt.Sprintf("bad agent id %q (want letters, digits, _ and -, at most 64)", tok[1])
	}
	// A trailing :thread:<id> or :topic:<id> extends a base key.
	if n := len(tok); n >= 5 && (tok[n-2] == "thread" || tok[n-2] == "topic") {
		base := strings.Join(tok[:n-2], ":")
		if b, why := parse(base); why == "" {
			k := b
			k.Raw, k.Parent = s, base
			if tok[n-2] == "thread" {
				k.Kind, k.ThreadID = KindThread, tok[n-1]
			} else {
				k.Kind, k.TopicID = KindTopic, tok[n-1]
			}
			return k, ""
		}
	}
	k := Key{Raw: s, AgentID: tok[1]}
	rest := tok[2:]
	switch {
	case len(rest) == 1:
		if markers[rest[0]] {
			return Key{}, "missing id after " + rest[0]
		}
		k.Kind, k.MainKey = KindMain, rest[0]
	case rest[0] == "subagent":
		return parseSubagent(k, rest)
	case rest[0] == "cron" || rest[0] == "hook":
		k.Kind, k.ID = Kind(rest[0]), strings.Join(rest[1:], ":")
	case rest[0] == "direct" || rest[0] == "dm":
		k.Kind, k.PeerKind, k.PeerID, k.Legacy = KindDirect, PeerDirect, strings.Join(rest[1:], ":"), rest[0] == "dm"
	case isPeerMarker(rest[1]):
		if len(rest) < 3 {
			return Key{}, "missing id after " + rest[1]
		}
		k.Channel, k.PeerID = rest[0], strings.Join(rest[2:], ":")
		k.setPeerKind(rest[1])
	case len(rest) >= 3 && (rest[2] == "direct" || rest[2] == "dm"):
		if len(rest) < 4 {
			return Key{}, "missing peer id after " + rest[2]
		}
		k.Channel, k.AccountID, k.PeerID = rest[0], rest[1], strings.Join(rest[3:], ":")
		k.setPeerKind(rest[2])
	default:
		k.Kind, k.ID = KindOther, strings.Join(rest, ":")
	}
	return k, ""
}

func isPeerMarker(s string) bool {
	return s == "direct" || s == "dm" || s == PeerGroup || s == PeerChannel
}

func (k *Key) setPeerKind(marker string) {
	switch marker {
	case "direct", "dm":
		k.Kind, k.PeerKind, k.Legacy = KindDirect, PeerDirect, marker == "dm"
	case PeerGroup:
		k.Kind, k.PeerKind = KindGroup, PeerGroup
	case PeerChannel:
		k.Kind, k.PeerKind = KindChannel, PeerChannel
	}
}

// parseSubagent reads subagent:<id>[:subagent:<id>...].
func parseSubagent(k Key, rest []string) (Key, string) {
	if len(rest)%2 != 0 {
		return Key{}, "want subagent:<id> pairs"
	}
	for i := 0; i < len(rest); i += 2 {
		if rest[i] != "subagent" {
			return Key{}, fmt.Sprintf("unexpected %q in sub-agent key", rest[i])
		}
	}
	k.Kind, k.Depth, k.ID = KindSubagent, len(rest)/2, rest[len(rest)-1]
	if k.Depth > 1 {
		k.Parent = k.Raw[:len(k.Raw)-len(":subagent:")-len(k.ID)]
	}
	return k, ""
}

// String formats the key from its fields. For a key from Parse it equals Raw.
func (k Key) String() string {
	agent := "agent:" + k.AgentID + ":"
	switch k.Kind {
	case KindGlobal, KindUnknown:
		return string(k.Kind)
	case KindCron, KindHook:
		if k.AgentID == "" {
			return string(k.Kind) + ":" + k.ID
		}
		return agent + string(k.Kind) + ":" + k.ID
	case KindMain:
		return agent + k.MainKey
	case KindDirect, KindGroup, KindChannel:
		marker := k.PeerKind
		if k.Legacy {
			marker = "dm"
		}
		var b strings.Builder
		b.WriteString(agent)
		for _, part := range []string{k.Channel, k.AccountID} {
			if part != "" {
				b.WriteString(part + ":")
			}
		}
		b.WriteString(marker + ":" + k.PeerID)
		return b.String()
	case KindThread:
		return k.Parent + ":thread:" + k.ThreadID
	case KindTopic:
		return k.Parent + ":topic:" + k.TopicID
	case KindSubagent:
		if k.Parent == "" {
			return agent + "subagent:" + k.ID
		}
		return k.Parent + ":subagent:" + k.ID
	}
	if k.AgentID == "" {
		return k.ID
	}
	return agent + k.ID
}

// ValidAgentID reports whether id is a well-formed agent id: a letter,
// digit or _ then up to 63 letters, digits, _ or -, in any case.
func ValidAgentID(id string) bool {
	if id == "" || len(id) > 64 || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
