package nodes

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// BenchmarkInvokeWhich measures the node.invoke round trip of
// system.which over the bus: operator → gateway → node.invoke.request →
// fake node (the Go client) → node.invoke.result → operator, all
// in-process on loopback WebSockets. It reports p50/p99 latency and
// invokes per second; -cpu and b.RunParallel vary the concurrency.
func BenchmarkInvokeWhich(b *testing.B) {
	g := startGateway(b, Policy{})
	n := g.node(b, "bench", []string{"system.which"}, whichNode)
	op := g.operator(b, protocol.ScopeWrite)
	ctx := context.Background()
	params := map[string]any{"nodeId": n.id, "command": "system.which", "params": map[string]any{"bins": []string{"sh"}}}
	// warm up
	for range 20 {
		if err := op.Call(ctx, "node.invoke", params, nil); err != nil {
			b.Fatal(err)
		}
	}
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var local []time.Duration
		for pb.Next() {
			t0 := time.Now()
			var res struct {
				Payload json.RawMessage `json:"payload"`
			}
			if err := op.Call(ctx, "node.invoke", params, &res); err != nil {
				b.Error(err)
				return
			}
			local = append(local, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, local...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "invokes/s")
}
