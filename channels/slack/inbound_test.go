package slack

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

var updateInbound = flag.Bool("update-inbound", false, "rewrite the golden files in testdata/inbound")

// testBot is the identity of slacktest's bot.
var testBot = botIdentity{UserID: slacktest.BotUserID, BotID: slacktest.BotID, Name: slacktest.BotName, TeamID: slacktest.TeamID}

// goldenEnvelope is one testdata/inbound case: a Socket Mode envelope.
type goldenEnvelope struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// TestInboundGolden normalises every testdata/inbound/<case>.json and
// compares with <case>.golden ("null" when the event is skipped).
func TestInboundGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/inbound/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no inbound cases: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var env goldenEnvelope
			if err := json.Unmarshal(raw, &env); err != nil {
				t.Fatal(err)
			}
			in, ok, err := normalise(env.Type, env.Payload, testBot, "work", "/openclaw", true)
			if err != nil {
				t.Fatalf("normalise: %v", err)
			}
			got := []byte("null")
			if ok {
				got, _ = json.MarshalIndent(in, "", "  ")
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(file, ".json") + ".golden"
			if *updateInbound {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-inbound to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("normalised %s:\n%s\nwant:\n%s", name, got, want)
			}
		})
	}
}

func TestReadableText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello", "hello"},
		{"user with label", "hi <@U1|ada>", "hi @ada"},
		{"user without label", "hi <@U1>", "hi @U1"},
		{"channel", "<#C1|general> <#C2>", "#general #C2"},
		{"special", "<!here> <!channel> <!everyone>", "@here @channel @everyone"},
		{"subteam", "<!subteam^S1|@ops>", "@ops"},
		{"link with label", "<https://a.test/x|docs>", "docs (https://a.test/x)"},
		{"link label is url", "<https://a.test|a.test>", "a.test"},
		{"bare link", "<https://a.test/?a=1&amp;b=2>", "https://a.test/?a=1&b=2"},
		{"mailto", "<mailto:a@b.test|a@b.test>", "a@b.test"},
		{"escapes", "a &lt;b&gt; &amp;amp;", "a <b> &amp;"},
		{"unclosed", "a < b <@U1", "a < b <@U1"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readableText(tt.in); got != tt.want {
				t.Errorf("readableText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripMention(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"leading", "<@U0BOT> hi", "hi"},
		{"leading colon", "<@U0BOT>: hi", "hi"},
		{"leading comma", "<@U0BOT>, hi", "hi"},
		{"middle", "hey <@U0BOT> how are you", "hey how are you"},
		{"end", "thanks <@U0BOT>", "thanks"},
		{"with label", "<@U0BOT|openclaw> go", "go"},
		{"twice", "<@U0BOT> <@U0BOT> go", "go"},
		{"other user kept", "<@U0BOTX> hi <@U1>", "<@U0BOTX> hi <@U1>"},
		{"newlines kept", "<@U0BOT>\nline1\n\nline2", "line1\n\nline2"},
		{"only mention", "<@U0BOT>", ""},
		{"before comma", "hey <@U0BOT>, hi", "hey, hi"},
		{"glued", "a<@U0BOT>b", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stripMention(tt.in, "U0BOT"); got != tt.want {
				t.Errorf("stripMention(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzInbound feeds arbitrary payloads of each kind to the normaliser: it
// must never panic, and what it produces must be well-formed.
func FuzzInbound(f *testing.F) {
	files, _ := filepath.Glob("testdata/inbound/*.json")
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var env goldenEnvelope
		if json.Unmarshal(raw, &env) == nil {
			f.Add(env.Type, []byte(env.Payload))
		}
	}
	f.Add("events_api", []byte(`{"type":"event_callback","event":{"type":"message","text":"<@U0BOT","channel":"C","ts":"1","user":"U"}}`))
	f.Add("events_api", []byte(`{"type":"event_callback","event":{"type":"message","subtype":"message_changed","channel":"C"}}`))
	f.Add("events_api", []byte(`{"type":"event_callback","event":{"type":"reaction_added","item":{}}}`))
	f.Add("interactive", []byte(`{"type":"block_actions","actions":[{}],"user":{"id":"U"}}`))
	f.Add("slash_commands", []byte(`{"command":"/openclaw"}`))
	f.Fuzz(func(t *testing.T, kind string, payload []byte) {
		in, ok, err := normalise(kind, payload, testBot, "fuzz", "/openclaw", true)
		if err != nil || !ok {
			return
		}
		if in.Channel != Channel || in.EventID == "" || in.Kind == "" || in.Chat.ID == "" || in.Sender.ID == "" {
			t.Fatalf("incomplete event: %+v", in)
		}
		switch in.Chat.Kind {
		case channels.Direct, channels.Group:
		default:
			t.Fatalf("chat kind %q", in.Chat.Kind)
		}
		if in.Sender.ID == testBot.UserID && (in.Kind == channels.EventEdit || (in.Kind == channels.EventMessage && in.MessageID != "")) {
			t.Fatalf("our own message delivered: %+v", in)
		}
	})
}

// TestImplicitMentionReplyToBot: a reply in a thread the bot started
// counts as a mention unless implicitMentions.replyToBot is false; an
// explicit mention counts either way.
func TestImplicitMentionReplyToBot(t *testing.T) {
	raw, err := os.ReadFile("testdata/inbound/thread-reply.json")
	if err != nil {
		t.Fatal(err)
	}
	var env goldenEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	explicit := []byte(strings.Replace(string(env.Payload), `"and then?"`, `"<@`+testBot.UserID+`> and then?"`, 1))
	for _, tc := range []struct {
		payload    []byte
		replyToBot bool
		want       bool
	}{
		{env.Payload, true, true},
		{env.Payload, false, false},
		{explicit, false, true},
	} {
		in, ok, err := normalise(env.Type, tc.payload, testBot, "work", "/openclaw", tc.replyToBot)
		if err != nil || !ok {
			t.Fatalf("normalise: %v %v", ok, err)
		}
		if in.Mentioned != tc.want {
			t.Errorf("replyToBot %v, explicit %v: Mentioned %v, want %v", tc.replyToBot, bytes.Contains(tc.payload, []byte("<@")), in.Mentioned, tc.want)
		}
	}
}
