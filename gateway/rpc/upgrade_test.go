package rpc

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"
)

func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name, remote, xff string
		want              string
		wantForwarded     bool
		wantOK            bool
	}{
		{"plain v4", "203.0.113.7:5000", "", "203.0.113.7", false, true},
		{"mapped v6 shares the v4 bucket", "[::ffff:203.0.113.7]:5000", "", "203.0.113.7", false, true},
		{"loopback", "127.0.0.1:1", "", "127.0.0.1", false, true},
		{"trusted proxy forwards", "10.1.2.3:80", "198.51.100.4, 10.1.2.3", "198.51.100.4", true, true},
		{"untrusted remote proxy header ignored", "203.0.113.7:5000", "198.51.100.4", "203.0.113.7", false, true},
		{"untrusted loopback proxy refused", "127.0.0.1:1", "198.51.100.4", "", false, false},
		{"garbage remote", "nonsense", "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{}}
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			ip, fwd, ok := clientIP(r, trusted)
			if ok != tt.wantOK || (ok && (ip.String() != tt.want || fwd != tt.wantForwarded)) {
				t.Fatalf("clientIP = %v %v %v; want %s %v %v", ip, fwd, ok, tt.want, tt.wantForwarded, tt.wantOK)
			}
		})
	}
}

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
