package config

import (
	"strings"
	"time"
)

// Postgres says the state lives in PostgreSQL.
func (s Store) Postgres() bool { return s.Driver == "postgres" }

// Lease returns how often the lease is tried and renewed, and how long
// it lasts without a renewal; the defaults where unset or unreadable
// (validation reported those).
func (s Store) Lease() (interval, timeout time.Duration) {
	interval, timeout = time.Second, 10*time.Second
	if d, err := ParseDuration(s.LeaseInterval); err == nil && d > 0 {
		interval = d
	}
	if d, err := ParseDuration(s.LeaseTimeout); err == nil && d > 0 {
		timeout = d
	}
	return interval, timeout
}

// validateStore checks store.*: postgres needs a URL, a URL needs
// postgres, and the lease must outlast several renewals, or a busy
// active gateway would be taken over while alive.
func (d *decoder) validateStore(c *Config) {
	s := c.Store
	switch {
	case s.Postgres() && strings.TrimSpace(s.URL) == "":
		n, p := d.where("store.url", "store.driver", "store")
		d.errorAtPath(n, p, `driver "postgres" needs store.url, the postgres:// URL of the database (for example "${OPENCLAW_STORE_URL}", to keep the password out of this file)`)
	case !s.Postgres() && s.URL != "":
		n, p := d.where("store.url")
		d.errorAtPath(n, p, `url is set but store.driver is %q; set driver "postgres" to use that database, or remove url`, s.Driver)
	}
	lease := map[string]string{"store.leaseInterval": s.LeaseInterval, "store.leaseTimeout": s.LeaseTimeout}
	for path, v := range lease {
		if v == "" {
			continue
		}
		if iv, err := ParseDuration(v); err != nil || iv <= 0 {
			n, p := d.where(path, "store")
			d.errorAtPath(n, p, "%q is not a positive duration like 1s or 10s", v)
		}
	}
	if interval, timeout := s.Lease(); timeout < 3*interval {
		n, p := d.where("store.leaseTimeout", "store.leaseInterval", "store")
		d.errorAtPath(n, p, "the lease timeout (%s) must be at least three lease intervals (%s): a standby would take over from an active gateway that is only slow", timeout, interval)
	}
}
