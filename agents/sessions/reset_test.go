package sessions

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the host has installed
)

func TestShouldReset(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	at := func(loc *time.Location, y int, m time.Month, d, h, min int) time.Time {
		return time.Date(y, m, d, h, min, 0, 0, loc)
	}
	daily := DefaultResetPolicy()
	for _, tc := range []struct {
		name      string
		last, now time.Time
		p         ResetPolicy
		loc       *time.Location
		want      bool
	}{
		{"daily before the boundary", at(ny, 2026, 3, 1, 3, 0), at(ny, 2026, 3, 1, 3, 59), daily, ny, false},
		{"daily at the boundary", at(ny, 2026, 3, 1, 3, 0), at(ny, 2026, 3, 1, 4, 0), daily, ny, true},
		{"daily last after today's boundary", at(ny, 2026, 3, 1, 4, 30), at(ny, 2026, 3, 1, 23, 0), daily, ny, false},
		{"daily early next morning", at(ny, 2026, 3, 1, 4, 30), at(ny, 2026, 3, 2, 3, 0), daily, ny, false},
		{"daily next morning", at(ny, 2026, 3, 1, 4, 30), at(ny, 2026, 3, 2, 4, 1), daily, ny, true},
		{"daily days later", at(ny, 2026, 2, 20, 12, 0), at(ny, 2026, 3, 1, 1, 0), daily, ny, true},
		{"same instants in New York", at(time.UTC, 2026, 3, 1, 8, 30), at(time.UTC, 2026, 3, 1, 9, 30), daily, ny, true},
		{"same instants in UTC", at(time.UTC, 2026, 3, 1, 8, 30), at(time.UTC, 2026, 3, 1, 9, 30), daily, time.UTC, false},
		{"same instants in Tokyo", at(time.UTC, 2026, 3, 1, 8, 30), at(time.UTC, 2026, 3, 1, 9, 30), daily, tokyo, false},
		{"Tokyo boundary is 19:00 UTC", at(time.UTC, 2026, 3, 1, 18, 59), at(time.UTC, 2026, 3, 1, 19, 0), daily, tokyo, true},
		{"nil location is local", at(time.Local, 2026, 3, 1, 3, 0), at(time.Local, 2026, 3, 1, 5, 0), daily, nil, true},
		{"midnight", at(ny, 2026, 3, 1, 23, 59), at(ny, 2026, 3, 2, 0, 0), ResetPolicy{Mode: ResetDaily, AtHour: 0}, ny, true},
		{"DST gap hour", at(ny, 2026, 3, 8, 1, 30), at(ny, 2026, 3, 8, 3, 30), ResetPolicy{Mode: ResetDaily, AtHour: 2}, ny, true},
		{"DST fall back", at(ny, 2026, 11, 1, 3, 59), at(ny, 2026, 11, 1, 4, 0), daily, ny, true},
		{"daily with idle first", at(ny, 2026, 3, 1, 5, 0), at(ny, 2026, 3, 1, 7, 0), ResetPolicy{Mode: ResetDaily, AtHour: 4, IdleMinutes: 60}, ny, true},
		{"idle not yet", at(time.UTC, 2026, 3, 1, 12, 0), at(time.UTC, 2026, 3, 1, 12, 30), ResetPolicy{Mode: ResetIdle, IdleMinutes: 30}, nil, false},
		{"idle", at(time.UTC, 2026, 3, 1, 12, 0), at(time.UTC, 2026, 3, 1, 12, 31), ResetPolicy{Mode: ResetIdle, IdleMinutes: 30}, nil, true},
		{"idle ignores the daily boundary", at(ny, 2026, 3, 1, 3, 50), at(ny, 2026, 3, 1, 4, 10), ResetPolicy{Mode: ResetIdle, IdleMinutes: 60}, ny, false},
		{"idle without minutes", at(ny, 2026, 1, 1, 0, 0), at(ny, 2026, 3, 1, 0, 0), ResetPolicy{Mode: ResetIdle}, ny, false},
		{"none", at(ny, 2026, 1, 1, 0, 0), at(ny, 2026, 3, 1, 0, 0), ResetPolicy{Mode: ResetNone, IdleMinutes: 1}, ny, false},
		{"unknown mode", at(ny, 2026, 1, 1, 0, 0), at(ny, 2026, 3, 1, 0, 0), ResetPolicy{Mode: "weekly"}, ny, false},
		{"no messages", time.Time{}, at(ny, 2026, 3, 1, 0, 0), daily, ny, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Session{LastMessageAt: tc.last, StartedAt: tc.last}
			if got := ShouldReset(s, tc.p, tc.now, tc.loc); got != tc.want {
				t.Errorf("ShouldReset(last %v, now %v, %+v) = %v", tc.last, tc.now, tc.p, got)
			}
		})
	}
	// Daily freshness counts from when the session began, idle from its
	// last message: a session begun before today's boundary is stale
	// however recently it was used.
	ny4 := at(ny, 2026, 3, 1, 4, 0)
	begun := &Session{StartedAt: ny4.Add(-time.Hour), LastMessageAt: ny4.Add(time.Hour)}
	if !ShouldReset(begun, daily, ny4.Add(2*time.Hour), ny) {
		t.Error("daily: a session begun before the boundary is fresh")
	}
	if ShouldReset(begun, ResetPolicy{Mode: ResetIdle, IdleMinutes: 120}, ny4.Add(2*time.Hour), ny) {
		t.Error("idle: a session used an hour ago is stale after 120 idle minutes")
	}
	if ShouldReset(nil, daily, time.Now(), nil) {
		t.Error("ShouldReset(nil) = true")
	}
}

func TestIsResetTrigger(t *testing.T) {
	for _, tc := range []struct {
		name, text    string
		triggers      []string
		trigger, rest string
		ok            bool
	}{
		{"new", "/new", nil, "/new", "", true},
		{"reset", "/reset", nil, "/reset", "", true},
		{"with rest", "/new hello there", nil, "/new", "hello there", true},
		{"case and spaces", "  /NEW   Hello\n", nil, "/new", "Hello", true},
		{"rest on a new line", "/reset\nstart over", nil, "/reset", "start over", true},
		{"bot mention", "/new@OpenClawBot hi", nil, "/new", "hi", true},
		{"longer word", "/newest", nil, "", "", false},
		{"not first", "please /new", nil, "", "", false},
		{"empty", "   ", nil, "", "", false},
		{"custom", "!Fresh start", []string{"!fresh"}, "!fresh", "start", true},
		{"custom replaces defaults", "/new", []string{"!fresh"}, "", "", false},
		{"blank triggers skipped", "/new", []string{" ", "/new"}, "/new", "", true},
		{"mention needs a slash command", "!fresh@bot", []string{"!fresh"}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trigger, rest, ok := IsResetTrigger(tc.text, tc.triggers)
			if trigger != tc.trigger || rest != tc.rest || ok != tc.ok {
				t.Errorf("IsResetTrigger(%q) = %q, %q, %v; want %q, %q, %v", tc.text, trigger, rest, ok, tc.trigger, tc.rest, tc.ok)
			}
		})
	}
}
