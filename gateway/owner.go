package gateway

import (
	"context"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// isChatOwner reports whether a chat sender is the gateway's owner:
// listed in commands.ownerAllowFrom as "<channel>:<sender id>". The
// channel part is case-insensitive, the id exact; "*" and bare ids match
// nobody, so a typo can never make every sender the owner.
func isChatOwner(cfg *config.Config, channel, senderID string) bool {
	if channel == "" || senderID == "" {
		return false
	}
	for _, e := range cfg.Commands.OwnerAllowFrom {
		ch, id, ok := strings.Cut(strings.TrimSpace(e), ":")
		if ok && strings.EqualFold(ch, channel) && id == senderID {
			return true
		}
	}
	return false
}

// bootstrapOwner makes the sender of an approved DM pairing the owner
// when commands.ownerAllowFrom is empty, as OpenClaw's pairing approval
// does for a first-time setup; once an owner exists it adds nobody. The
// write checks the file is still the one read, so two approvals at once
// cannot both become the owner.
func (s *System) bootstrapOwner(ctx context.Context, channel, senderID string) (string, error) {
	cur := s.current().snap
	if len(cur.Config.Commands.OwnerAllowFrom) > 0 {
		return "already-configured", nil
	}
	next, err := config.Set(cur.Raw, "commands.ownerAllowFrom", []any{channel + ":" + senderID})
	if err != nil {
		return "unavailable", err
	}
	if _, err := s.writeConfig("channels.pairing.approve", next, cur.Hash, true); err != nil {
		return "unavailable", err
	}
	return "configured", nil
}
