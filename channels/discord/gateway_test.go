package discord

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
)

var ada = user("111", "ada")

func TestInboundEndToEnd(t *testing.T) {
	fake := discordtest.New(t, testToken)
	fake.AddChannel("thread-9", map[string]any{"type": 11, "parent_id": "chan-1", "guild_id": "g1"})
	fake.AddChannel("chan-1", map[string]any{"type": 0, "guild_id": "g1"})
	// No GatewayURL: the adapter asks gateway/bot.
	a := newAdapter(t, fake, func(o *Options) { o.GatewayURL = "" })
	sink := channelstest.FailingSink(1) // the first store fails and is retried
	start(t, a, sink)
	fake.WaitLive(1, 0, waitFor)
	eventually(t, "connected", func() bool { return sink.Count(channels.StateConnected) > 0 })
	for _, st := range sink.Statuses() {
		if st.State == channels.StateConnected && st.Bot != discordtest.BotUsername {
			t.Errorf("connected status Bot = %q, want %q", st.Bot, discordtest.BotUsername)
		}
	}

	fake.Dispatch("MESSAGE_CREATE", message("m1", "dm-1", "", "hello", ada))
	mention := message("m2", "chan-1", "g1", "<@"+discordtest.BotID+"> what's up", ada)
	mention["mentions"] = []any{discordtest.BotUserMap()}
	fake.Dispatch("MESSAGE_CREATE", mention)
	fake.Dispatch("MESSAGE_CREATE", message("m3", "thread-9", "g1", "in a thread", ada))
	own := message("m4", "chan-1", "g1", "my own", discordtest.BotUserMap())
	fake.Dispatch("MESSAGE_CREATE", own)
	fake.Dispatch("MESSAGE_CREATE", message("m5", "dm-1", "", "last", ada))

	got := waitStored(t, sink, 4)
	want := []struct {
		id, chat, thread string
		kind             channels.ChatKind
		text             string
		mentioned        bool
	}{
		{"m1", "dm-1", "", channels.Direct, "hello", false},
		{"m2", "chan-1", "", channels.Group, "what's up", true},
		{"m3", "chan-1", "thread-9", channels.Group, "in a thread", false},
		{"m5", "dm-1", "", channels.Direct, "last", false},
	}
	for i, w := range want {
		in := got[i]
		if in.EventID != w.id || in.Chat.ID != w.chat || in.Chat.ThreadID != w.thread || in.Chat.Kind != w.kind ||
			in.Text != w.text || in.Mentioned != w.mentioned || in.Sender.ID != "111" || in.Channel != Channel || in.AccountID != "work" {
			t.Errorf("event %d = %+v, want %+v", i, in, w)
		}
	}
	if got[1].GuildID != "g1" || len(got[1].Roles) != 1 {
		t.Errorf("guild event lacks guild or roles: %+v", got[1])
	}
}

func TestReconnect(t *testing.T) {
	tests := []struct {
		name     string
		interval time.Duration
		fault    func(*discordtest.Server)
		resumes  bool // the session resumes (else a new IDENTIFY)
	}{
		{"dropped socket", 45 * time.Second, (*discordtest.Server).DropConnections, true},
		{"close 4000", 45 * time.Second, func(s *discordtest.Server) { s.CloseWith(4000) }, true},
		{"op 7 reconnect", 45 * time.Second, func(s *discordtest.Server) { s.SendRaw([]byte(`{"op":7,"d":null}`)) }, true},
		{"silent socket", 100 * time.Millisecond, (*discordtest.Server).GoSilent, true},
		{"close 4009 session timed out", 45 * time.Second, func(s *discordtest.Server) { s.CloseWith(4009) }, false},
		{"op 9 not resumable", 45 * time.Second, func(s *discordtest.Server) { s.SendRaw([]byte(`{"op":9,"d":false}`)) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := discordtest.New(t, testToken)
			fake.SetHeartbeatInterval(tt.interval)
			a := newAdapter(t, fake, nil)
			sink := &recSink{}
			start(t, a, sink)
			fake.WaitLive(1, 0, waitFor)
			if got, want := fake.Stats().Intents, int(intents); got != want || want != 1|1<<9|1<<10|1<<12|1<<13|1<<15 {
				t.Errorf("IDENTIFY intents %d, want %d", got, want)
			}
			fake.Dispatch("MESSAGE_CREATE", message("m1", "dm-1", "", "before", ada))
			waitStored(t, sink, 1)

			tt.fault(fake)
			want := []string{"m1", "m3"}
			if tt.resumes {
				// Sent while the connection is down or silent: the resume replays it.
				fake.Dispatch("MESSAGE_CREATE", message("m2", "dm-1", "", "during", ada))
				want = []string{"m1", "m2", "m3"}
				fake.WaitLive(1, 1, waitFor)
			} else {
				fake.WaitLive(2, 0, waitFor)
			}
			fake.Dispatch("MESSAGE_CREATE", message("m3", "dm-1", "", "after", ada))
			got := waitStored(t, sink, len(want))
			var ids []string
			for _, in := range got {
				ids = append(ids, in.EventID)
			}
			if strings.Join(ids, " ") != strings.Join(want, " ") {
				t.Errorf("events %v, want %v", ids, want)
			}
			if st := fake.Stats(); tt.resumes && st.Identifies != 1 {
				t.Errorf("%d identifies, want 1 (the reconnect resumes)", st.Identifies)
			}
			eventually(t, "connected again", func() bool { return sink.Count(channels.StateConnected) >= 2 })
			if sink.Count(channels.StateBackingOff) == 0 {
				t.Errorf("statuses %+v: want backing-off between the connections", sink.Statuses())
			}
		})
	}
}

func TestGatewayBotRetried(t *testing.T) {
	fake := discordtest.New(t, testToken)
	fake.Fail("gateway/bot", 2, discordtest.ServerError())
	a := newAdapter(t, fake, func(o *Options) { o.GatewayURL = "" })
	sink := &recSink{}
	start(t, a, sink)
	fake.WaitLive(1, 0, waitFor)
	eventually(t, "connected", func() bool { return sink.Count(channels.StateConnected) > 0 })
	var attempts []int
	for _, st := range sink.Statuses() {
		if st.State == channels.StateBackingOff {
			attempts = append(attempts, st.Attempts)
		}
	}
	if len(attempts) != 2 || attempts[0] != 1 || attempts[1] != 2 {
		t.Errorf("backing-off attempts %v, want [1 2]", attempts)
	}
}

func TestInvalidTokenLogsOut(t *testing.T) {
	tests := []struct {
		name    string
		gateway bool // use the gateway URL directly (close 4004) or ask gateway/bot (401)
	}{
		{"close 4004", true},
		{"gateway/bot 401", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := discordtest.New(t, testToken)
			fake.RevokeToken()
			a := newAdapter(t, fake, func(o *Options) {
				if !tt.gateway {
					o.GatewayURL = ""
				}
			})
			var logs lockedBuffer
			a.log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			sink := &recSink{}
			start(t, a, sink)
			eventually(t, "logged-out", func() bool { return sink.Count(channels.StateLoggedOut) > 0 })
			select {
			case <-a.life.Done(): // the loop gave up: no reconnect storm
			case <-time.After(waitFor):
				t.Fatal("gateway loop still running after logged-out")
			}
			st := fake.Stats()
			if st.Connections > 1 {
				t.Errorf("%d gateway connections, want at most 1", st.Connections)
			}
			if containsToken(logs.String()) || !strings.Contains(logs.String(), "refused") {
				t.Errorf("logs leak the token or miss the refusal:\n%s", logs.String())
			}
			for _, s := range sink.Statuses() {
				if containsToken(s.LastError) || containsToken(s.Detail) {
					t.Errorf("status leaks the token: %+v", s)
				}
			}
		})
	}
}

func TestMalformedPayloads(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	sink := &recSink{}
	start(t, a, sink)
	fake.WaitLive(1, 0, waitFor)
	for _, raw := range []string{
		`{not json`,
		`{"op":0,"t":"MESSAGE_CREATE","s":99,"d":"a string"}`,
		`{"op":0,"t":"MESSAGE_CREATE","s":100,"d":{"id":5,"author":[]}}`,
		`{"op":0,"t":"INTERACTION_CREATE","s":101,"d":{"id":"1","type":3}}`,
		`{"op":0,"t":"MESSAGE_REACTION_ADD","s":102,"d":null}`,
		`{"op":42}`,
		`[]`,
	} {
		fake.SendRaw([]byte(raw))
	}
	fake.Dispatch("MESSAGE_CREATE", message("ok", "dm-1", "", "still here", ada))
	got := waitStored(t, sink, 1)
	if len(got) != 1 || got[0].EventID != "ok" {
		t.Errorf("stored %+v, want only the good message", got)
	}
	if st := fake.Stats(); st.Connections != 1 {
		t.Errorf("%d connections: malformed frames should not drop the socket", st.Connections)
	}
}

func TestInteractions(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	sink := &recSink{}
	start(t, a, sink)
	fake.WaitLive(1, 0, waitFor)
	fake.Dispatch("INTERACTION_CREATE", map[string]any{
		"id": "1300000000000000100", "type": 3, "token": "tok-a", "channel_id": "chan-1", "guild_id": "g1",
		"member":  map[string]any{"user": ada, "roles": []string{"r"}},
		"message": map[string]any{"id": "m9"},
		"data":    map[string]any{"custom_id": "approve:7:allow", "component_type": 2},
	})
	fake.Dispatch("INTERACTION_CREATE", map[string]any{
		"id": "1300000000000000101", "type": 2, "token": "tok-b", "channel_id": "dm-1", "user": ada,
		"data": map[string]any{"name": "new", "type": 1},
	})
	// /voice is the gateway's /tts, its option the rest of the line.
	fake.Dispatch("INTERACTION_CREATE", map[string]any{
		"id": "1300000000000000102", "type": 2, "token": "tok-c", "channel_id": "dm-1", "user": ada,
		"data": map[string]any{"name": "voice", "type": 1, "options": []any{map[string]any{"name": "args", "type": 3, "value": "audio Hello\nthere"}}},
	})
	fake.Dispatch("INTERACTION_CREATE", map[string]any{
		"id": "1300000000000000103", "type": 2, "token": "tok-d", "channel_id": "dm-1", "user": ada,
		"data": map[string]any{"name": "voice", "type": 1},
	})
	got := waitStored(t, sink, 4)
	if got[2].Text != "/tts audio Hello there" || got[3].Text != "/tts" {
		t.Errorf("/voice = %q, %q", got[2].Text, got[3].Text)
	}
	if in := got[0]; in.Kind != channels.EventCallback || in.CallbackData != "approve:7:allow" ||
		in.CallbackID != "1300000000000000100:tok-a" || in.MessageID != "m9" {
		t.Errorf("button press = %+v", in)
	}
	if in := got[1]; in.Kind != channels.EventMessage || in.Text != "/new" || in.Chat.Kind != channels.Direct {
		t.Errorf("slash command = %+v", in)
	}
	cbs := fake.WaitCallbacks(4, waitFor)
	if cbs[0].Type != 6 || cbs[1].Type != 4 || cbs[1].Flags != 64 {
		t.Errorf("acks %+v: want a deferred update, then an ephemeral message", cbs)
	}
	// The pipeline answers the press later: the ack is not repeated, the
	// text comes as an ephemeral follow-up.
	if err := a.AnswerCallback(context.Background(), got[0].CallbackID, "Recorded: allow"); err != nil {
		t.Fatal(err)
	}
	cbs = fake.Callbacks()
	if last := cbs[len(cbs)-1]; last.InteractionID != "" || last.Content != "Recorded: allow" || last.Flags != 64 || last.Token != "tok-a" {
		t.Errorf("follow-up %+v", last)
	}
}

// ourGoroutines lists the stacks of goroutines running this package's
// adapter code.
func ourGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "channels/discord.(*Adapter)") || strings.Contains(g, "channels/discord.(*gwConn)") {
			out = append(out, g)
		}
	}
	return out
}

func TestStopLeavesNoGoroutines(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, fake *discordtest.Server, sink *recSink)
	}{
		{"connected", func(t *testing.T, fake *discordtest.Server, sink *recSink) { fake.WaitLive(1, 0, waitFor) }},
		{"backing off", func(t *testing.T, fake *discordtest.Server, sink *recSink) {
			fake.Close()
			eventually(t, "backing-off", func() bool { return sink.Count(channels.StateBackingOff) > 0 })
		}},
		{"storing", func(t *testing.T, fake *discordtest.Server, sink *recSink) {
			sink.SetFail(1 << 30) // the store never recovers
			fake.WaitLive(1, 0, waitFor)
			fake.Dispatch("MESSAGE_CREATE", message("m1", "dm-1", "", "x", ada))
			eventually(t, "a failing store", func() bool { return sink.Failing() < 1<<30 })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := discordtest.New(t, testToken)
			fake.SetHeartbeatInterval(50 * time.Millisecond)
			a := newAdapter(t, fake, func(o *Options) { o.BackoffMin, o.BackoffMax = time.Hour, time.Hour })
			sink := &recSink{}
			if err := a.Start(context.Background(), sink); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, fake, sink)
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			if err := a.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			eventually(t, "adapter goroutines to end", func() bool { return len(ourGoroutines()) == 0 })
			if n := sink.Count(channels.StateStopped); n != 1 {
				t.Errorf("%d stopped statuses, want 1", n)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for a logger and a test to share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
