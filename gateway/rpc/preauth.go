package rpc

import (
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Pre-auth budget defaults (Options.MaxPreauth* and PreauthPressure*).
const (
	defaultMaxPreauth = 512
	// defaultMaxPreauthPerIP is OpenClaw's own default
	// (OPENCLAW_MAX_PREAUTH_CONNECTIONS_PER_IP).
	defaultMaxPreauthPerIP     = 32
	defaultMaxPreauthPerOrigin = 32
	defaultPressureTimeout     = 2 * time.Second
	defaultPreauthMinAge       = time.Second
)

// preauthBudget admits unauthenticated sockets. A socket holds a slot from
// before the upgrade until it authenticates or closes. The budget is
// built so that a flood of idle sockets cannot keep an operator out:
//
//   - A remote address (IPv6 by its /64) past MaxPreauthPerIP is refused
//     before the upgrade, as OpenClaw refuses it (HTTP 503). Direct
//     loopback peers are not budgeted by address: the operator shares
//     127.0.0.1 with any local flooder, so refusing the address would
//     refuse the operator too.
//   - A browser Origin past MaxPreauthPerOrigin, or the whole budget past
//     MaxPreauth, makes room by evicting the oldest idle socket (of that
//     origin, or of all) instead of refusing the newcomer for as long as
//     the flood holds its sockets: the flood only churns itself, and the
//     operator's socket gets in. Only a socket idle for PreauthMinAge may
//     be evicted; while all are younger the newcomer is refused (503) and
//     tries again. So an admitted socket, perhaps the operator's, always
//     has that long to send connect, and a flood cannot churn the budget
//     faster than MaxPreauth sockets per PreauthMinAge, each eviction
//     costing the gateway an upgrade. Evictions are also spaced
//     PreauthMinAge/MaxPreauth apart: a flood whose sockets were all
//     evicted in one burst would otherwise reopen them in that same
//     burst, so every slot would come of age in the same instant each
//     PreauthMinAge and be retaken by the flood's immediate redials
//     within a millisecond, before an operator retrying at a human pace
//     could get one. Spaced, the slots age one by one, and each opening
//     goes to whoever asks first after it.
//   - From PreauthPressure sockets on, every idle socket's handshake
//     deadline is cut to PreauthPressureTimeout after its opening, so the
//     oldest go first and held sockets cost the flooder more.
//
// A socket is idle until its first text frame arrives; after that it is
// being authenticated (bounded by the handshake timeout) and is neither
// evicted nor hurried, until a refusal makes it evictable again.
type preauthBudget struct {
	max, perIP, perOrigin int
	pressureAt            int
	timeout, pressureTTL  time.Duration
	minAge                time.Duration
	spacing               time.Duration // between two evictions
	log                   *slog.Logger
	now                   func() time.Time

	mu         sync.Mutex
	head, tail *preauthSlot // in opening order, oldest first
	count      int
	byIP       map[string]int
	byOrigin   map[string]int
	pressured  bool
	closed     bool
	// For the log, which must not grow with the flood: one line when
	// pressure begins and one with these counts when it ends.
	evicted, refused int
	lastRefusalLog   time.Time
	lastEviction     time.Time
}

// preauthSlot is one socket's place in the budget.
type preauthSlot struct {
	prev, next *preauthSlot
	ipKey      string // "" for a direct loopback peer
	originKey  string // "" without an Origin header
	opened     time.Time
	ws         *websocket.Conn // nil until the upgrade is done
	held       bool            // counted; false once released or evicted
	busy       bool            // the first frame arrived
	hurried    bool            // deadline cut for pressure
}

func newPreauthBudget(o Options, log *slog.Logger) *preauthBudget {
	b := &preauthBudget{
		max: o.MaxPreauth, perIP: o.MaxPreauthPerIP, perOrigin: o.MaxPreauthPerOrigin,
		pressureAt: o.PreauthPressure, timeout: o.HandshakeTimeout, pressureTTL: o.PreauthPressureTimeout,
		minAge: o.PreauthMinAge, log: log, now: time.Now, byIP: map[string]int{}, byOrigin: map[string]int{},
	}
	if b.max > 0 {
		b.spacing = b.minAge / time.Duration(b.max)
	}
	return b
}

// budgetIPKey is the address a remote peer is budgeted under: IPv4 as
// is, IPv6 by its /64, which one subscriber usually holds whole. A
// direct loopback peer gets "" (not budgeted by address).
func budgetIPKey(ip netip.Addr, forwarded bool) string {
	switch {
	case ip.IsLoopback() && !forwarded:
		return ""
	case ip.Is6():
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}

// admit reserves a slot for a socket about to be upgraded, evicting the
// oldest idle socket if that is what makes room. It returns false when
// the socket must be refused.
func (b *preauthBudget) admit(ip netip.Addr, forwarded bool, origin string) (*preauthSlot, bool) {
	s := &preauthSlot{ipKey: budgetIPKey(ip, forwarded), originKey: origin, held: true}
	b.mu.Lock()
	defer b.mu.Unlock()
	s.opened = b.now() // under the lock: the list stays in opening order
	if b.closed {
		return nil, false
	}
	if s.ipKey != "" && b.byIP[s.ipKey] >= b.perIP {
		b.noteRefusal("address over its pre-auth budget", b.perIP)
		return nil, false
	}
	if s.originKey != "" && b.byOrigin[s.originKey] >= b.perOrigin {
		if !b.evictOldest(func(v *preauthSlot) bool { return v.originKey == s.originKey }) {
			b.noteRefusal("origin over its pre-auth budget, no idle socket old enough to evict", b.perOrigin)
			return nil, false
		}
	}
	if b.count >= b.max && !b.evictOldest(func(*preauthSlot) bool { return true }) {
		b.noteRefusal("pre-auth budget full, no idle socket old enough to evict", b.max)
		return nil, false
	}
	b.link(s)
	if !b.pressured && b.count >= b.pressureAt {
		b.pressured = true
		b.log.Warn("many unauthenticated sockets: shortening their handshake deadline",
			"sockets", b.count, "deadline", b.pressureTTL)
		for v := b.head; v != nil; v = v.next {
			b.hurry(v)
		}
	}
	return s, true
}

// attach hands the budget the upgraded socket and sets its handshake
// deadline: the full one, the short one under pressure, or none left
// when the socket was evicted while upgrading.
func (b *preauthBudget) attach(s *preauthSlot, ws *websocket.Conn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s.ws = ws
	if !s.held || b.closed {
		ws.SetReadDeadline(time.Now())
		return
	}
	ws.SetReadDeadline(s.opened.Add(b.timeout))
	if b.pressured {
		b.hurry(s)
	}
}

// started marks the socket's first frame in: from now on it is not
// evicted or hurried. It returns false when the socket was evicted just
// before, in which case the frame is not to be handled.
func (b *preauthBudget) started(s *preauthSlot) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	s.busy = true
	return s.held
}

// refusing marks a socket whose connect was refused and which now only
// waits out the grace before its close: it may be evicted again (the
// eviction ends the grace early, and the refusal's close frame still
// goes out), so refused connects cannot pin the budget either. Call it
// after the grace's own read deadline is set.
func (b *preauthBudget) refusing(s *preauthSlot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.held {
		s.busy, s.hurried = false, true // the grace is shorter than any cut
	}
}

// release gives the slot back, once the socket has authenticated or
// closed. Releasing twice, or an evicted slot, does nothing.
func (b *preauthBudget) release(s *preauthSlot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !s.held {
		return
	}
	b.unlink(s)
	if b.pressured && b.count <= b.pressureAt/2 {
		b.pressured = false
		b.log.Warn("unauthenticated sockets back to normal",
			"sockets", b.count, "evicted", b.evicted, "refused", b.refused)
		b.evicted, b.refused = 0, 0
	}
}

// close refuses every later socket and ends the idle ones now, so a
// shutdown does not wait out their handshake deadlines.
func (b *preauthBudget) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for v := b.head; v != nil; v = v.next {
		if v.ws != nil && !v.busy {
			v.ws.SetReadDeadline(time.Now())
		}
	}
}

// evictOldest ends the oldest idle, upgraded socket that match accepts,
// if it has been open for minAge, and frees its slot at once; the
// socket's own goroutine then finds its read deadline passed and closes
// it as a timed-out handshake.
func (b *preauthBudget) evictOldest(match func(*preauthSlot) bool) bool {
	now := b.now()
	if now.Sub(b.lastEviction) < b.spacing {
		return false
	}
	for v := b.head; v != nil; v = v.next {
		if v.ws == nil || v.busy || !match(v) {
			continue
		}
		if now.Sub(v.opened) < b.minAge {
			return false // the oldest candidate is too young, and so are the rest
		}
		b.unlink(v)
		v.ws.SetReadDeadline(time.Now())
		b.evicted++
		b.lastEviction = now
		return true
	}
	return false
}

// setClock replaces the budget's clock, for tests.
func (b *preauthBudget) setClock(now func() time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.now = now
}

// hurry cuts an idle socket's deadline to the pressure timeout after its
// opening, which for the oldest is already past.
func (b *preauthBudget) hurry(v *preauthSlot) {
	if v.ws == nil || v.busy || v.hurried || b.pressureTTL >= b.timeout {
		return
	}
	v.hurried = true
	v.ws.SetReadDeadline(v.opened.Add(b.pressureTTL))
}

// noteRefusal counts a refusal and logs at most one line in 10 s.
func (b *preauthBudget) noteRefusal(why string, limit int) {
	b.refused++
	if now := time.Now(); now.Sub(b.lastRefusalLog) >= 10*time.Second {
		b.lastRefusalLog = now
		b.log.Warn("refusing unauthenticated socket: "+why, "limit", limit, "refusedSoFar", b.refused)
	}
}

func (b *preauthBudget) link(s *preauthSlot) {
	s.prev = b.tail
	if b.tail != nil {
		b.tail.next = s
	} else {
		b.head = s
	}
	b.tail = s
	b.count++
	if s.ipKey != "" {
		b.byIP[s.ipKey]++
	}
	if s.originKey != "" {
		b.byOrigin[s.originKey]++
	}
}

func (b *preauthBudget) unlink(s *preauthSlot) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		b.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		b.tail = s.prev
	}
	s.prev, s.next, s.held = nil, nil, false
	b.count--
	decrement(b.byIP, s.ipKey)
	decrement(b.byOrigin, s.originKey)
}

func decrement(m map[string]int, k string) {
	if k == "" {
		return
	}
	if m[k] <= 1 {
		delete(m, k)
		return
	}
	m[k]--
}
