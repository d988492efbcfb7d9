package gateway

import (
	"context"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
)

// TestSchemasOnPostgres: every component's migrations apply on
// PostgreSQL, and a second open has nothing left to do.
func TestSchemasOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for i := range 2 {
		s, err := store.OpenPostgres(context.Background(), url, Migrations()...)
		if err != nil {
			t.Fatalf("open %d: %v", i+1, err)
		}
		s.Close()
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }
