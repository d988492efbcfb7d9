package slack

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

// TestSocketDelivers: a DM, a channel mention (sent by Slack as both a
// message and an app_mention: one event), a thread reply, a reaction, a
// button press and the slash command arrive over Socket Mode, and every
// envelope is acknowledged once stored.
func TestSocketDelivers(t *testing.T) {
	fake := newFake(t)
	sink := &recSink{}
	a := newAdapter(t, fake, nil)
	start(t, a, sink)
	fake.WaitConnections(1, waitFor)
	eventually(t, "connected", func() bool { return sink.HasState(channels.StateConnected) })

	dmEnv, dmTS := fake.PushMessage(slacktest.Msg{Channel: "D100", User: "U1", Text: "hello &amp; welcome"})
	mention := slacktest.Msg{Channel: "C200", User: "U2", Text: "<@" + slacktest.BotUserID + "> what is <https://go.dev|Go>?"}
	msgEnv, chTS := fake.PushMessage(mention)
	mention.TS = chTS
	mentionEnv, _ := fake.PushAppMention(mention)
	threadEnv, _ := fake.PushMessage(slacktest.Msg{Channel: "C200", User: "U2", Text: "more", ThreadTS: chTS})
	reactEnv := fake.Push("events_api", fake.ReactionPayload("U2", "C200", chTS, "thumbsup"))
	resp := fake.ResponseURL()
	actEnv := fake.Push("interactive", fake.ActionPayload(slacktest.Action{User: "U2", Channel: "C200", MessageTS: "1700000999.000100", Value: "approve:7:allow", ResponseURL: resp}))
	cmdEnv := fake.Push("slash_commands", fake.CommandPayload(slacktest.Command{Command: "/openclaw", Text: "status please", Channel: "C200", ChannelName: "general", User: "U2", UserName: "bob"}))
	otherCmd := fake.Push("slash_commands", fake.CommandPayload(slacktest.Command{Command: "/other", Text: "x", Channel: "C200", User: "U2"}))

	all := []string{dmEnv, msgEnv, mentionEnv, threadEnv, reactEnv, actEnv, cmdEnv, otherCmd}
	fake.WaitAcked(waitFor, all...)
	got := sink.Stored()
	// The app_mention duplicates the message's id: the sink (the store)
	// drops it in production; here both reach the sink with one EventID.
	tests := []struct {
		name      string
		kind      channels.EventKind
		chat      channels.ChatKind
		chatID    string
		thread    string
		mentioned bool
		text      string
	}{
		{"dm", channels.EventMessage, channels.Direct, "D100", "", false, "hello & welcome"},
		{"channel mention", channels.EventMessage, channels.Group, "C200", "", true, "what is Go (https://go.dev)?"},
		{"app_mention", channels.EventMessage, channels.Group, "C200", "", true, "what is Go (https://go.dev)?"},
		{"thread reply", channels.EventMessage, channels.Group, "C200", chTS, false, "more"},
		{"reaction", channels.EventReaction, channels.Group, "C200", "", false, ""},
		{"button", channels.EventCallback, channels.Group, "C200", "", false, ""},
		{"slash command", channels.EventMessage, channels.Group, "C200", "", true, "status please"},
	}
	if len(got) != len(tests) {
		t.Fatalf("stored %d events, want %d: %+v", len(got), len(tests), got)
	}
	for i, want := range tests {
		in := got[i]
		if in.Kind != want.kind || in.Chat.Kind != want.chat || in.Chat.ID != want.chatID ||
			in.Chat.ThreadID != want.thread || in.Mentioned != want.mentioned || in.Text != want.text ||
			in.TeamID != slacktest.TeamID || in.AccountID != "work" || in.Channel != Channel || in.EventID == "" {
			t.Errorf("%s: got %+v, want %+v", want.name, in, want)
		}
	}
	if got[0].MessageID != dmTS || got[0].Sender.ID != "U1" {
		t.Errorf("dm ids: %+v", got[0])
	}
	if got[1].EventID != got[2].EventID {
		t.Errorf("message and app_mention of one post have event ids %q and %q; want one", got[1].EventID, got[2].EventID)
	}
	if got[4].Reaction != "thumbsup" || got[4].MessageID != chTS {
		t.Errorf("reaction: %+v", got[4])
	}
	if got[5].CallbackID != resp || got[5].CallbackData != "approve:7:allow" || got[5].MessageID != "1700000999.000100" {
		t.Errorf("button: %+v", got[5])
	}
	sts := sink.Statuses()
	if sts[0].State != channels.StateStarting {
		t.Errorf("first status %q, want starting", sts[0].State)
	}
	i := slices.IndexFunc(sts, func(s channels.Status) bool { return s.State == channels.StateConnected })
	if i < 0 || sts[i].Bot != slacktest.BotName {
		t.Errorf("no connected status with the bot's name: %+v", sts)
	}
}

// TestOwnAndBotMessagesSkipped: our own posts, other bots' posts and
// joins are acknowledged and never stored.
func TestOwnAndBotMessagesSkipped(t *testing.T) {
	fake := newFake(t)
	sink := &recSink{}
	start(t, newAdapter(t, fake, nil), sink)
	fake.WaitConnections(1, waitFor)
	ids := []string{}
	for _, m := range []slacktest.Msg{
		{Channel: "C1", User: slacktest.BotUserID, Text: "our own reply"},
		{Channel: "C1", BotID: "B999", Text: "another bot", Subtype: "bot_message"},
		{Channel: "C1", User: "U1", Text: "<@U1> has joined", Subtype: "channel_join"},
	} {
		id, _ := fake.PushMessage(m)
		ids = append(ids, id)
	}
	last, _ := fake.PushMessage(slacktest.Msg{Channel: "D1", User: "U1", Text: "real"})
	fake.WaitAcked(waitFor, append(ids, last)...)
	if got := sink.Stored(); len(got) != 1 || got[0].Text != "real" {
		t.Errorf("stored %+v, want only the real message", got)
	}
}

// TestPersistBeforeAck: an envelope whose Receive fails is not
// acknowledged; it is acknowledged once Receive succeeds.
func TestPersistBeforeAck(t *testing.T) {
	fake := newFake(t)
	sink := channelstest.FailingSink(1 << 30)
	start(t, newAdapter(t, fake, nil), sink)
	fake.WaitConnections(1, waitFor)
	env, _ := fake.PushMessage(slacktest.Msg{Channel: "D1", User: "U1", Text: "keep me"})

	eventually(t, "three failed attempts", func() bool { return len(sink.Attempts()) >= 3 })
	if fake.Acked(env) {
		t.Fatal("envelope acknowledged while Receive still failed")
	}
	sink.SetFail(0)
	fake.WaitAcked(waitFor, env)
	if got := sink.Stored(); len(got) != 1 || got[0].Text != "keep me" {
		t.Errorf("stored %+v", got)
	}
	for i, in := range sink.Attempts() {
		if in.EventID != sink.Stored()[0].EventID {
			t.Errorf("attempt %d was %s: the failing event must be retried, never skipped", i, in.EventID)
		}
	}
}

// TestRestartRedelivers: what one run never stored is redelivered by
// Slack to the next connection and stored there.
func TestRestartRedelivers(t *testing.T) {
	fake := newFake(t)
	down := channelstest.FailingSink(1 << 30)
	first := newAdapter(t, fake, nil)
	if err := first.Start(context.Background(), down); err != nil {
		t.Fatal(err)
	}
	fake.WaitConnections(1, waitFor)
	env, _ := fake.PushMessage(slacktest.Msg{Channel: "D1", User: "U1", Text: "not yet stored"})
	eventually(t, "a failed attempt", func() bool { return len(down.Attempts()) > 0 })
	if err := first.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !down.HasState(channels.StateStopped) {
		t.Error("Stop reported no stopped status")
	}
	if fake.Acked(env) {
		t.Fatal("envelope acknowledged although never stored")
	}

	up := &recSink{}
	start(t, newAdapter(t, fake, nil), up)
	fake.WaitAcked(waitFor, env)
	if got := up.Stored(); len(got) != 1 || got[0].Text != "not yet stored" {
		t.Errorf("redelivered %+v", got)
	}
	if n := fake.Deliveries(env); n < 2 {
		t.Errorf("envelope sent %d times, want a redelivery", n)
	}
}

// TestReconnect: a dropped socket, a silent one (no pings: only the ping
// timeout notices) and Slack's disconnect request each lead to a new
// connection, and events flow again.
func TestReconnect(t *testing.T) {
	tests := []struct {
		name  string
		fault func(*slacktest.Server)
	}{
		{"dropped socket", (*slacktest.Server).DropSocket},
		{"silent socket", (*slacktest.Server).Silence},
		{"disconnect request", func(s *slacktest.Server) { s.Disconnect("refresh_requested") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			sink := &recSink{}
			start(t, newAdapter(t, fake, nil), sink)
			fake.WaitConnections(1, waitFor)
			eventually(t, "connected", func() bool { return sink.HasState(channels.StateConnected) })

			tt.fault(fake)
			fake.WaitConnections(2, waitFor)
			env, _ := fake.PushMessage(slacktest.Msg{Channel: "D1", User: "U1", Text: "after"})
			fake.WaitAcked(waitFor, env)
			eventually(t, "connected again", func() bool { return sink.Count(channels.StateConnected) >= 2 })
			if got := sink.Stored(); len(got) != 1 || got[0].Text != "after" {
				t.Errorf("stored %+v", got)
			}
		})
	}
}

// TestMalformedFramesDoNotCrash: cut JSON, non-JSON frames and payloads
// of the wrong shape are skipped (and acknowledged, so Slack stops
// resending them); the connection keeps working.
func TestMalformedFramesDoNotCrash(t *testing.T) {
	fake := newFake(t)
	sink := &recSink{}
	start(t, newAdapter(t, fake, nil), sink)
	fake.WaitConnections(1, waitFor)

	fake.SendRaw([]byte(`{"type":"events_api","envelope_id":"x1","payload":`)) // cut JSON
	fake.SendRaw([]byte(`not json at all`))
	bad := fake.Push("events_api", []byte(`{"type":"event_callback","event":"not an object"}`))
	odd := fake.Push("events_api", []byte(`{"type":"event_callback","event":{"type":"message","channel":7}}`))
	unknown := fake.Push("interactive", []byte(`{"type":"view_submission","user":{"id":"U1"}}`))
	good, _ := fake.PushMessage(slacktest.Msg{Channel: "D1", User: "U1", Text: "still here"})
	fake.WaitAcked(waitFor, good, bad, odd, unknown)
	if got := sink.Stored(); len(got) != 1 || got[0].Text != "still here" {
		t.Errorf("stored %+v", got)
	}
	if sink.HasState(channels.StateLoggedOut) {
		t.Error("malformed frames logged the adapter out")
	}
}

func TestInvalidAuthLogsOut(t *testing.T) {
	tests := []struct {
		name   string
		method string
	}{
		{"bot token refused", "auth.test"},
		{"app token refused", "apps.connections.open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			fake.Fail(tt.method, 100, slacktest.InvalidAuth())
			sink := &recSink{}
			a := newAdapter(t, fake, nil)
			start(t, a, sink)
			eventually(t, "logged-out", func() bool { return sink.HasState(channels.StateLoggedOut) })
			eventually(t, "loop ended", func() bool { return loopEnded(a) })
			if n := len(fake.Calls(tt.method)); n != 1 {
				t.Errorf("%d calls of %s after the token was refused, want 1 (no retry storm)", n, tt.method)
			}
			if st := sink.Last(); st.State != channels.StateLoggedOut || !strings.Contains(st.LastError, "invalid_auth") {
				t.Errorf("last status %+v", st)
			}
		})
	}
}

// TestRevokedWhileConnected: the token is revoked, the socket drops, the
// reconnect is refused: logged out, no retry storm.
func TestRevokedWhileConnected(t *testing.T) {
	fake := newFake(t)
	sink := &recSink{}
	a := newAdapter(t, fake, nil)
	start(t, a, sink)
	fake.WaitConnections(1, waitFor)
	fake.RevokeTokens()
	fake.DropSocket()
	eventually(t, "logged-out", func() bool { return sink.HasState(channels.StateLoggedOut) })
	eventually(t, "loop ended", func() bool { return loopEnded(a) })
	if n := len(fake.Calls("apps.connections.open")); n != 2 {
		t.Errorf("%d apps.connections.open calls, want 2", n)
	}
}

func TestBackoffAndRecovery(t *testing.T) {
	tests := []struct {
		name   string
		method string
		fault  slacktest.Fault
	}{
		{"auth.test 500", "auth.test", slacktest.ServerError()},
		{"auth.test 429", "auth.test", slacktest.TooManyRequests(0)},
		{"connections.open 500", "apps.connections.open", slacktest.ServerError()},
		{"connections.open malformed", "apps.connections.open", slacktest.Malformed()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			fake.Fail(tt.method, 2, tt.fault)
			sink := &recSink{}
			start(t, newAdapter(t, fake, nil), sink)
			fake.WaitConnections(1, waitFor)
			env, _ := fake.PushMessage(slacktest.Msg{Channel: "D1", User: "U1", Text: "after the storm"})
			fake.WaitAcked(waitFor, env)

			var attempts []int
			for _, st := range sink.Statuses() {
				if st.State == channels.StateBackingOff {
					attempts = append(attempts, st.Attempts)
					if st.LastError == "" {
						t.Error("backing-off status without LastError")
					}
				}
			}
			if !slices.Equal(attempts, []int{1, 2}) {
				t.Errorf("backing-off attempts %v, want [1 2]", attempts)
			}
			eventually(t, "connected last", func() bool { return sink.Last().State == channels.StateConnected })
		})
	}
}

// TestSecretsNeverLeak: neither logs, statuses nor errors show a token.
func TestSecretsNeverLeak(t *testing.T) {
	var logs bytes.Buffer
	sink := &recSink{}
	a := New(Options{
		BotToken: testBotToken, AppToken: testAppToken, SigningSecret: testSecret,
		APIURL:     "http://127.0.0.1:1/api/", // nothing listens there
		BackoffMin: 1, BackoffMax: 2,
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	start(t, a, sink)
	eventually(t, "backing off", func() bool {
		for _, st := range sink.Statuses() {
			if st.State == channels.StateBackingOff && st.Attempts >= 2 {
				return true
			}
		}
		return false
	})
	_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "C1"}, Text: "hi"})
	if err == nil {
		t.Fatal("send to a closed port succeeded")
	}
	texts := []string{err.Error()}
	for _, st := range sink.Statuses() {
		texts = append(texts, st.LastError, st.Detail)
	}
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	texts = append(texts, logs.String())
	for _, s := range texts {
		if strings.Contains(s, "SECRET") {
			t.Fatalf("secret leaked: %s", s)
		}
	}
}

func TestStartValidates(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no bot token", Options{AppToken: testAppToken}, "botToken is required"},
		{"socket without app token", Options{BotToken: testBotToken, Mode: ModeSocket}, "appToken"},
		{"app token of the wrong kind", Options{BotToken: testBotToken, AppToken: "xoxb-2"}, "xapp"},
		{"http with empty secret", Options{BotToken: testBotToken, Mode: ModeHTTP}, "signingSecret is required"},
		{"unknown mode", Options{BotToken: testBotToken, Mode: "rtm"}, "mode"},
		{"bad api url", Options{BotToken: testBotToken, AppToken: testAppToken, APIURL: "ftp://x"}, "apiUrl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(tt.opts).Start(context.Background(), &recSink{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start = %v, want an error about %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error quotes a secret: %v", err)
			}
		})
	}
}

func TestModeDefaults(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		mode     string
		hookPath string
	}{
		{"app token", Options{AccountID: "w", BotToken: "b", AppToken: "xapp-1"}, ModeSocket, ""},
		{"signing secret only", Options{AccountID: "w", BotToken: "b", SigningSecret: "s"}, ModeHTTP, "/slack/events/w"},
		{"both", Options{BotToken: "b", AppToken: "xapp-1", SigningSecret: "s"}, ModeSocket, ""},
		{"explicit http", Options{BotToken: "b", AppToken: "xapp-1", SigningSecret: "s", Mode: ModeHTTP, WebhookPath: "/hook"}, ModeHTTP, "/hook"},
		{"http no account", Options{BotToken: "b", SigningSecret: "s"}, ModeHTTP, "/slack/events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(tt.opts)
			if a.opts.Mode != tt.mode || a.WebhookPath() != tt.hookPath {
				t.Errorf("mode %q path %q, want %q %q", a.opts.Mode, a.WebhookPath(), tt.mode, tt.hookPath)
			}
			if a.TextLimit() != DefaultTextLimit || a.ChunkMode() != channels.ChunkLength || a.opts.SlashCommand != "/openclaw" {
				t.Errorf("defaults: %+v", a.opts)
			}
		})
	}
}
