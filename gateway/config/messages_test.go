package config

import (
	"slices"
	"strings"
	"testing"
)

// TestMessagesKeys: the messages, commands and broadcast keys decode in
// OpenClaw's shapes, with the warnings where this gateway does less.
func TestMessagesKeys(t *testing.T) {
	src := `{
  agents: { entries: { main: {}, alfred: { groupChat: { mentionPatterns: ["@alfred"] } }, baerbel: {} } },
  messages: {
    responsePrefix: "", ackReaction: "👀", ackReactionScope: "all",
    queue: { mode: "collect", cap: 3, drop: "new", byChannel: { whatsapp: "steer-backlog", telegram: "interrupt", slack: "queue" } },
    groupChat: { mentionPatterns: ["\\bbot\\b"] },
  },
  commands: { native: false, bash: true, config: false, allowFrom: { "*": ["user1"], telegram: [123] } },
  broadcast: {
    strategy: "sequential",
    "120363403215116621@g.us": ["Alfred", "baerbel", "alfred"],
    "telegram:-100123": { agents: ["alfred", "ghost"], maxRounds: 2 },
  },
}`
	snap, errs, warns := parseTest(t, src, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	c := snap.Config
	if v, set := c.Messages.ResponsePrefix.Of(); !set || v != "" {
		t.Errorf("responsePrefix %q %v: an empty string must stay set", v, set)
	}
	if _, set := c.Channels.Telegram.ResponsePrefix.Of(); set {
		t.Error("an absent channel responsePrefix must stay unset")
	}
	q := c.Messages.Queue
	if q.QueueMode("discord") != "collect" || q.QueueMode("slack") != "steer" || q.QueueMode("telegram") != "interrupt" || q.QueueMode("whatsapp") != "steer" || q.QueueCap() != 3 {
		t.Errorf("queue %+v", q)
	}
	if (MessagesQueue{}).QueueCap() != 20 || (MessagesQueue{}).QueueMode("x") != "steer" || (Messages{}).AckScope() != "group-mentions" {
		t.Error("queue defaults")
	}
	if c.Commands.Native.Publish(true) {
		t.Error("native false must not publish")
	}
	if l, set := c.Commands.CommandAllowList("telegram"); !set || !slices.Equal(l, []string{"123"}) {
		t.Errorf("telegram allowFrom %v %v", l, set)
	}
	if l, set := c.Commands.CommandAllowList("discord"); !set || !slices.Equal(l, []string{"user1"}) {
		t.Errorf("discord falls back to *: %v %v", l, set)
	}
	if got := c.Broadcast.Agents("whatsapp", "120363403215116621@g.us"); !slices.Equal(got, []string{"alfred", "baerbel"}) {
		t.Errorf("broadcast agents %v", got)
	}
	if got := c.Broadcast.Agents("telegram", "-100123"); !slices.Equal(got, []string{"alfred", "ghost"}) || c.Broadcast.Strategy != "sequential" {
		t.Errorf("broadcast object form %v %q", got, c.Broadcast.Strategy)
	}
	if c.Broadcast.Agents("discord", "-100123") != nil {
		t.Error("a channel-qualified key must not match another channel")
	}
	if got := c.MentionPatterns("alfred"); !slices.Equal(got, []string{"@alfred"}) {
		t.Errorf("agent patterns %v", got)
	}
	if got := c.MentionPatterns("baerbel"); !slices.Equal(got, []string{`\bbot\b`}) {
		t.Errorf("inherited patterns %v", got)
	}
	joined := strings.Join(warns, "\n")
	for _, w := range []string{`messages.queue.byChannel.whatsapp "steer-backlog" is not in effect here`, "maxRounds is not in effect here", `agent "ghost" is not in agents.entries`, "commands.bash true is not in effect here"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings lack %q:\n%s", w, joined)
		}
	}
	if strings.Contains(joined, "messages.queue.mode") || strings.Contains(joined, "commands.config") || strings.Contains(joined, "byChannel.slack") {
		t.Errorf("collect is in effect, yet warned:\n%s", joined)
	}
}

// TestMessagesKeyErrors: wrong shapes are refused where they are.
func TestMessagesKeyErrors(t *testing.T) {
	for _, src := range []string{
		`{messages: {ackReactionScope: "sometimes"}}`,
		`{messages: {queue: {drop: "everything"}}}`,
		`{commands: {native: "yes"}}`,
		`{broadcast: {strategy: "random"}}`,
		`{broadcast: {"x": "main"}}`,
		`{messages: {groupChat: {mentionPatterns: ["("]}}}`,
	} {
		if _, errs, _ := parseTest(t, src, nil); len(errs) == 0 {
			t.Errorf("%s: no error", src)
		}
	}
}
