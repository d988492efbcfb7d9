// Package storetest opens a component's store for its tests on the
// engine the test run asks for: SQLite in a temporary folder, or, with
// OPENCLAW_TEST_STORE=postgres, a fresh database on the pgtest server.
// The same tests thus prove a component on both engines. A package whose
// tests use it runs them through pgtest.Main.
package storetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
)

// Engine is the engine the tests run on: store.DriverSQLite unless
// OPENCLAW_TEST_STORE says postgres.
func Engine() string {
	if os.Getenv("OPENCLAW_TEST_STORE") == store.DriverPostgres {
		return store.DriverPostgres
	}
	return store.DriverSQLite
}

// Open opens an empty store with migs applied, closed when t ends.
func Open(t testing.TB, migs ...store.Migrations) *store.Store {
	t.Helper()
	st := OpenAt(t, Place(t), migs...)
	t.Cleanup(func() { st.Close() })
	return st
}

// Place is where a new store will be: a file path for SQLite, a fresh
// database's URL for PostgreSQL. Tests that close a store and open it
// again (a restart) open the same place twice.
func Place(t testing.TB) string {
	t.Helper()
	if Engine() == store.DriverPostgres {
		return pgtest.URL(t)
	}
	return filepath.Join(t.TempDir(), store.FileName)
}

// OpenAt opens the store at place (from Place); the caller closes it.
func OpenAt(t testing.TB, place string, migs ...store.Migrations) *store.Store {
	t.Helper()
	var st *store.Store
	var err error
	if Engine() == store.DriverPostgres {
		st, err = store.OpenPostgres(context.Background(), place, migs...)
	} else {
		st, err = store.Open(context.Background(), place, migs...)
	}
	if err != nil {
		t.Fatalf("storetest: open the %s store: %v", Engine(), err)
	}
	return st
}
