package config

import (
	"strings"
	"testing"
)

// TestCompactionKeys: agents.defaults.compaction decodes in OpenClaw's
// shape, sizes take a unit, and the keys that do nothing here say so.
func TestCompactionKeys(t *testing.T) {
	src := `{agents: {defaults: {compaction: {
  enabled: false, mode: "default", provider: "my-provider", thinkingLevel: "low", timeoutSeconds: 60,
  keepRecentTokens: 5000, recentTurnsPreserve: 0, identifierPolicy: "off", qualityGuard: { enabled: false, maxRetries: 2 },
  midTurnPrecheck: { enabled: true }, postIndexSync: "await", postCompactionSections: ["Red Lines"],
  model: "fake/summ", maxActiveTranscriptBytes: "20mb", notifyUser: true,
  memoryFlush: { enabled: true, softThresholdTokens: 6000, forceFlushTranscriptBytes: "2mb" },
}}}}`
	snap, errs, warns := parseTest(t, src, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	c := snap.Config.Agents.Defaults.Compaction
	if c.CompactionOn() || c.Safeguard() || c.StrictIdentifiers() || c.TimeoutSeconds != 60 || c.KeepRecentTokens != 5000 ||
		c.RecentTurnsPreserve.Or(3) != 0 || c.MaxActiveTranscriptBytes != 20<<20 || !c.NotifyUser || c.Model != "fake/summ" ||
		len(c.PostCompactionSections) != 1 || c.MemoryFlush.ForceFlushTranscriptBytes != 2<<20 {
		t.Errorf("compaction %+v", c)
	}
	joined := strings.Join(warns, "\n")
	for _, want := range []string{
		"agents.defaults.compaction.provider: is not in effect here",
		"agents.defaults.compaction.thinkingLevel: is not in effect here",
		"agents.defaults.compaction.midTurnPrecheck: is not in effect here",
		"agents.defaults.compaction.postIndexSync: is not in effect here",
		"agents.defaults.compaction.memoryFlush: is not in effect here",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no warning %q in\n%s", want, joined)
		}
	}
	for _, key := range []string{"compaction.enabled", "compaction.mode", "compaction.model", "keepRecentTokens", "notifyUser", "maxActiveTranscriptBytes", "qualityGuard", "postCompactionSections"} {
		if strings.Contains(joined, key) {
			t.Errorf("%s takes effect, yet warned:\n%s", key, joined)
		}
	}
	// OpenClaw's onboarding writes mode "safeguard" alone: no warning.
	if _, errs, warns := parseTest(t, `{agents: {defaults: {compaction: {mode: "safeguard"}}}}`, nil); len(errs)+len(warns) > 0 {
		t.Errorf("mode safeguard: errors %v, warnings %v", errs, warns)
	}
}

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in      string
		want    ByteSize
		wantErr string
	}{
		{"1024", 1024, ""},
		{"512b", 512, ""},
		{"64kb", 64 << 10, ""},
		{"20mb", 20 << 20, ""},
		{"20 MB", 20 << 20, ""},
		{"1.5gb", 3 << 29, ""},
		{"", 0, "want a number"},
		{"mb", 0, "want a number"},
		{"10tb", 0, "unknown unit"},
		{"1.2.3mb", 0, "size"},
		{"99999999999gb", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := ParseByteSize(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseByteSize(%q) = %d, %v; want an error with %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	if _, errs, _ := parseTest(t, `{agents: {defaults: {compaction: {maxActiveTranscriptBytes: "lots"}}}}`, nil); len(errs) == 0 ||
		!strings.Contains(errs[0], "agents.defaults.compaction.maxActiveTranscriptBytes") {
		t.Errorf("a bad size: errors %v, want one naming the key", errs)
	}
}

func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"20mb", "1.5gb", "", "9e99kb", "1 k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseByteSize(s); err == nil && v < 0 {
			t.Fatalf("ParseByteSize(%q) = %d", s, v)
		}
	})
}

// TestCommandMenuKeys: commands.nativeSkills and the networks' own
// commands decode without warnings, except Slack's true (no menu there).
func TestCommandMenuKeys(t *testing.T) {
	src := `{commands: {native: "auto", nativeSkills: false},
  channels: {telegram: {botToken: "1:x", commands: {nativeSkills: true}}, discord: {token: "x", commands: {native: false}}, slack: {botToken: "xoxb-1", appToken: "xapp-1", commands: {nativeSkills: true}}}}`
	snap, errs, warns := parseTest(t, src, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	c := snap.Config
	if n, s := c.Channels.Telegram.Commands.Resolve(c.Commands); n != "auto" || s != "true" {
		t.Errorf("telegram native %q skills %q", n, s)
	}
	if n, s := c.Channels.Discord.Commands.Resolve(c.Commands); n != "false" || s != "false" {
		t.Errorf("discord native %q skills %q", n, s)
	}
	joined := strings.Join(warns, "\n")
	off := 0
	for _, w := range warns {
		if strings.Contains(w, "not in effect") || strings.Contains(w, "not implemented yet") {
			off++
		}
	}
	if off != 1 || !strings.Contains(joined, "channels.slack.commands.nativeSkills: true is not in effect here") {
		t.Errorf("want Slack's nativeSkills alone not in effect; warnings:\n%s", joined)
	}
}

func TestTailscaleMode(t *testing.T) {
	for mode, wantWarn := range map[string]bool{"off": false, "serve": true, "funnel": true} {
		_, errs, warns := parseTest(t, `{gateway: {tailscale: {mode: "`+mode+`"}}}`, nil)
		warned := strings.Contains(strings.Join(warns, "\n"), "gateway.tailscale.mode: \""+mode+"\" is not in effect here")
		if len(errs) > 0 || warned != wantWarn || !wantWarn && len(warns) > 0 {
			t.Errorf("mode %s: errors %v, warnings %v", mode, errs, warns)
		}
	}
}
