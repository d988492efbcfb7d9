package config

import (
	"testing"
	"time"
)

func TestHeartbeatFor(t *testing.T) {
	c := Defaults()
	c.Agents.Defaults.Heartbeat = Heartbeat{Every: "1h", Target: "last", Prompt: "p", ActiveHours: HeartbeatActiveHours{Start: "08:00"}}
	c.Agents.Entries = map[string]AgentEntry{"main": {}, "ops": {Heartbeat: Heartbeat{Every: "15m", To: "42", ActiveHours: HeartbeatActiveHours{End: "20:00"}}}}
	if got := c.HeartbeatFor("main"); got.Every != "1h" || got.Target != "last" {
		t.Fatalf("main inherits the defaults: %+v", got)
	}
	got := c.HeartbeatFor("OPS")
	if got.Every != "15m" || got.Target != "last" || got.To != "42" || got.Prompt != "p" ||
		got.ActiveHours.Start != "08:00" || got.ActiveHours.End != "20:00" {
		t.Fatalf("ops overrides key by key: %+v", got)
	}
	if iv, err := got.Interval(); err != nil || iv != 15*time.Minute {
		t.Fatalf("interval %s %v", iv, err)
	}
}

func TestActiveHours(t *testing.T) {
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	tests := []struct {
		a    HeartbeatActiveHours
		at   time.Time
		want bool
	}{
		{HeartbeatActiveHours{}, time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC), true},
		{HeartbeatActiveHours{Start: "08:00", End: "24:00"}, time.Date(2026, 1, 1, 7, 59, 0, 0, time.UTC), false},
		{HeartbeatActiveHours{Start: "08:00", End: "24:00"}, time.Date(2026, 1, 1, 23, 59, 0, 0, time.UTC), true},
		{HeartbeatActiveHours{Start: "22:00", End: "06:00"}, time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC), true},
		{HeartbeatActiveHours{Start: "22:00", End: "06:00"}, time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), false},
		// 23:30 UTC is 08:30 in Tokyo.
		{HeartbeatActiveHours{Start: "08:00", End: "09:00", Timezone: "Asia/Tokyo"}, time.Date(2026, 1, 1, 23, 30, 0, 0, time.UTC), true},
	}
	for _, tt := range tests {
		got, err := tt.a.Active(tt.at, time.UTC)
		if err != nil || got != tt.want {
			t.Errorf("%+v at %s (%s Tokyo): %v %v, want %v", tt.a, tt.at, tt.at.In(tokyo).Format("15:04"), got, err, tt.want)
		}
	}
}
