package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// floodStats describe the pre-auth flood that ran beside the measurement.
type floodStats struct {
	Sockets int `json:"sockets"` // idle sockets the flood tries to hold
	// OpenWhenMeasuring is how many were open when the measured part
	// began, OpenMax the most at once.
	OpenWhenMeasuring int64   `json:"openWhenMeasuring"`
	OpenMax           int64   `json:"openMax"`
	Opened            int64   `json:"opened"`         // upgrades the gateway accepted
	Refused           int64   `json:"refused"`        // upgrades it refused (503) or that failed
	ClosedByServer    int64   `json:"closedByServer"` // idle sockets it ended (evicted, timed out)
	ElapsedMs         float64 `json:"elapsedMs"`
}

// flood holds idle pre-auth sockets open, as an attacker starving the
// gateway's pre-auth budget would: each of its workers opens a socket,
// never sends a frame, and opens the next one as soon as the gateway
// closes it. A refused upgrade is retried after refusedPause, so that
// against a gateway that refuses the flood measures that, and not how
// fast the load client can be refused.
type flood struct {
	stats   floodStats
	open    atomic.Int64
	openMax atomic.Int64
	opened  atomic.Int64
	refused atomic.Int64
	closed  atomic.Int64
	start   time.Time
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

const refusedPause = 500 * time.Millisecond

func startFlood(ctx context.Context, url string, sockets int, timeout time.Duration) *flood {
	ctx, cancel := context.WithCancel(ctx)
	f := &flood{stats: floodStats{Sockets: sockets}, start: time.Now(), cancel: cancel}
	dialer := websocket.Dialer{HandshakeTimeout: timeout}
	for range sockets {
		f.wg.Go(func() {
			for ctx.Err() == nil {
				ws, _, err := dialer.DialContext(ctx, url, nil)
				if err != nil {
					if ctx.Err() == nil {
						f.refused.Add(1)
					}
					select {
					case <-ctx.Done():
					case <-time.After(refusedPause):
					}
					continue
				}
				f.opened.Add(1)
				n := f.open.Add(1)
				for m := f.openMax.Load(); n > m && !f.openMax.CompareAndSwap(m, n); m = f.openMax.Load() {
				}
				stop := context.AfterFunc(ctx, func() { ws.Close() })
				for {
					// The challenge comes first, then the close; nothing is
					// ever sent back.
					if _, _, err := ws.ReadMessage(); err != nil {
						break
					}
				}
				stop()
				ws.Close()
				f.open.Add(-1)
				if ctx.Err() == nil {
					f.closed.Add(1)
				}
			}
		})
	}
	return f
}

// ramp waits until the gateway has answered as many upgrades as the
// flood has workers (refusals included), or d has passed, then lets the
// flood run for settle, and notes how many sockets are open.
func (f *flood) ramp(ctx context.Context, d, settle time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if f.opened.Load()+f.refused.Load() >= int64(f.stats.Sockets) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-ctx.Done():
	case <-time.After(settle):
	}
	f.stats.OpenWhenMeasuring = f.open.Load()
}

// stop ends the flood, closing its sockets, and reports it.
func (f *flood) stop() floodStats {
	f.cancel()
	f.wg.Wait()
	s := f.stats
	s.OpenMax, s.Opened, s.Refused, s.ClosedByServer = f.openMax.Load(), f.opened.Load(), f.refused.Load(), f.closed.Load()
	s.ElapsedMs = ms(time.Since(f.start))
	return s
}
