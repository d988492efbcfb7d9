package store

import (
	"context"
	"errors"
	"strings"
)

// IsURL says whether place names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite file.
func IsURL(place string) bool {
	p := strings.ToLower(place)
	return strings.HasPrefix(p, "postgres://") || strings.HasPrefix(p, "postgresql://")
}

// OpenPlace opens the store at place, a SQLite file path or a PostgreSQL
// URL, and applies the migrations: Open for a path, OpenPostgres for a
// URL (which fails with its own explanation in a build without the
// PostgreSQL driver).
func OpenPlace(ctx context.Context, place string, migs ...Migrations) (*Store, error) {
	if strings.TrimSpace(place) == "" {
		return nil, errors.New("no database given: a SQLite file path or a postgres:// URL")
	}
	if IsURL(place) {
		return OpenPostgres(ctx, place, migs...)
	}
	return Open(ctx, place, migs...)
}

// RedactPlace is place as it may be shown: a URL without its password.
func RedactPlace(place string) string {
	if IsURL(place) {
		return redactURL(place)
	}
	return place
}
