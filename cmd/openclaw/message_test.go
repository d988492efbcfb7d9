package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

func TestMessageRequests(t *testing.T) {
	write := []string{"operator.write"}
	sent := map[string]any{"runId": "x", "messageId": "42", "channel": "telegram", "chatId": "-100123", "status": "sent"}
	ok := map[string]any{"ok": true, "channel": "telegram"}
	runRPCCases(t, []rpcCase{
		{name: "send", args: []string{"message", "send", "--channel", "telegram", "--target", "-100123", "--message", "hi"},
			method: "send", wantKey: true, wantScopes: write, payload: sent,
			wantParams: `{"channel":"telegram","message":"hi","to":"-100123"}`,
			wantOut:    "Sent to -100123 (message 42)\n"},
		{name: "send all flags", args: []string{"message", "send", "--target", "telegram:-100123", "--message", "hi",
			"--account", "work", "--reply-to", "7", "--thread-id", "3", "--silent"},
			method: "send", wantKey: true, wantScopes: write, payload: sent,
			wantParams: `{"accountId":"work","message":"hi","replyToId":"7","silent":true,"threadId":"3","to":"telegram:-100123"}`,
			wantOut:    "Sent to -100123 (message 42)\n"},
		{name: "send pending", args: []string{"message", "send", "--target", "tg:5", "--message", "hi"},
			method: "send", wantKey: true, wantScopes: write,
			payload:    map[string]any{"chatId": "5", "status": "pending"},
			wantParams: `{"message":"hi","to":"tg:5"}`, wantOut: "Queued for 5; it will be retried\n"},
		{name: "send json", args: []string{"message", "send", "--target", "5", "--message", "hi", "--json"},
			method: "send", wantKey: true, wantScopes: write, payload: map[string]any{"chatId": "5", "status": "sent"},
			wantParams: `{"message":"hi","to":"5"}`, wantOut: "{\n  \"chatId\": \"5\",\n  \"status\": \"sent\"\n}\n"},
		{name: "poll", args: []string{"message", "poll", "--channel", "telegram", "--target", "5", "--question", "Lunch?",
			"--option", "Pizza", "--poll-option", "Soup", "--multi"},
			method: "poll", wantKey: true, wantScopes: write, payload: map[string]any{"ok": true, "messageId": "9"},
			wantParams: `{"channel":"telegram","maxSelections":2,"options":["Pizza","Soup"],"question":"Lunch?","to":"5"}`,
			wantOut:    "Poll sent to 5 (message 9)\n"},
		{name: "react", args: []string{"message", "react", "--channel", "telegram", "--target", "5", "--message-id", "42", "--emoji", "👍"},
			method: "message.action", wantKey: true, wantScopes: write, payload: ok,
			wantParams: `{"action":"react","channel":"telegram","params":{"emoji":"👍","messageId":"42","to":"5"}}`,
			wantOut:    "Reacted 👍 to message 42 in 5\n"},
		{name: "edit", args: []string{"message", "edit", "--channel", "telegram", "--target", "5", "--message-id", "42", "--message", "fixed"},
			method: "message.action", wantKey: true, wantScopes: write, payload: ok,
			wantParams: `{"action":"edit","channel":"telegram","params":{"message":"fixed","messageId":"42","to":"5"}}`,
			wantOut:    "Edited message 42 in 5\n"},
		{name: "delete", args: []string{"message", "delete", "--channel", "telegram", "--account", "work", "--target", "5", "--message-id", "42"},
			method: "message.action", wantKey: true, wantScopes: write, payload: ok,
			wantParams: `{"accountId":"work","action":"delete","channel":"telegram","params":{"messageId":"42","to":"5"}}`,
			wantOut:    "Deleted message 42 in 5\n"},
		{name: "pin", args: []string{"message", "pin", "--channel", "telegram", "--target", "5", "--message-id", "42", "--thread-id", "3"},
			method: "message.action", wantKey: true, wantScopes: write, payload: ok,
			wantParams: `{"action":"pin","channel":"telegram","params":{"messageId":"42","threadId":"3","to":"5"}}`,
			wantOut:    "Pinned message 42 in 5\n"},
		{name: "unpin json", args: []string{"message", "unpin", "--channel", "telegram", "--target", "5", "--message-id", "42", "--json"},
			method: "message.action", wantKey: true, wantScopes: write, payload: ok,
			wantParams: `{"action":"unpin","channel":"telegram","params":{"messageId":"42","to":"5"}}`,
			wantOut:    "{\n  \"channel\": \"telegram\",\n  \"ok\": true\n}\n"},
		{name: "read", args: []string{"message", "read", "--channel", "discord", "--target", "c1", "--limit", "5", "--before", "99"},
			method: "message.action", wantKey: true, wantScopes: write, payload: map[string]any{"ok": true, "messages": []any{}},
			wantParams: `{"action":"read","channel":"discord","params":{"before":"99","limit":5,"to":"c1"}}`,
			wantOut:    "{\n  \"messages\": [],\n  \"ok\": true\n}\n"},
		{name: "reactions", args: []string{"message", "reactions", "--target", "discord:c1", "--message-id", "42", "--emoji", "👍"},
			method: "message.action", wantKey: true, wantScopes: write, payload: ok,
			wantParams: `{"action":"reactions","params":{"emoji":"👍","messageId":"42","to":"discord:c1"}}`,
			wantOut:    "{\n  \"channel\": \"telegram\",\n  \"ok\": true\n}\n"},
		{name: "pins", args: []string{"message", "pins", "--channel", "slack", "--target", "C1"},
			method: "message.action", wantKey: true, wantScopes: write, payload: ok,
			wantParams: `{"action":"list-pins","channel":"slack","params":{"to":"C1"}}`,
			wantOut:    "{\n  \"channel\": \"telegram\",\n  \"ok\": true\n}\n"},
	})
}

func TestMessageUsage(t *testing.T) {
	runUsageCases(t, false, []usageCase{
		{"no subcommand", []string{"message"}, "missing subcommand (one of delete, edit, pin, pins, poll, react, reactions, read, send, unpin)"},
		{"unknown subcommand", []string{"message", "broadcast"}, `openclaw message has no command "broadcast"`},
		{"send without target", []string{"message", "send", "--message", "hi"}, "--target is required"},
		{"send without message", []string{"message", "send", "--target", "5"}, "--message is required"},
		{"send positional", []string{"message", "send", "--target", "5", "--message", "hi", "extra"}, `unexpected argument "extra"`},
		{"poll one option", []string{"message", "poll", "--target", "5", "--question", "Q", "--option", "A"}, "at least two --option"},
		{"poll without question", []string{"message", "poll", "--target", "5", "--option", "A", "--option", "B"}, "--question is required"},
		{"react without emoji", []string{"message", "react", "--target", "5", "--message-id", "1"}, "--emoji is required"},
		{"edit without text", []string{"message", "edit", "--target", "5", "--message-id", "1"}, "--message is required"},
		{"delete without id", []string{"message", "delete", "--target", "5"}, "--message-id is required"},
		{"pin without target", []string{"message", "pin", "--message-id", "1"}, "--target is required"},
		{"delete has no emoji", []string{"message", "delete", "--target", "5", "--message-id", "1", "--emoji", "x"}, "unknown flag: --emoji"},
	})
}

// TestMessageSendMedia checks --media is confined to the default agent's
// workspace by send_file's own check, --dry-run sends nothing, and the
// attacks on the path (escape, absolute, link out, URL) are refused
// before anything reaches the gateway.
func TestMessageSendMedia(t *testing.T) {
	tests := []struct {
		name     string
		args     []string // after "message send"
		wantOut  []string
		wantErr  string
		wantSent bool
	}{
		{name: "dry-run text", args: []string{"-t", "5", "-m", "hi", "--channel", "telegram", "--dry-run"},
			wantOut: []string{"[dry-run] would run send via telegram to 5\n"}},
		{name: "dry-run json with media", args: []string{"--target", "5", "--media", "pic.png", "--media", "WS/docs/a.txt", "--dry-run", "--json"},
			wantOut: []string{`"action": "send"`, `"dryRun": true`, `"mediaUrl": "pic.png"`, `"docs/a.txt"`, `"via": "gateway"`}},
		{name: "shorthands send", args: []string{"-t", "5", "-m", "hi"}, wantSent: true},
		{name: "media cannot be sent yet", args: []string{"--target", "5", "--media", "pic.png"}, wantErr: "takes text only"},
		{name: "escape", args: []string{"--target", "5", "--media", "../secret.txt", "--dry-run"}, wantErr: `--media "../secret.txt"`},
		{name: "absolute outside", args: []string{"--target", "5", "--media", "/etc/passwd", "--dry-run"}, wantErr: `--media "/etc/passwd"`},
		{name: "link out", args: []string{"--target", "5", "--media", "link.txt", "--dry-run"}, wantErr: `--media "link.txt"`},
		{name: "url", args: []string{"--target", "5", "--media", "http://169.254.169.254/latest/meta-data", "--dry-run"}, wantErr: "URLs are not accepted"},
		{name: "directory", args: []string{"--target", "5", "--media", "docs", "--dry-run"}, wantErr: "is a directory"},
		{name: "missing", args: []string{"--target", "5", "--media", "nope.png", "--dry-run"}, wantErr: "does not exist in the workspace"},
		{name: "neither message nor media", args: []string{"--target", "5", "--dry-run"}, wantErr: "--message is required unless --media"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			ws := filepath.Join(home, ".openclaw", "workspace")
			if err := os.MkdirAll(filepath.Join(ws, "docs"), 0o700); err != nil {
				t.Fatal(err)
			}
			for name, body := range map[string]string{"pic.png": "png", "docs/a.txt": "a"} {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			secret := filepath.Join(home, ".openclaw", "secret.txt")
			if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, filepath.Join(ws, "link.txt")); err != nil {
				t.Fatal(err)
			}
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("send", map[string]any{"messageId": "m1", "chatId": "5"})
			args := []string{"message", "send"}
			for _, a := range tc.args {
				args = append(args, strings.Replace(a, "WS", ws, 1))
			}
			stdout, stderr, err := runCLI(t, append(args, "--url", srv.URL(), "--token", testToken)...)
			if n := len(srv.Requests()); (n > 0) != tc.wantSent {
				t.Errorf("%d requests sent, want sent=%v", n, tc.wantSent)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tc.wantErr) {
					t.Fatalf("err %v stderr %q; want %q", err, stderr, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if tc.wantSent {
				var p map[string]any
				if err := json.Unmarshal(srv.Requests()[0].Params, &p); err != nil || p["message"] != "hi" || p["to"] != "5" {
					t.Errorf("send params %s", srv.Requests()[0].Params)
				}
			}
		})
	}
}
