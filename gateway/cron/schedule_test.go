package cron

import (
	"testing"
	"time"
)

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// runs lists the first n run times of a cron schedule after from, each
// computed from the last as the scheduler does.
func runs(t *testing.T, s Schedule, from time.Time, n int) []time.Time {
	t.Helper()
	p, err := compile(s, "job", from, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var out []time.Time
	last := time.Time{}
	after := from
	for range n {
		next, ok := p.next(after, last)
		if !ok {
			break
		}
		out = append(out, next)
		after, last = next, next
	}
	return out
}

func TestCronAcrossDST(t *testing.T) {
	ny := mustLoc(t, "America/New_York")
	zero := int64(0)
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, ny) }
	tests := []struct {
		name string
		expr string
		from time.Time
		want []time.Time
	}{
		{
			// 02:30 does not exist on 8 March: the job runs when the
			// clocks jump (03:30 EDT) instead of skipping the day.
			name: "spring forward, daily in the gap",
			expr: "30 2 * * *", from: at(2026, 3, 7, 12, 0),
			want: []time.Time{time.Date(2026, 3, 8, 3, 30, 0, 0, ny), at(2026, 3, 9, 2, 30)},
		},
		{
			name: "spring forward, daily outside the gap",
			expr: "30 1 * * *", from: at(2026, 3, 7, 12, 0),
			want: []time.Time{at(2026, 3, 8, 1, 30), at(2026, 3, 9, 1, 30)},
		},
		{
			// 01:30 happens twice on 1 November: a daily job runs once.
			name: "fall back, daily in the repeated hour",
			expr: "30 1 * * *", from: at(2026, 10, 31, 12, 0),
			want: []time.Time{at(2026, 11, 1, 1, 30), at(2026, 11, 2, 1, 30)},
		},
		{
			// An hourly job runs in both 01:00s: they are an hour apart.
			name: "fall back, hourly",
			expr: "0 * * * *", from: at(2026, 11, 1, 0, 30),
			want: []time.Time{
				time.Date(2026, 11, 1, 5, 0, 0, 0, time.UTC), // 01:00 EDT
				time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC), // 01:00 EST
				time.Date(2026, 11, 1, 7, 0, 0, 0, time.UTC), // 02:00 EST
			},
		},
		{
			name: "seconds field",
			expr: "*/20 * * * * *", from: at(2026, 6, 1, 9, 0),
			want: []time.Time{at(2026, 6, 1, 9, 0).Add(20 * time.Second), at(2026, 6, 1, 9, 0).Add(40 * time.Second)},
		},
		{
			name: "descriptor",
			expr: "@daily", from: at(2026, 6, 1, 9, 0),
			want: []time.Time{at(2026, 6, 2, 0, 0), at(2026, 6, 3, 0, 0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runs(t, Schedule{Kind: KindCron, Expr: tt.expr, TZ: "America/New_York", StaggerMs: &zero}, tt.from, len(tt.want))
			if len(got) != len(tt.want) {
				t.Fatalf("got %v", got)
			}
			for i := range got {
				if !got[i].Equal(tt.want[i]) {
					t.Errorf("run %d = %s, want %s", i, got[i].In(ny), tt.want[i].In(ny))
				}
			}
		})
	}
}

func TestEveryAnchor(t *testing.T) {
	anchor := time.Date(2026, 1, 1, 0, 0, 7, 0, time.UTC).UnixMilli()
	from := time.Date(2026, 1, 1, 0, 3, 0, 0, time.UTC)
	got := runs(t, Schedule{Kind: KindEvery, EveryMs: 60000, AnchorMs: &anchor}, from, 2)
	if !got[0].Equal(time.Date(2026, 1, 1, 0, 3, 7, 0, time.UTC)) || !got[1].Equal(got[0].Add(time.Minute)) {
		t.Fatalf("runs %v", got)
	}
}

func TestParseAt(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2026-05-02T09:00:00+02:00", time.Date(2026, 5, 2, 7, 0, 0, 0, time.UTC)},
		{"2026-05-02T09:00:00Z", time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)},
		{"2026-05-02 09:00", time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)}, // offset-less means UTC
		{"2026-05-02", time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)},
		{"20m", now.Add(20 * time.Minute)},
		{"+1h30m", now.Add(90 * time.Minute)},
		{"in 2d", now.Add(48 * time.Hour)},
		{"1777716000000", time.UnixMilli(1777716000000)},
	}
	for _, tt := range tests {
		got, err := ParseAt(tt.in, now)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseAt(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "soon", "-5m", "2026-13-01", "0m"} {
		if _, err := ParseAt(bad, now); err == nil {
			t.Errorf("ParseAt(%q) accepted", bad)
		}
	}
}

// FuzzSchedule feeds job schedules from the bus (untrusted) through
// compile and next: no panic, and every next time is after its input.
func FuzzSchedule(f *testing.F) {
	for _, s := range []string{"0 9 * * *", "*/5 * * * * *", "@daily", "30 2 * * 0", "61 * * * *", "", "0 0 31 2 *"} {
		f.Add("cron", s, "America/New_York", int64(0))
	}
	f.Add("every", "", "", int64(60000))
	f.Add("at", "20m", "", int64(0))
	f.Add("at", "2026-05-02 09:00", "", int64(0))
	f.Fuzz(func(t *testing.T, kind, expr, tz string, every int64) {
		now := time.Date(2026, 3, 8, 1, 59, 0, 0, time.UTC)
		s := Schedule{Kind: kind, Expr: expr, At: expr, TZ: tz, EveryMs: every}
		p, err := compile(s, "fuzz", now, time.UTC)
		if err != nil {
			return
		}
		after := now
		for range 5 {
			next, ok := p.next(after, time.Time{})
			if !ok {
				return
			}
			if kind != KindAt && !next.After(after) {
				t.Fatalf("%+v: next %s not after %s", s, next, after)
			}
			after = next
		}
	})
}
