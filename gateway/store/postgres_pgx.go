//go:build postgres

package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/jackc/pgx/v5/stdlib"
)

func init() {
	pgDriverValue = pgDriver{}
	sql.Register(pgDriverName, pgDriverValue)
}

// pgDriver is pgx's database/sql driver with the dialect rewrite.
type pgDriver struct{}

func (pgDriver) Open(name string) (driver.Conn, error) {
	c, err := stdlib.GetDefaultDriver().Open(name)
	if err != nil {
		return nil, err
	}
	return &pgConn{Conn: c.(*stdlib.Conn)}, nil
}

// pgConn rewrites each statement before pgx sees it.
type pgConn struct {
	*stdlib.Conn
}

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(pgRewrite(query))
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, pgRewrite(query))
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, pgRewrite(query), args)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, pgRewrite(query), args)
}

func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil || opts.ReadOnly {
		return tx, err
	}
	if _, err := c.Conn.ExecContext(ctx, writerLock, nil); err != nil {
		_ = tx.Rollback()
		return nil, fmt.Errorf("take the writer lock: %w", err)
	}
	return tx, nil
}

// CheckNamedValue stores a bool as 0 or 1: SQLite has no boolean type,
// so the components' flag columns are integers on both engines.
func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	if b, ok := nv.Value.(bool); ok {
		nv.Value = int64(0)
		if b {
			nv.Value = int64(1)
		}
		return nil
	}
	return c.Conn.CheckNamedValue(nv)
}
