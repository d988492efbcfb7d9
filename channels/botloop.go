package channels

import (
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// BotLoop is the resolved bot loop protection of an account: another bot
// may send Max messages in one chat within Window; past that its
// messages there are dropped for Cooldown.
type BotLoop struct {
	Off              bool
	Max              int
	Window, Cooldown time.Duration
}

// BotLoopFor resolves botLoopProtection blocks, narrowest first (the
// account's own, the channel's, channels.defaults), key by key, over the
// built-in defaults (20 messages in 60 s, 60 s cooldown).
func BotLoopFor(layers ...config.BotLoopProtection) BotLoop {
	var enabled *bool
	maxEvents, window, cooldown := 0, 0, 0
	for _, l := range layers {
		if enabled == nil {
			enabled = l.Enabled
		}
		if maxEvents == 0 {
			maxEvents = l.MaxEventsPerWindow
		}
		if window == 0 {
			window = l.WindowSeconds
		}
		if cooldown == 0 {
			cooldown = l.CooldownSeconds
		}
	}
	orDefault := func(v, def int) time.Duration { return time.Duration(cmpOr(v, def)) * time.Second }
	return BotLoop{Off: !BoolOr(enabled, true), Max: cmpOr(maxEvents, 20), Window: orDefault(window, 60), Cooldown: orDefault(cooldown, 60)}
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// botLoopGuard counts other bots' messages per account, chat and bot.
type botLoopGuard struct {
	mu    sync.Mutex
	pairs map[string]*botPair
}

type botPair struct {
	times []time.Time // messages within the window, oldest first
	until time.Time   // cut off until then
}

// maxBotPairs bounds the guard's memory: past it, pairs with nothing
// left to remember are forgotten.
const maxBotPairs = 4096

// admit records one message from a bot in a chat (key) and reports
// whether it may reach the agent. The caller calls it once per message.
func (g *botLoopGuard) admit(key string, lim BotLoop, now time.Time) bool {
	if lim.Off {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pairs == nil {
		g.pairs = map[string]*botPair{}
	}
	p := g.pairs[key]
	if p == nil {
		if len(g.pairs) >= maxBotPairs {
			g.sweep(now, lim.Window)
		}
		p = &botPair{}
		g.pairs[key] = p
	}
	return p.count(lim, now)
}

// count records one new message and reports whether it is within budget.
func (p *botPair) count(lim BotLoop, now time.Time) bool {
	if now.Before(p.until) {
		return false
	}
	cut := 0
	for cut < len(p.times) && now.Sub(p.times[cut]) >= lim.Window {
		cut++
	}
	p.times = append(p.times[cut:], now)
	if len(p.times) > lim.Max {
		p.times, p.until = nil, now.Add(lim.Cooldown)
		return false
	}
	return true
}

func (g *botLoopGuard) sweep(now time.Time, window time.Duration) {
	for k, p := range g.pairs {
		if !now.Before(p.until) && (len(p.times) == 0 || now.Sub(p.times[len(p.times)-1]) >= window) {
			delete(g.pairs, k)
		}
	}
}
