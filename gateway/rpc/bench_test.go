package rpc

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
)

// BenchmarkCall measures sequential calls on N connections at once, the
// shape of bench/run.sh's health figures, in one process.
func BenchmarkCall(b *testing.B) {
	for _, conns := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			g := startTestServer(b, nil)
			wss := make([]*websocket.Conn, conns)
			for i := range wss {
				wss[i] = g.connected(b, "operator.read")
			}
			req := []byte(`{"type":"req","id":"2:x","method":"health","params":{}}`)
			b.ResetTimer()
			var wg sync.WaitGroup
			per := b.N/conns + 1
			for _, ws := range wss {
				wg.Add(1)
				go func(ws *websocket.Conn) {
					defer wg.Done()
					for i := 0; i < per; i++ {
						ws.WriteMessage(websocket.TextMessage, req)
						if _, _, err := ws.ReadMessage(); err != nil {
							b.Error(err)
							return
						}
					}
				}(ws)
			}
			wg.Wait()
		})
	}
}
