package rpc

import (
	"errors"
	"net"
	"testing"
	"time"
)

func TestHandshakeDeadline(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) { o.HandshakeTimeout = 200 * time.Millisecond })
	ws, _ := g.dial(t, nil) // sends nothing
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("server kept a silent pre-auth socket open")
			}
			return
		}
	}
}
