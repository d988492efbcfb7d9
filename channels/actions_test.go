package channels

import (
	"strings"
	"testing"
	"time"
)

// The message tool's and message.action's parameters of the new actions
// decode into ActionRequest, and out-of-range numbers or bad times are
// refused before any adapter sees them.
func TestActionFromParamsNewFields(t *testing.T) {
	m := &Manager{}
	ar, err := m.ActionFromParams("discord", "", "Ban", map[string]any{
		"userId": "7", "reason": "spam", "deleteDays": float64(2), "limit": "20", "threadName": "Plans",
		"roleId": "r1", "query": "q", "before": "b", "after": "a", "stickerId": []any{"s1", "s2"},
		"until": "2027-01-01T10:00:00Z", "durationMinutes": float64(15), "autoArchiveMinutes": float64(60),
		"eventName": "Party", "startTime": "2027-01-02T18:00:00Z", "endTime": "2027-01-02T20:00:00Z",
		"desc": "fun", "location": "pub", "eventType": "external", "eventChannelId": "c9",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := ActionRequest{Channel: "discord", Action: "ban", UserID: "7", Reason: "spam", DeleteDays: 2, Limit: 20, Name: "Plans",
		RoleID: "r1", Query: "q", Before: "b", After: "a", Until: time.Date(2027, 1, 1, 10, 0, 0, 0, time.UTC),
		DurationMinutes: 15, AutoArchive: 60}
	ar.StickerIDs, ar.Event = nil, EventSpec{}
	if ar.UserID != want.UserID || ar.Action != want.Action || ar.Reason != want.Reason || ar.DeleteDays != 2 || ar.Limit != 20 ||
		ar.Name != "Plans" || ar.RoleID != "r1" || ar.Query != "q" || ar.Before != "b" || ar.After != "a" ||
		!ar.Until.Equal(want.Until) || ar.DurationMinutes != 15 || ar.AutoArchive != 60 {
		t.Errorf("got %+v", ar)
	}
	ar, _ = m.ActionFromParams("discord", "", "event-create", map[string]any{"stickerId": []any{"s1", "s2"},
		"eventName": "Party", "startTime": "2027-01-02T18:00:00Z", "location": "pub", "eventType": "external", "eventChannelId": "c9", "desc": "fun"})
	if len(ar.StickerIDs) != 2 || ar.Event.Name != "Party" || ar.Event.Start.IsZero() || ar.Event.Location != "pub" ||
		ar.Event.Type != "external" || ar.Event.ChannelID != "c9" || ar.Event.Description != "fun" {
		t.Errorf("got %+v", ar)
	}

	bad := []struct {
		name   string
		params map[string]any
		err    string
	}{
		{"limit too big", map[string]any{"limit": float64(500)}, "limit must be a whole number from 0 to 100"},
		{"limit not a number", map[string]any{"limit": "lots"}, "limit \"lots\" is not a number"},
		{"fractional days", map[string]any{"deleteDays": 1.5}, "deleteDays must be a whole number"},
		{"eight days", map[string]any{"deleteDays": float64(8)}, "from 0 to 7"},
		{"timeout over 28 days", map[string]any{"durationMinutes": float64(28*24*60 + 1)}, "durationMinutes"},
		{"until not a time", map[string]any{"until": "tomorrow"}, "not an RFC 3339 time"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.ActionFromParams("discord", "", "timeout", tt.params)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err %v, want %q", err, tt.err)
			}
		})
	}
}
