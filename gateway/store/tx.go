package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
)

// Conn is what a write transaction's statements run on.
type Conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Immediate runs fn in a BEGIN IMMEDIATE transaction. A plain (deferred)
// transaction that reads and then writes fails with SQLITE_BUSY when
// another connection wrote in between; taking the write lock up front
// makes it wait for the busy timeout instead. fn's error rolls back.
func Immediate(ctx context.Context, db *sql.DB, fn func(c Conn) error) (err error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	defer func() {
		if err == nil {
			return
		}
		if _, rerr := c.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`); rerr != nil {
			// Never hand a connection still inside a transaction back to the pool.
			c.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	if err := fn(c); err != nil {
		return err
	}
	_, err = c.ExecContext(context.WithoutCancel(ctx), `COMMIT`)
	return err
}
