package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
)

// discordMessage is a MESSAGE_CREATE payload.
func discordMessage(id, channel, guild, content string, authorID string, mentionBot bool) map[string]any {
	m := map[string]any{"id": id, "channel_id": channel, "content": content,
		"author":    map[string]any{"id": authorID, "username": "user" + authorID, "discriminator": "0"},
		"timestamp": "2026-11-30T12:00:00.000000+00:00", "type": 0, "mentions": []any{}, "attachments": []any{}}
	if guild != "" {
		m["guild_id"] = guild
		m["member"] = map[string]any{"roles": []string{}}
	}
	if mentionBot {
		m["mentions"] = []any{discordtest.BotUserMap()}
		m["content"] = "<@" + discordtest.BotID + "> " + content
	}
	return m
}

// TestDiscordEndToEnd: the real binary on a fake Discord (REST and
// Gateway WebSocket) answers a DM and a guild mention, ignores an
// unmentioned guild message, and after a dropped socket goes on.
func TestDiscordEndToEnd(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	const token = "discord-e2e-token"
	dc := discordtest.New(t, token)
	dc.AddChannel("chan-1", map[string]any{"type": 0, "guild_id": "g1"})
	g := startGateway(t, gatewayOpts{
		Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  session: { dmScope: "per-channel-peer" },
  channels: { discord: { token: %q, dmPolicy: "allowlist", allowFrom: ["4242"], guilds: { g1: { requireMention: true } } } },
}`, model.URL()+"/v1", token),
		Env: []string{"OPENCLAW_DISCORD_API_BASE=" + dc.URL(), "OPENCLAW_DISCORD_GATEWAY_URL=" + dc.GatewayURL()},
	})
	dc.WaitLive(1, 0, 30*time.Second)

	waitDiscord := func(what string, pred func(discordtest.Message) bool) discordtest.Message {
		t.Helper()
		return waitSent(t, dc.Sent, what, pred)
	}
	dc.Dispatch("MESSAGE_CREATE", discordMessage("m1", "dm-1", "", "hello there", "4242", false))
	dm := waitDiscord("answering the DM", func(m discordtest.Message) bool { return strings.Contains(m.Content, "echo: hello there") })
	if dm.ChannelID != "dm-1" {
		t.Errorf("DM answer went to %s", dm.ChannelID)
	}
	dc.Dispatch("MESSAGE_CREATE", discordMessage("m2", "chan-1", "g1", "not for you", "4242", false))
	dc.Dispatch("MESSAGE_CREATE", discordMessage("m3", "chan-1", "g1", "ping @everyone please", "4242", true))
	gm := waitDiscord("answering the mention", func(m discordtest.Message) bool { return strings.Contains(m.Content, "ping") })
	if gm.ChannelID != "chan-1" || gm.ReplyTo != "m3" || strings.Contains(gm.Content, "@everyone") {
		t.Errorf("guild answer %+v: want a reply to m3 in chan-1 that cannot ping everyone", gm)
	}
	// A stranger's DM is refused under the allowlist.
	dc.Dispatch("MESSAGE_CREATE", discordMessage("m4", "dm-2", "", "let me in", "777", false))

	// The socket drops; the adapter resumes and the next message arrives.
	dc.DropConnections()
	dc.WaitLive(1, 1, 30*time.Second)
	dc.Dispatch("MESSAGE_CREATE", discordMessage("m5", "dm-1", "", "after the drop", "4242", false))
	waitDiscord("after the drop", func(m discordtest.Message) bool { return strings.Contains(m.Content, "after the drop") })

	st := ourClient(t, g).run(t, "channels", "status")
	st.mustSucceed(t)
	if !strings.Contains(st.Stdout, "Discord") || !strings.Contains(st.Stdout, "connected") {
		t.Errorf("channels status:\n%s", st.Stdout)
	}
	// The unmentioned message gets no answer of its own; it reaches the
	// agent only as context of the next mention
	// (messages.groupChat.historyLimit, 50 unless set).
	for _, m := range dc.Sent() {
		if m.ReplyTo == "m2" || strings.HasPrefix(m.Content, "echo: not for you") || m.ChannelID == "dm-2" {
			t.Errorf("answered what it should not: %+v", m)
		}
	}
	if !strings.Contains(gm.Content, "not for you") {
		t.Errorf("the mention's turn did not see the chat's earlier message as context: %q", gm.Content)
	}
	counts := map[string]int{}
	for _, m := range dc.Sent() {
		counts[m.Content]++
	}
	for text, n := range counts {
		if n > 1 {
			t.Errorf("%q sent %d times", text, n)
		}
	}
}
