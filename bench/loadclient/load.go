package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// report is the JSON result. Durations are in milliseconds.
type report struct {
	URL             string  `json:"url"`
	Method          string  `json:"method"`
	Conns           int     `json:"conns"`
	RequestsPerConn int     `json:"requestsPerConn"`
	Handshake       stats   `json:"handshake"`
	Requests        int     `json:"requests"`
	Errors          int     `json:"errors"`
	FirstError      string  `json:"firstError,omitempty"`
	ElapsedMs       float64 `json:"elapsedMs"`
	ReqPerSec       float64 `json:"reqPerSec"`
	Latency         stats   `json:"latency"`
	// Accepted is, for a two-stage method (agent), the time from sending
	// to the interim {status:"accepted"}; Latency runs to the final answer.
	Accepted *stats `json:"accepted,omitempty"`
	// Under -flood: the flood, every connect attempt the timed handshakes
	// took, and how many of them never got through.
	Flood             *floodStats `json:"flood,omitempty"`
	HandshakeAttempts int         `json:"handshakeAttempts,omitempty"`
	HandshakeFailed   int         `json:"handshakeFailed,omitempty"`
	FirstConnectError string      `json:"firstConnectError,omitempty"`
}

// stats summarise a set of durations.
type stats struct {
	N      int     `json:"n"`
	MeanMs float64 `json:"meanMs"`
	P50Ms  float64 `json:"p50Ms"`
	P99Ms  float64 `json:"p99Ms"`
	MaxMs  float64 `json:"maxMs"`
}

func (r *report) human() string {
	s := fmt.Sprintf("%s: %d conns x %d = %d requests in %.0f ms: %.0f req/s, p50 %.3f ms, p99 %.3f ms, %d errors; handshake p50 %.2f ms, p99 %.2f ms (n=%d)",
		r.Method, r.Conns, r.RequestsPerConn, r.Requests, r.ElapsedMs, r.ReqPerSec,
		r.Latency.P50Ms, r.Latency.P99Ms, r.Errors, r.Handshake.P50Ms, r.Handshake.P99Ms, r.Handshake.N)
	if r.Accepted != nil {
		s += fmt.Sprintf("; accepted after p50 %.3f ms, p99 %.3f ms", r.Accepted.P50Ms, r.Accepted.P99Ms)
	}
	if f := r.Flood; f != nil {
		s += fmt.Sprintf("; during a flood of %d idle sockets (%d open when measuring, %d accepted, %d refused, %d closed by the gateway): %d connect attempts, %d connects failed",
			f.Sockets, f.OpenWhenMeasuring, f.Opened, f.Refused, f.ClosedByServer, r.HandshakeAttempts, r.HandshakeFailed)
	}
	return s
}

// summary is the report as space-separated key=value pairs.
func (r *report) summary() string {
	s := fmt.Sprintf("reqPerSec=%g p50Ms=%g p99Ms=%g meanMs=%g maxMs=%g handshakeP50Ms=%g handshakeP99Ms=%g requests=%d errors=%d",
		r.ReqPerSec, r.Latency.P50Ms, r.Latency.P99Ms, r.Latency.MeanMs, r.Latency.MaxMs,
		r.Handshake.P50Ms, r.Handshake.P99Ms, r.Requests, r.Errors)
	if r.Accepted != nil {
		s += fmt.Sprintf(" acceptedP50Ms=%g acceptedP99Ms=%g", r.Accepted.P50Ms, r.Accepted.P99Ms)
	}
	if f := r.Flood; f != nil {
		s += fmt.Sprintf(" handshakeMaxMs=%g handshakeAttempts=%d handshakeFailed=%d floodOpenWhenMeasuring=%d floodOpenMax=%d floodOpened=%d floodRefused=%d floodClosedByServer=%d",
			r.Handshake.MaxMs, r.HandshakeAttempts, r.HandshakeFailed, f.OpenWhenMeasuring, f.OpenMax, f.Opened, f.Refused, f.ClosedByServer)
	}
	return s
}

// measure runs the handshakes, then the load, and reports both.
func measure(ctx context.Context, cfg config) (*report, error) {
	rep := &report{URL: cfg.URL, Method: cfg.Method, Conns: cfg.Conns, RequestsPerConn: cfg.Requests}
	var handshakes []time.Duration

	conns := make([]*conn, cfg.Conns)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	openConns := func() error {
		for i := range conns {
			c, d, err := dial(ctx, cfg)
			if err != nil {
				return fmt.Errorf("connect %d of %d: %w", i+1, cfg.Conns, err)
			}
			c.index = i
			conns[i] = c
			if cfg.Handshakes == 0 {
				handshakes = append(handshakes, d)
			}
		}
		return nil
	}

	if cfg.Flood > 0 {
		// The load connections are in before the flood; the fresh
		// connects are what the flood is meant to stop.
		if err := openConns(); err != nil {
			return nil, err
		}
		fl := startFlood(ctx, cfg.URL, cfg.Flood, cfg.Timeout)
		defer func() {
			s := fl.stop()
			rep.Flood = &s
		}()
		fl.ramp(ctx, cfg.FloodRamp, cfg.FloodSettle)
		for range cfg.Handshakes {
			d, attempts, err := dialWithin(ctx, cfg)
			rep.HandshakeAttempts += attempts
			if err != nil {
				rep.HandshakeFailed++
				if rep.FirstConnectError == "" {
					rep.FirstConnectError = err.Error()
				}
				continue
			}
			handshakes = append(handshakes, d)
		}
	} else {
		// Handshakes on their own, one at a time, so load does not skew them.
		for range cfg.Handshakes {
			c, d, err := dial(ctx, cfg)
			if err != nil {
				return nil, fmt.Errorf("connect: %w", err)
			}
			handshakes = append(handshakes, d)
			c.Close()
		}
		if err := openConns(); err != nil {
			return nil, err
		}
	}
	rep.Handshake = summarise(handshakes)

	call := func(c *conn) (time.Duration, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		c.ws.SetReadDeadline(time.Now().Add(cfg.Timeout))
		return c.do(cfg.Method, cfg.requestParams(c))
	}

	for _, c := range conns {
		for range cfg.Warmup {
			if _, err := call(c); err != nil {
				return nil, fmt.Errorf("warm-up %s: %w", cfg.Method, err)
			}
		}
	}

	type connResult struct {
		lat      []time.Duration
		acks     []time.Duration
		errors   int
		firstErr error
	}
	results := make([]connResult, len(conns))
	var wg sync.WaitGroup
	startGate := make(chan struct{})
	for i, c := range conns {
		wg.Go(func() {
			r := &results[i]
			r.lat = make([]time.Duration, 0, cfg.Requests)
			<-startGate
			for range cfg.Requests {
				d, err := call(c)
				if err != nil {
					r.errors++
					if r.firstErr == nil {
						r.firstErr = err
					}
					if ctx.Err() != nil {
						return
					}
					continue
				}
				r.lat = append(r.lat, d)
				if twoStage(cfg.Method) {
					r.acks = append(r.acks, c.ack)
				}
			}
		})
	}
	start := time.Now()
	close(startGate)
	wg.Wait()
	elapsed := time.Since(start)

	var all, acks []time.Duration
	for _, r := range results {
		all = append(all, r.lat...)
		acks = append(acks, r.acks...)
		rep.Errors += r.errors
		if r.firstErr != nil && rep.FirstError == "" {
			rep.FirstError = r.firstErr.Error()
		}
	}
	rep.Requests = cfg.Conns * cfg.Requests
	rep.ElapsedMs = ms(elapsed)
	rep.ReqPerSec = round(float64(len(all))/elapsed.Seconds(), 1)
	rep.Latency = summarise(all)
	if twoStage(cfg.Method) {
		a := summarise(acks)
		rep.Accepted = &a
	}
	return rep, ctx.Err()
}

// summarise computes mean, nearest-rank p50/p99 and max.
func summarise(ds []time.Duration) stats {
	if len(ds) == 0 {
		return stats{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return stats{
		N:      len(s),
		MeanMs: ms(sum / time.Duration(len(s))),
		P50Ms:  ms(percentile(s, 50)),
		P99Ms:  ms(percentile(s, 99)),
		MaxMs:  ms(s[len(s)-1]),
	}
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func ms(d time.Duration) float64 { return round(float64(d)/float64(time.Millisecond), 3) }

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
