package telegram

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
)

var updateInbound = flag.Bool("update-inbound", false, "rewrite the golden files in testdata/inbound")

// testBot is the identity of telegramtest's bot.
var testBot = botIdentity{ID: 7000001, Username: "openclaw_test_bot"}

// TestInboundGolden normalises every testdata/inbound/<case>.json and
// compares with <case>.golden ("null" when the update is skipped).
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
			u, err := parseUpdate(raw)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var got []byte
			if in, ok := normalise(u, testBot, "work"); ok {
				got, _ = json.MarshalIndent(in, "", "  ")
			} else {
				got = []byte("null")
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

func TestStripCommandSuffix(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ours", "/new@openclaw_test_bot", "/new"},
		{"ours with args", "/model@OpenClaw_Test_Bot gpt\nmore", "/model gpt\nmore"},
		{"other bot", "/new@other_bot", "/new@other_bot"},
		{"no suffix", "/new now", "/new now"},
		{"not a command", "mail me@openclaw_test_bot", "mail me@openclaw_test_bot"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stripCommandSuffix(tt.in, testBot.Username); got != tt.want {
				t.Errorf("stripCommandSuffix(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMentions(t *testing.T) {
	tests := []struct {
		name string
		text string
		ents []tgEntity
		want bool
	}{
		{"mention", "@openclaw_test_bot hi", []tgEntity{{Type: "mention", Offset: 0, Length: 18}}, true},
		{"other mention", "@openclaw_test_bot2 hi", []tgEntity{{Type: "mention", Offset: 0, Length: 19}}, false},
		{"after emoji", "👍👍 @openclaw_test_bot", []tgEntity{{Type: "mention", Offset: 5, Length: 18}}, true},
		{"out of range", "hi", []tgEntity{{Type: "mention", Offset: 1, Length: 50}}, false},
		{"negative", "hi", []tgEntity{{Type: "mention", Offset: -3, Length: 2}}, false},
		{"text mention", "bot", []tgEntity{{Type: "text_mention", Offset: 0, Length: 3, User: &tgUser{ID: testBot.ID}}}, true},
		{"command to us", "/a@openclaw_test_bot", []tgEntity{{Type: "bot_command", Offset: 0, Length: 20}}, true},
		{"bare command", "/a", []tgEntity{{Type: "bot_command", Offset: 0, Length: 2}}, false},
		{"no entities", "@openclaw_test_bot", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mentions(tt.text, tt.ents, testBot); got != tt.want {
				t.Errorf("mentions = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzInbound feeds arbitrary JSON to the decoder and normaliser: they
// must never panic, and what they produce must be well-formed.
func FuzzInbound(f *testing.F) {
	files, _ := filepath.Glob("testdata/inbound/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"update_id":1,"message":{"text":"@x","entities":[{"type":"mention","offset":99999999999,"length":-1}]}}`))
	f.Add([]byte(`{"update_id":1,"message":{"text":"/a@","reply_to_message":{}}}`))
	f.Add([]byte(`{"update_id":1,"chat_member":{}}`))
	f.Add([]byte(`{"update_id":1,"message_reaction":{"new_reaction":[{}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := parseUpdate(data)
		if err != nil {
			return
		}
		in, ok := normalise(u, testBot, "fuzz")
		if !ok {
			return
		}
		if in.Channel != Channel || in.EventID == "" || in.Kind == "" {
			t.Fatalf("incomplete event: %+v", in)
		}
		switch in.Chat.Kind {
		case channels.Direct, channels.Group, channels.Channel:
		default:
			t.Fatalf("chat kind %q", in.Chat.Kind)
		}
	})
}
