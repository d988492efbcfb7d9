package channels

import (
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// ChannelModel is the model channels.modelByChannel gives the chat of in,
// "" for none. Keys are matched without regard to case, the most
// specific first: in a group its thread (a Telegram topic as
// "<chatId>:topic:<id>"), then the chat; in a direct chat the chat and
// the sender's id (bare, "user:<id>", or a number without its "+");
// then "*". A direct chat's keys never match a group and the other way
// round only through "*".
func ChannelModel(cfg *config.Config, in Inbound, topicThreads bool) string {
	entries := cfg.Channels.ModelByChannel[in.Channel]
	if len(entries) == 0 {
		for k, v := range cfg.Channels.ModelByChannel {
			if strings.EqualFold(k, in.Channel) {
				entries = v
			}
		}
	}
	if len(entries) == 0 {
		return ""
	}
	var keys []string
	if in.Chat.Kind == Direct {
		id := in.Sender.ID
		keys = []string{in.Chat.ID, id, "user:" + id, strings.TrimPrefix(id, "+")}
	} else {
		if t := in.Chat.ThreadID; t != "" {
			if topicThreads {
				keys = append(keys, in.Chat.ID+":topic:"+t)
			} else {
				keys = append(keys, t)
			}
		}
		keys = append(keys, in.Chat.ID)
	}
	keys = append(keys, "*")
	for _, want := range keys {
		if want == "" {
			continue
		}
		if m, ok := entries[want]; ok {
			return strings.TrimSpace(m)
		}
		for k, m := range entries {
			if strings.EqualFold(k, want) {
				return strings.TrimSpace(m)
			}
		}
	}
	return ""
}
