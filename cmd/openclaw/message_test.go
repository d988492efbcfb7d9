package main

import "testing"

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
	})
}

func TestMessageUsage(t *testing.T) {
	runUsageCases(t, false, []usageCase{
		{"no subcommand", []string{"message"}, "missing subcommand (one of delete, edit, pin, poll, react, send, unpin)"},
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
