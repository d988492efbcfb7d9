package discord

import (
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// TestPolicyAllowBots: allowBots "mentions" lets bots reach the gate,
// which then requires them to mention us.
func TestPolicyAllowBots(t *testing.T) {
	for _, tc := range []struct {
		in                  config.BotAdmission
		allow, needsMention bool
	}{
		{config.BotsDropped, false, false},
		{config.BotsAdmitted, true, false},
		{config.BotsWhenMentions, true, true},
	} {
		p := policy(&config.Config{}, config.DiscordAccount{AllowBots: tc.in})
		if p.AllowBots != tc.allow || p.BotsNeedMention != tc.needsMention {
			t.Errorf("allowBots %q: AllowBots %v BotsNeedMention %v, want %v %v", tc.in, p.AllowBots, p.BotsNeedMention, tc.allow, tc.needsMention)
		}
	}
}
