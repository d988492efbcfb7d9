package cron

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"time"

	robcron "github.com/robfig/cron/v3"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// exprParser takes 5 fields, or 6 with seconds first, and the @daily
// style descriptors.
var exprParser = robcron.NewParser(robcron.SecondOptional | robcron.Minute | robcron.Hour |
	robcron.Dom | robcron.Month | robcron.Dow | robcron.Descriptor)

// DefaultStagger spreads top-of-the-hour cron jobs over five minutes,
// as OpenClaw does, so a gateway with many "0 * * * *" jobs does not
// call its model provider fifty times in the same second. staggerMs 0
// (the CLI's --exact) turns it off.
const DefaultStagger = 5 * time.Minute

// plan is a compiled schedule.
type plan struct {
	kind    string
	at      time.Time
	every   time.Duration
	anchor  time.Time
	expr    robcron.Schedule
	loc     *time.Location
	offset  time.Duration // this job's share of the stagger window
	onceDay bool          // the hour field is fixed: a repeated wall-clock hour runs once
}

// atLayouts are the offset-less forms of an at time; they mean UTC.
var atLayouts = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

// ParseAt reads an at time: RFC 3339, an offset-less date and time
// (UTC), epoch milliseconds, or a duration from now ("20m", "+1h",
// "in 2h").
func ParseAt(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, l := range atLayouts {
		if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
			return t, nil
		}
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms > 1e11 {
		return time.UnixMilli(ms), nil
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(s, "in "), "+")
	if d, err := config.ParseDuration(rel); err == nil && d > 0 {
		return now.Add(d), nil
	}
	return time.Time{}, fmt.Errorf("at %q is not a time: use RFC 3339 (2026-12-01T09:00:00+01:00), a UTC date and time (2026-12-01 08:00) or a duration from now (20m)", s)
}

// validate checks a schedule as added: it must compile, and a one-shot
// must not lie in the past.
func (s Schedule) validate(now time.Time) error {
	p, err := compile(s, "", now, time.Local)
	if err != nil {
		return err
	}
	if p.kind == KindAt && p.at.Before(now.Add(-time.Minute)) {
		return fmt.Errorf("at %s is in the past", p.at.UTC().Format(time.RFC3339))
	}
	return nil
}

// compile turns a schedule into a plan. created anchors every jobs that
// name no anchor; local is the zone of cron jobs without tz.
func compile(s Schedule, jobID string, created time.Time, local *time.Location) (*plan, error) {
	p := &plan{kind: s.Kind}
	switch s.Kind {
	case KindAt:
		if s.At == "" {
			return nil, errors.New("at is required for kind at")
		}
		t, err := ParseAt(s.At, created)
		if err != nil {
			return nil, err
		}
		p.at = t
	case KindEvery:
		if s.EveryMs <= 0 {
			return nil, errors.New("everyMs is required for kind every and must be positive")
		}
		p.every = time.Duration(s.EveryMs) * time.Millisecond
		if p.every < MinEvery {
			return nil, fmt.Errorf("everyMs %d is shorter than the minimum of %s", s.EveryMs, MinEvery)
		}
		p.anchor = created
		if s.AnchorMs != nil {
			p.anchor = time.UnixMilli(*s.AnchorMs)
		}
	case KindCron:
		expr := strings.TrimSpace(s.Expr)
		if expr == "" {
			return nil, errors.New("expr is required for kind cron")
		}
		if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
			return nil, errors.New("put the time zone in tz, not in expr")
		}
		sched, err := exprParser.Parse(expr)
		if err != nil {
			return nil, fmt.Errorf("expr %q: %w", expr, err)
		}
		p.expr, p.loc = sched, local
		if s.TZ != "" {
			loc, err := loadLocation(s.TZ)
			if err != nil {
				return nil, fmt.Errorf("tz %q is not an IANA time zone (like Europe/Berlin)", s.TZ)
			}
			p.loc = loc
		}
		fields := strings.Fields(expr)
		p.onceDay = hourFixed(fields)
		stagger := time.Duration(0)
		if s.StaggerMs != nil {
			stagger = time.Duration(*s.StaggerMs) * time.Millisecond
		} else if topOfHour(fields) {
			stagger = DefaultStagger
		}
		if stagger > 0 && jobID != "" {
			h := fnv.New64a()
			h.Write([]byte(jobID))
			p.offset = time.Duration(h.Sum64()%uint64(stagger/time.Millisecond)) * time.Millisecond
		}
	case "on-exit", "stream":
		return nil, fmt.Errorf("kind %q is not supported by this gateway (at, every or cron)", s.Kind)
	case "":
		return nil, errors.New("kind is required (at, every or cron)")
	default:
		return nil, fmt.Errorf("kind %q is unknown (at, every or cron)", s.Kind)
	}
	return p, nil
}

// zones caches time zones by name: LoadLocation reads and decodes the
// zone file on every call, and 10,000 jobs share a handful of zones.
var zones sync.Map // name -> *time.Location

func loadLocation(name string) (*time.Location, error) {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, l)
	return l, nil
}

// hourFixed reports whether the hour field names fixed hours, so a job
// at 01:30 runs once on the night the clocks go back, not twice.
func hourFixed(fields []string) bool {
	switch {
	case len(fields) == 1:
		switch fields[0] {
		case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight":
			return true
		}
		return false
	case len(fields) == 6:
		fields = fields[1:]
	}
	if len(fields) < 2 {
		return false
	}
	h := fields[1]
	return !strings.ContainsAny(h, "*/?")
}

// topOfHour reports whether an expression fires at minute 0 (and second
// 0): the moments everyone picks.
func topOfHour(fields []string) bool {
	if len(fields) == 1 {
		return strings.HasPrefix(fields[0], "@") && fields[0] != "@every"
	}
	if len(fields) == 6 {
		if fields[0] != "0" {
			return false
		}
		fields = fields[1:]
	}
	return len(fields) == 5 && fields[0] == "0"
}

// next returns the first run time after `after`; last is the previous
// scheduled time (zero if none). ok is false when the schedule has no
// more runs.
func (p *plan) next(after, last time.Time) (time.Time, bool) {
	switch p.kind {
	case KindAt:
		if !last.IsZero() {
			return time.Time{}, false
		}
		return p.at, true
	case KindEvery:
		if after.Before(p.anchor) {
			return p.anchor, true
		}
		n := after.Sub(p.anchor)/p.every + 1
		return p.anchor.Add(n * p.every), true
	case KindCron:
		t := p.cronNext(after.Add(-p.offset))
		if p.onceDay && !last.IsZero() {
			// The night the clocks go back an hour repeats its wall
			// times; a job at a fixed hour has already run at this one.
			lw := last.Add(-p.offset).In(p.loc)
			for i := 0; i < 2 && sameWall(t, lw); i++ {
				t = p.cronNext(t)
			}
		}
		if t.IsZero() {
			return time.Time{}, false
		}
		return t.Add(p.offset), true
	}
	return time.Time{}, false
}

// cronNext is robfig's Next in the job's zone, plus the runs it would
// miss the night the clocks go forward: a wall time that does not exist
// that night runs at the moment the clocks jump to, as cron does.
func (p *plan) cronNext(after time.Time) time.Time {
	t := p.expr.Next(after.In(p.loc))
	_, off := after.In(p.loc).Zone()
	fixed := p.expr.Next(after.In(time.FixedZone("", off)))
	if fixed.IsZero() || !fixed.Before(t) && !t.IsZero() {
		return t
	}
	// fixed comes first: a wall time read on the old offset. It counts
	// only if that wall time does not exist in the zone (the gap the
	// clocks jump over); then it runs at the instant it names, which
	// the zone shows as the same distance past the jump.
	wall := time.Date(fixed.Year(), fixed.Month(), fixed.Day(), fixed.Hour(), fixed.Minute(), fixed.Second(), 0, p.loc)
	if sameWall(wall, fixed) || !fixed.After(after) {
		return t
	}
	return fixed.In(p.loc)
}

func sameWall(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Hour() == b.Hour() && a.Minute() == b.Minute() && a.Second() == b.Second()
}
