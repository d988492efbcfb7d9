//go:build postgres

package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5/stdlib"
)

func init() {
	pgDriverValue = pgDriver{}
	sql.Register(pgDriverName, pgDriverValue)
	pgConnector = func(url string, fence *atomic.Int64) (driver.Connector, error) {
		return pgDriverConnector{url: url, fence: fence}, nil
	}
}

// pgDriver is pgx's database/sql driver with the dialect rewrite.
type pgDriver struct{}

func (pgDriver) Open(name string) (driver.Conn, error) {
	return openPGConn(name, nil)
}

func openPGConn(name string, fence *atomic.Int64) (driver.Conn, error) {
	c, err := stdlib.GetDefaultDriver().Open(name)
	if err != nil {
		return nil, err
	}
	return &pgConn{Conn: c.(*stdlib.Conn), fence: fence}, nil
}

// pgDriverConnector opens the connections of one Store, which share its
// lease fence.
type pgDriverConnector struct {
	url   string
	fence *atomic.Int64
}

func (c pgDriverConnector) Connect(context.Context) (driver.Conn, error) {
	return openPGConn(c.url, c.fence)
}

func (c pgDriverConnector) Driver() driver.Driver { return pgDriverValue }

// pgConn rewrites each statement before pgx sees it.
type pgConn struct {
	*stdlib.Conn
	fence *atomic.Int64
}

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(pgRewrite(query))
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, pgRewrite(query))
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.Conn.ExecContext(ctx, pgRewrite(query), args)
	if err == nil && strings.EqualFold(strings.TrimSpace(query), "BEGIN IMMEDIATE") {
		// store.Immediate's write transaction, begun by statement.
		if ferr := c.checkFence(ctx); ferr != nil {
			_, _ = c.Conn.ExecContext(ctx, "ROLLBACK", nil)
			return nil, ferr
		}
	}
	return res, err
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
	if err := c.checkFence(ctx); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// checkFence fails when the store's lease epoch is set and the table's
// has moved past it: another gateway took over.
func (c *pgConn) checkFence(ctx context.Context) error {
	if c.fence == nil {
		return nil
	}
	want := c.fence.Load()
	if want == 0 {
		return nil
	}
	rows, err := c.Conn.QueryContext(ctx, fenceCheck, nil)
	if err != nil {
		return fmt.Errorf("check the lease: %w", err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		return fmt.Errorf("check the lease: %w", err)
	}
	if got, _ := dest[0].(int64); got != want {
		return ErrFenced
	}
	return nil
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
