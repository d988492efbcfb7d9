package main

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
)

// runMessageRead serves the reading actions `openclaw message read`,
// `reactions` and `pins` (OpenClaw's names; pins is the list-pins
// action): the channel's answer, as JSON.
func runMessageRead(sub, action string) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		usage := "openclaw message " + sub + " --target T"
		if action == "reactions" {
			usage += " --message-id ID"
		}
		fs := newFlagSet(a, usage+" [--channel C] [--account ID] [gateway flags]")
		g := fs.gatewayFlags()
		t := fs.messageTarget()
		messageID := fs.String("message-id", "", "`id` of the message (reactions)")
		emoji := fs.String("emoji", "", "reactions: only this `emoji`, with who reacted")
		limit := fs.Int("limit", 0, "at most `n` results (up to 100)")
		before := fs.String("before", "", "read: messages older than this message `id`")
		after := fs.String("after", "", "read: messages newer than this message `id`")
		if _, err := fs.parse(args, 0, 0); err != nil {
			return err
		}
		switch {
		case *t.target == "":
			return usageErrorf("--target is required (usage: %s)", fs.usage)
		case action == "reactions" && *messageID == "":
			return usageErrorf("--message-id is required (usage: %s)", fs.usage)
		}
		inner := map[string]any{}
		t.params(inner, "to")
		for k, v := range map[string]string{"messageId": *messageID, "emoji": *emoji, "before": *before, "after": *after} {
			if v != "" {
				inner[k] = v
			}
		}
		if *limit > 0 {
			inner["limit"] = *limit
		}
		params := map[string]any{"action": action, "params": inner, "idempotencyKey": uuid.NewString()}
		t.routing(params)
		var out json.RawMessage
		if err := a.callOnce(ctx, g, "message.action", writeScope, params, &out, false); err != nil {
			return err
		}
		return writeJSON(a.stdout, out)
	}
}
