package toolhost

import "testing"

func TestOwnLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost:18789":              true,
		"LOCALHOST:18789":              true,
		"localhost.:18789":             true,
		"127.0.0.1:18789":              true,
		"127.1.2.3:18789":              true,
		"[::1]:18789":                  true,
		"[::ffff:127.0.0.1]:18789":     true,
		"evil.example:18789":           false,
		"localhost.evil.example:18789": false,
		"127.0.0.1.nip.io:18789":       false,
		"localhost:18790":              false,
		"127.0.0.1":                    false, // port 80
		"localhost":                    false,
		"192.168.1.5:18789":            false,
		"[::1]":                        false,
		"":                             false,
		"localhost:x":                  false,
	} {
		if got := ownLoopbackHost(host, 18789); got != want {
			t.Errorf("%q: %v, want %v", host, got, want)
		}
	}
	if !ownLoopbackHost("localhost", 80) {
		t.Errorf("localhost without a port on a gateway on port 80 refused")
	}
}
