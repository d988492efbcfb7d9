package admin

import (
	"context"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// BootstrapOwner makes the sender of an approved DM pairing the owner
// when commands.ownerAllowFrom is empty, as OpenClaw's pairing approval
// does for a first-time setup; once an owner exists it adds nobody. The
// write checks the file is still the one read, so two approvals at once
// cannot both become the owner. It answers "configured",
// "already-configured" or "unavailable" (with the error).
func (w *Wing) BootstrapOwner(ctx context.Context, channel, senderID string) (string, error) {
	cur := w.opts.Config()
	if len(cur.Config.Commands.OwnerAllowFrom) > 0 {
		return "already-configured", nil
	}
	next, err := config.Set(cur.Raw, "commands.ownerAllowFrom", []any{channel + ":" + senderID})
	if err != nil {
		return "unavailable", err
	}
	if _, err := w.WriteConfig("channels.pairing.approve", next, cur.Hash, true); err != nil {
		return "unavailable", err
	}
	return "configured", nil
}
