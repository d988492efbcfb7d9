package discord

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

var testBot = botIdentity{ID: "900000000000000001", Username: "openclaw-test", AppID: "900000000000000002"}

// testThreads knows one thread, thread-9 of chan-1.
func testThreads(id string) (threadInfo, bool) {
	if id == "thread-9" {
		return threadInfo{isThread: true, parentID: "chan-1"}, true
	}
	return threadInfo{}, true
}

// testEnv knows testThreads and one managed role of the bot, role-bot.
func testEnv(account string, allowBots bool) normEnv {
	return normEnv{me: testBot, account: account, allowBots: allowBots, threads: testThreads,
		botRole: func(id string) bool { return id == "role-bot" }}
}

// TestInboundGolden normalises every testdata/inbound/<case>.json (an
// object {"t": type, "d": data}) and compares with <case>.golden ("null"
// when the event is skipped).
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
			var ev struct {
				T string          `json:"t"`
				D json.RawMessage `json:"d"`
			}
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatal(err)
			}
			var got []byte
			if in, ok := normalise(ev.T, ev.D, testEnv("work", false)); ok {
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

func TestStripMention(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"plain", "<@900000000000000001> hi", "hi"},
		{"nick form", "hi <@!900000000000000001>", "hi"},
		{"other user kept", "<@123> hi", "<@123> hi"},
		{"only mention", "<@900000000000000001>", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := stripMention(tt.in, testBot.ID); got != tt.want {
				t.Errorf("stripMention(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzInbound feeds arbitrary event data to the normaliser: it must never
// panic, and what it produces must be well-formed.
func FuzzInbound(f *testing.F) {
	files, _ := filepath.Glob("testdata/inbound/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			var ev struct {
				T string          `json:"t"`
				D json.RawMessage `json:"d"`
			}
			if json.Unmarshal(b, &ev) == nil {
				f.Add(ev.T, []byte(ev.D))
			}
		}
	}
	f.Add("MESSAGE_CREATE", []byte(`{"id":"1","channel_id":"2","author":{"id":"3"},"content":"<@","referenced_message":{}}`))
	f.Add("INTERACTION_CREATE", []byte(`{"id":"1","token":"t","channel_id":"c","type":2,"data":{"name":"new"}}`))
	f.Add("MESSAGE_REACTION_ADD", []byte(`{"emoji":{}}`))
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		in, ok := normalise(typ, data, testEnv("fuzz", true))
		if !ok {
			return
		}
		if in.Channel != Channel || in.EventID == "" || in.Kind == "" || in.Chat.ID == "" {
			t.Fatalf("incomplete event: %+v", in)
		}
		switch in.Chat.Kind {
		case channels.Direct, channels.Group:
		default:
			t.Fatalf("chat kind %q", in.Chat.Kind)
		}
	})
}
