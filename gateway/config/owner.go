package config

import "strings"

// IsOwner reports whether a chat sender is the gateway's owner: listed in
// commands.ownerAllowFrom as "<channel>:<sender id>". The channel part is
// case-insensitive, the id exact; "*" and bare ids match nobody, so a typo
// can never make every sender the owner.
func (c Commands) IsOwner(channel, senderID string) bool {
	if channel == "" || senderID == "" {
		return false
	}
	for _, e := range c.OwnerAllowFrom {
		ch, id, ok := strings.Cut(strings.TrimSpace(e), ":")
		if ok && strings.EqualFold(ch, channel) && id == senderID {
			return true
		}
	}
	return false
}
