package rpc

import (
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// idempotencyCache replays the answer of a call made again with the same
// idempotency key within the TTL. A repeat that arrives while the first is
// still running waits for it rather than running twice.
type idempotencyCache struct {
	now func() time.Time
	ttl time.Duration
	max int

	mu      sync.Mutex
	entries map[string]*idemEntry
	order   []string // insertion order, for eviction
}

type idemEntry struct {
	done    chan struct{}
	res     *protocol.Response
	expires time.Time
}

func newIdempotencyCache(now func() time.Time) *idempotencyCache {
	return &idempotencyCache{
		now: now, ttl: protocol.IdempotencyTTLMs * time.Millisecond, max: protocol.IdempotencyMax,
		entries: map[string]*idemEntry{},
	}
}

func (c *idempotencyCache) do(key string, run func() *protocol.Response) *protocol.Response {
	c.mu.Lock()
	now := c.now()
	if e, ok := c.entries[key]; ok && (e.res == nil || now.Before(e.expires)) {
		c.mu.Unlock()
		<-e.done
		return e.res
	}
	e := &idemEntry{done: make(chan struct{})}
	c.entries[key] = e
	c.order = append(c.order, key)
	c.evictLocked(now)
	c.mu.Unlock()

	res := run()
	c.mu.Lock()
	e.res = res
	e.expires = c.now().Add(c.ttl)
	c.mu.Unlock()
	close(e.done)
	return res
}

// evictLocked drops expired entries from the front and the oldest ones
// beyond max. Entries still running are kept.
func (c *idempotencyCache) evictLocked(now time.Time) {
	for len(c.order) > 0 {
		k := c.order[0]
		e, ok := c.entries[k]
		if ok && e.res == nil {
			break
		}
		if ok && len(c.entries) <= c.max && now.Before(e.expires) {
			break
		}
		if ok && e.res != nil {
			delete(c.entries, k)
		}
		c.order = c.order[1:]
	}
}
