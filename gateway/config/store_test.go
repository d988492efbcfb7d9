package config

import (
	"strings"
	"testing"
	"time"
)

func TestStoreSection(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		env      map[string]string
		wantErr  string // a substring of the one error, or "" for none
		url      string
		interval time.Duration
		timeout  time.Duration
	}{
		{name: "default is sqlite", src: `{}`, interval: time.Second, timeout: 10 * time.Second},
		{name: "postgres from env", src: `{store: {driver: "postgres", url: "${PGURL}"}}`, env: map[string]string{"PGURL": "postgres://u:pw@db/openclaw"},
			url: "postgres://u:pw@db/openclaw", interval: time.Second, timeout: 10 * time.Second},
		{name: "lease set", src: `{store: {driver: "postgres", url: "postgres://db/x", leaseInterval: "2s", leaseTimeout: "30s"}}`,
			url: "postgres://db/x", interval: 2 * time.Second, timeout: 30 * time.Second},
		{name: "postgres without url", src: `{store: {driver: "postgres"}}`, wantErr: `store.driver: driver "postgres" needs store.url`},
		{name: "url without postgres", src: `{store: {url: "postgres://db/x"}}`, wantErr: "store.url: url is set but store.driver is"},
		{name: "unknown driver", src: `{store: {driver: "mysql"}}`, wantErr: "store.driver"},
		{name: "bad duration", src: `{store: {driver: "postgres", url: "postgres://db/x", leaseInterval: "soon"}}`, wantErr: `store.leaseInterval: "soon" is not a positive duration`},
		{name: "lease shorter than three renewals", src: `{store: {driver: "postgres", url: "postgres://db/x", leaseInterval: "5s", leaseTimeout: "10s"}}`, wantErr: "store.leaseTimeout: the lease timeout (10s) must be at least three lease intervals (5s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, errs, _ := parseTest(t, tt.src, tt.env)
			if tt.wantErr != "" {
				if len(errs) != 1 || !strings.Contains(errs[0], tt.wantErr) {
					t.Fatalf("errors = %q, want one containing %q", errs, tt.wantErr)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("errors = %q", errs)
			}
			s := snap.Config.Store
			if s.URL != tt.url {
				t.Errorf("url = %q, want %q", s.URL, tt.url)
			}
			if iv, to := s.Lease(); iv != tt.interval || to != tt.timeout {
				t.Errorf("lease = %s/%s, want %s/%s", iv, to, tt.interval, tt.timeout)
			}
		})
	}
}

// The URL's password never reaches a read-scoped client's config.get.
func TestStoreURLRedacted(t *testing.T) {
	got := Redact(map[string]any{"store": map[string]any{"driver": "postgres", "url": "postgres://gw:hunter2@db:5432/openclaw"}})
	u := got["store"].(map[string]any)["url"].(string)
	if strings.Contains(u, "hunter2") || !strings.Contains(u, "gw:") {
		t.Errorf("redacted url = %q", u)
	}
}
