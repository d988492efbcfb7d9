package web

import (
	"sync"
	"time"
)

// ttlCache is the small expiring cache both web tools keep, so that a
// model asking for the same page or query twice in a turn costs one
// request. At most maxCacheEntries live; when full, expired entries go
// first and then the one closest to expiry.
type ttlCache[V any] struct {
	ttl time.Duration // negative turns the cache off
	now func() time.Time

	mu      sync.Mutex
	entries map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

func newTTLCache[V any](ttl time.Duration) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, now: time.Now, entries: map[string]ttlEntry[V]{}}
}

func (c *ttlCache[V]) get(key string) (V, bool) {
	var zero V
	if c.ttl < 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !c.now().Before(e.expires) {
		return zero, false
	}
	return e.v, true
}

func (c *ttlCache[V]) put(key string, v V) {
	if c.ttl < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.entries) >= maxCacheEntries {
		var oldest string
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
				continue
			}
			if oldest == "" || e.expires.Before(c.entries[oldest].expires) {
				oldest = k
			}
		}
		if len(c.entries) >= maxCacheEntries {
			delete(c.entries, oldest)
		}
	}
	c.entries[key] = ttlEntry[V]{v: v, expires: now.Add(c.ttl)}
}
