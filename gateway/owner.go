package gateway

import (
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
