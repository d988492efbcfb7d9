// Package pgtest runs a throwaway PostgreSQL server for tests, from the
// machine's own PostgreSQL binaries (Debian's postgresql package): one
// server per test process, on loopback, in a temporary folder, and a
// fresh schema (an empty namespace for tables) for each test that asks.
//
// A package that uses it runs its tests through Main, which stops the
// server when they end. Without PostgreSQL binaries the tests that ask
// are skipped, unless OPENCLAW_TEST_POSTGRES=require, which CI sets so
// that a missing server fails instead of passing quietly. The server is
// used only in builds with the postgres tag (the one that links pgx);
// without it the tests that ask are skipped, or fail under require.
package pgtest
