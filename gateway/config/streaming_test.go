package config

import (
	"strings"
	"testing"
)

// Only "partial" and "off" do something here: "block" and "progress" load
// with a warning that says so.
func TestStreamingModeWarnings(t *testing.T) {
	tests := []struct {
		src, warn string
	}{
		{`{channels: {telegram: {botToken: "1:x", streaming: {mode: "partial"}}}}`, ""},
		{`{channels: {slack: {botToken: "b", appToken: "a", streaming: {mode: "off"}}}}`, ""},
		{`{channels: {discord: {token: "t", streaming: {mode: "progress"}}}}`, `channels.discord.streaming.mode`},
		{`{channels: {telegram: {botToken: "1:x", accounts: {b: {botToken: "2:y", streaming: {mode: "block"}}}}}}`, `channels.telegram.accounts.b.streaming.mode`},
	}
	for _, tt := range tests {
		snap, err := Parse("openclaw.json", []byte(tt.src), LoadOptions{Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, w := range snap.Warnings {
			if strings.Contains(w.Message, "not in effect here") && strings.Contains(w.Message, "streaming.mode") {
				got = w.Path
			}
		}
		if got != tt.warn {
			t.Errorf("%s: warned at %q, want %q (%v)", tt.src, got, tt.warn, snap.Warnings)
		}
	}
}
