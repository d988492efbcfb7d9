package config

import (
	"fmt"
	"strings"
	"time"
)

// HeartbeatFor returns an agent's heartbeat settings: the keys its entry
// sets over agents.defaults.heartbeat.
func (c *Config) HeartbeatFor(agentID string) Heartbeat {
	h := c.Agents.Defaults.Heartbeat
	e, _ := c.Agent(agentID)
	o := e.Heartbeat
	pick := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	pick(&h.Every, o.Every)
	pick(&h.Prompt, o.Prompt)
	pick(&h.Target, o.Target)
	pick(&h.To, o.To)
	pick(&h.AccountID, o.AccountID)
	pick(&h.Model, o.Model)
	pick(&h.ActiveHours.Start, o.ActiveHours.Start)
	pick(&h.ActiveHours.End, o.ActiveHours.End)
	pick(&h.ActiveHours.Timezone, o.ActiveHours.Timezone)
	if o.TimeoutSeconds > 0 {
		h.TimeoutSeconds = o.TimeoutSeconds
	}
	return h
}

// Interval is every as a duration; 0 means heartbeats are off.
func (h Heartbeat) Interval() (time.Duration, error) {
	if strings.TrimSpace(h.Every) == "" {
		return 0, nil
	}
	return ParseDuration(h.Every)
}

// Active reports whether t falls inside activeHours. A window whose end
// is before its start runs over midnight.
func (a HeartbeatActiveHours) Active(t time.Time, local *time.Location) (bool, error) {
	if a.Start == "" && a.End == "" {
		return true, nil
	}
	loc := local
	if a.Timezone != "" && a.Timezone != "local" {
		l, err := time.LoadLocation(a.Timezone)
		if err != nil {
			return false, fmt.Errorf("activeHours.timezone %q is not an IANA time zone", a.Timezone)
		}
		loc = l
	}
	start, err := clockMinutes(a.Start, 0)
	if err != nil {
		return false, fmt.Errorf("activeHours.start: %w", err)
	}
	end, err := clockMinutes(a.End, 24*60)
	if err != nil {
		return false, fmt.Errorf("activeHours.end: %w", err)
	}
	lt := t.In(loc)
	m := lt.Hour()*60 + lt.Minute()
	if start <= end {
		return m >= start && m < end, nil
	}
	return m >= start || m < end, nil
}

// clockMinutes reads HH:MM (00:00 to 24:00) as minutes after midnight.
func clockMinutes(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	var h, m int
	if n, err := fmt.Sscanf(s, "%d:%d", &h, &m); err != nil || n != 2 || h < 0 || h > 24 || m < 0 || m > 59 || h == 24 && m != 0 || len(s) != 5 {
		return 0, fmt.Errorf("%q is not a time of day as HH:MM", s)
	}
	return h*60 + m, nil
}

// validateHeartbeat checks one heartbeat block at path.
func (d *decoder) validateHeartbeat(path string, h Heartbeat) {
	if h.Every != "" {
		if iv, err := ParseDuration(h.Every); err != nil || iv < 0 {
			n, p := d.where(path+".every", path)
			d.errorAtPath(n, p, "%q is not a duration like 30m or 1h (0m turns heartbeats off)", h.Every)
		} else if iv > 0 && iv < time.Minute {
			n, p := d.where(path+".every", path)
			d.errorAtPath(n, p, "%q is shorter than a minute; every heartbeat is a model call", h.Every)
		}
	}
	if _, err := h.ActiveHours.Active(time.Now(), time.Local); err != nil {
		n, p := d.where(path+".activeHours", path)
		d.errorAtPath(n, p, "%v", err)
	}
	switch h.Target {
	case "", "none", "last", "owner": // owner (the default) ignores to
	default:
		if h.To == "" {
			n, p := d.where(path+".to", path+".target", path)
			d.errorAtPath(n, p, "target %q names a channel, so to (the chat to send to) is required", h.Target)
		}
	}
}
