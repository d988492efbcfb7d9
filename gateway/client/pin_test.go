package client

import (
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParseFingerprint(t *testing.T) {
	good := strings.Repeat("ab", 32)
	tests := []struct {
		in string
		ok bool
	}{
		{good, true},
		{"sha256:" + strings.ToUpper(good), true},
		{strings.Join(strings.Split(good, "")[:0], "") + "AB:" + strings.Repeat("ab:", 30) + "ab", true},
		{"abcd", false},
		{strings.Repeat("zz", 32), false},
		{"", false},
	}
	for _, tt := range tests {
		if _, err := parseFingerprint(tt.in); (err == nil) != tt.ok {
			t.Errorf("%q: err %v", tt.in, err)
		}
	}
}

// TestPinnedTLS: the pin accepts exactly the server's self-signed
// certificate and refuses any other.
func TestPinnedTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	sum := sha256.Sum256(srv.Certificate().Raw)
	get := func(pin []byte) error {
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: pinnedTLS(pin)}}
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(sum[:]); err != nil {
		t.Fatalf("the pinned certificate was refused: %v", err)
	}
	wrong := sha256.Sum256([]byte("another certificate"))
	if err := get(wrong[:]); err == nil || !strings.Contains(err.Error(), "does not match the pinned one") {
		t.Fatalf("a wrong pin: %v", err)
	}
}
