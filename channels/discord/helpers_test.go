package discord

import (
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
)

const (
	testToken = "MTIz.SECRET-token.value"
	waitFor   = 10 * time.Second
)

// recSink records what the adapter hands it; see channelstest.Sink.
type recSink = channelstest.Sink

// eventually polls cond until it holds, failing the test after waitFor.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	channelstest.Eventually(t, waitFor, what, cond)
}

// waitStored waits until n events were stored and returns them.
func waitStored(t *testing.T, sink *recSink, n int) []channels.Inbound {
	t.Helper()
	eventually(t, "stored events", func() bool { return len(sink.Stored()) >= n })
	return sink.Stored()
}

// newAdapter returns an adapter on fake with fast backoff.
func newAdapter(t testing.TB, fake *discordtest.Server, edit func(*Options)) *Adapter {
	t.Helper()
	o := Options{
		AccountID:   "work",
		Token:       testToken,
		APIBase:     fake.URL(),
		GatewayURL:  fake.GatewayURL(),
		CallTimeout: 5 * time.Second,
		BackoffMin:  time.Millisecond,
		BackoffMax:  5 * time.Millisecond,
	}
	if edit != nil {
		edit(&o)
	}
	return New(o)
}

// start starts a on sink and stops it when the test ends.
func start(t testing.TB, a *Adapter, sink channels.Sink) {
	t.Helper()
	channelstest.Start(t, a, sink, waitFor)
}

// Event builders in Discord's wire shape.
func user(id, name string) map[string]any {
	return map[string]any{"id": id, "username": name, "global_name": name + " G", "discriminator": "0"}
}

func message(id, channel, guild, content string, author map[string]any) map[string]any {
	m := map[string]any{"id": id, "channel_id": channel, "content": content, "author": author,
		"timestamp": "2026-11-30T12:00:00.000000+00:00", "type": 0, "mentions": []any{}, "attachments": []any{}}
	if guild != "" {
		m["guild_id"] = guild
		m["member"] = map[string]any{"roles": []string{"role-1"}}
	}
	return m
}
