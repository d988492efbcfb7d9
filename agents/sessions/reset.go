package sessions

import (
	"strings"
	"time"
	"unicode"
)

// Reset modes (session.reset.mode).
const (
	ResetNone  = "none"
	ResetDaily = "daily"
	ResetIdle  = "idle"
)

// DefaultResetHour is session.reset.atHour's default: 4 in the morning.
const DefaultResetHour = 4

// DefaultResetTriggers are session.resetTriggers' default.
var DefaultResetTriggers = []string{"/new", "/reset"}

// ResetPolicy is when a session starts over by itself (session.reset).
type ResetPolicy struct {
	// Mode is none, daily or idle; anything else never resets.
	Mode string
	// AtHour is the local hour (0-23) of the daily boundary. The zero value
	// means midnight: whoever builds the policy from config fills in
	// DefaultResetHour when atHour is absent (DefaultResetPolicy does).
	AtHour int
	// IdleMinutes resets a session idle longer than this; in daily mode it
	// applies too when above 0 (whichever comes first).
	IdleMinutes int
}

// DefaultResetPolicy is the policy when session.reset is not configured:
// daily at DefaultResetHour.
func DefaultResetPolicy() ResetPolicy {
	return ResetPolicy{Mode: ResetDaily, AtHour: DefaultResetHour}
}

// ShouldReset reports whether s is stale under p at now, as OpenClaw
// judges freshness: in daily mode when the session began (StartedAt)
// before the latest AtHour boundary in loc (nil: time.Local) that now has
// passed; in idle mode (or daily with IdleMinutes) when more than
// IdleMinutes passed since its last message. A session without messages
// never needs a reset.
func ShouldReset(s *Session, p ResetPolicy, now time.Time, loc *time.Location) bool {
	if s == nil || s.LastMessageAt.IsZero() {
		return false
	}
	last := s.LastMessageAt
	started := s.StartedAt
	if started.IsZero() {
		started = last
	}
	idle := p.IdleMinutes > 0 && now.Sub(last) > time.Duration(p.IdleMinutes)*time.Minute
	switch p.Mode {
	case ResetIdle:
		return idle
	case ResetDaily:
		return idle || started.Before(dailyBoundary(now, p.AtHour, loc))
	}
	return false
}

// dailyBoundary returns the latest time at hour o'clock in loc that is not
// after now.
func dailyBoundary(now time.Time, hour int, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.Local
	}
	hour = min(max(hour, 0), 23)
	y, m, d := now.In(loc).Date()
	b := atHour(y, m, d, hour, loc)
	if b.After(now) {
		b = atHour(y, m, d-1, hour, loc)
	}
	return b
}

// atHour returns the first instant of the day whose wall clock reads hour
// o'clock or later: the hour itself, or its end when a daylight-saving
// jump skips it (2:00 becomes 3:00 on a spring-forward night).
func atHour(y int, m time.Month, d, hour int, loc *time.Location) time.Time {
	day := time.Date(y, m, d, 12, 0, 0, 0, loc).Day()
	t := time.Date(y, m, d, hour, 0, 0, 0, loc)
	// In a gap Go answers with an earlier wall time; step forward out of it.
	for i := 0; i < 3 && (t.Day() != day || t.Hour() < hour); i++ {
		t = t.Add(time.Hour)
	}
	return t
}

// IsResetTrigger reports whether text starts with a reset trigger
// (triggers, or DefaultResetTriggers when empty): its first word must be
// the whole trigger, in any case. A Telegram-style "/new@botname" counts
// as "/new". It returns the trigger as configured and the text after it,
// trimmed ("/new hello" gives "/new", "hello").
func IsResetTrigger(text string, triggers []string) (trigger, rest string, ok bool) {
	if len(triggers) == 0 {
		triggers = DefaultResetTriggers
	}
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	word, rest := text, ""
	if i := strings.IndexFunc(text, unicode.IsSpace); i >= 0 {
		word, rest = text[:i], strings.TrimSpace(text[i:])
	}
	if word == "" {
		return "", "", false
	}
	command, _, mention := strings.Cut(word, "@")
	for _, t := range triggers {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
		case strings.EqualFold(word, t):
			return t, rest, true
		case mention && strings.HasPrefix(t, "/") && !strings.Contains(t, "@") && strings.EqualFold(command, t):
			return t, rest, true
		}
	}
	return "", "", false
}
