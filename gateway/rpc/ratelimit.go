package rpc

import (
	"net/netip"
	"sync"
	"time"
)

// RateLimitConfig bounds failed connect attempts per client.
type RateLimitConfig struct {
	MaxAttempts    int           // failures allowed in Window; default 10
	Window         time.Duration // default 60 s
	Lockout        time.Duration // refusal time once exceeded; default 5 min
	ExemptLoopback bool          // direct loopback native clients are not counted
}

func (c RateLimitConfig) withDefaults() RateLimitConfig {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 10
	}
	if c.Window <= 0 {
		c.Window = time.Minute
	}
	if c.Lockout <= 0 {
		c.Lockout = 5 * time.Minute
	}
	return c
}

// rateLimiter counts auth failures per bucket (see rateLimitKey).
type rateLimiter struct {
	now func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	failures    []time.Time
	lockedUntil time.Time
}

// rateLimitKey is a client's failed-auth bucket: its address (see addrBucket),
// except for a browser page on this machine. Every local page shares the
// loopback address, so its failures are counted per page origin instead:
// a page must neither hide behind loopback's exemption nor lock out the
// local CLI. From any other address a page's origin is ignored, since a
// remote client can send whatever Origin it likes and would otherwise get
// a fresh bucket per value.
func rateLimitKey(ip netip.Addr, origin string) string {
	if origin != "" && ip.IsLoopback() {
		return originBucket(origin)
	}
	return addrBucket(ip)
}

// addrBucket is the bucket of a client address: the address itself for
// IPv4, its /64 for IPv6. One IPv6 host is usually handed a whole /64 and
// may use any address in it, a fresh one per try if it likes.
func addrBucket(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() && !ip.IsLoopback() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

func newRateLimiter(now func() time.Time) *rateLimiter {
	return &rateLimiter{now: now, buckets: map[string]*bucket{}}
}

// locked reports whether key is locked out and for how long still.
func (l *rateLimiter) locked(key string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		return 0, false
	}
	if d := b.lockedUntil.Sub(l.now()); d > 0 {
		return d, true
	}
	return 0, false
}

// fail records a failure and reports whether the key is now locked out.
func (l *rateLimiter) fail(key string, cfg RateLimitConfig) bool {
	cfg = cfg.withDefaults()
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) > 10000 {
			l.sweepLocked(now, cfg)
		}
		b = &bucket{}
		l.buckets[key] = b
	}
	cut := now.Add(-cfg.Window)
	kept := b.failures[:0]
	for _, t := range b.failures {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	b.failures = append(kept, now)
	if len(b.failures) >= cfg.MaxAttempts {
		b.lockedUntil = now.Add(cfg.Lockout)
		b.failures = nil
		return true
	}
	return false
}

func (l *rateLimiter) sweepLocked(now time.Time, cfg RateLimitConfig) {
	for k, b := range l.buckets {
		if b.lockedUntil.Before(now) && (len(b.failures) == 0 || b.failures[len(b.failures)-1].Before(now.Add(-cfg.Window))) {
			delete(l.buckets, k)
		}
	}
}
