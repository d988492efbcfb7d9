package sqltool

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// What one statement may cost the gateway. A model can ask SQLite for
// values and rows of any size (randomblob(1000000000), a recursive CTE
// without end), and the driver copies every value of a row into Go before
// the caller sees it. SQLite checks no interrupt while it computes one
// row, and this build keeps no heap count (sqlite3_hard_heap_limit64 has
// no effect), so the bound must be set before the row is computed:
//
//   - SQLITE_LIMIT_LENGTH (see valueLimit) is set on the connection for
//     each statement: SQLite refuses to build a longer string or blob, or a
//     longer record (SQLITE_TOOBIG), so no value, and no copy of one, passes
//     it. It is maxValueBytes, less for a statement with many result
//     columns, so that the values of one row stay within maxRowBytes. A
//     stored row that is larger can still be counted, filtered and
//     measured (length()); only building its large value fails, and the
//     error says how to read a part of it.
//   - Config.QueryTimeout bounds the statement's time; the driver
//     interrupts SQLite when the context ends, between rows and in loops.
//   - readRows stops at maxRows rows or maxResultBytes of JSON, shortens
//     each value to what the answer can hold, and the caller closes the
//     rows, which resets the statement so SQLite computes nothing more.
const (
	maxValueBytes = 1 << 20
	maxRowBytes   = 64 << 20
	// extraValues is room for values a row holds besides its result
	// columns: the arguments of a function call, of which SQLite is told
	// to allow no more (SQLITE_LIMIT_FUNCTION_ARG; its default is 127). It
	// is chosen so that a one-column statement gets the whole
	// maxValueBytes.
	extraValues = maxRowBytes/maxValueBytes - 1
)

// valueLimit is SQLITE_LIMIT_LENGTH for a statement with columns result
// columns.
func valueLimit(columns int) int {
	return min(maxValueBytes, maxRowBytes/(max(columns, 0)+extraValues))
}

// columnCount compiles text on c to count its result columns, under the
// authorizer c already has: the caller does it before compiling the
// statement it runs, while the authorizer is still judging.
func columnCount(c *sql.Conn, text string) (int, error) {
	n := 0
	err := c.Raw(func(dc any) error {
		ci, ok := dc.(interface {
			ColumnInfo(string) ([]sqlite.ColumnInfo, error)
		})
		if !ok {
			return errors.New("the driver cannot describe a statement's columns")
		}
		cols, err := ci.ColumnInfo(text)
		n = len(cols)
		return err
	})
	return n, err
}

// setLimits applies SQLite limits to a borrowed connection: the value
// limit (see valueLimit), extraValues function arguments and no room to
// attach a database. Limits belong
// to the connection and no SQL changes them (there is no PRAGMA for them);
// they are set for each statement so that no other user of the pool
// decides them.
func setLimits(c *sql.Conn, value int) error {
	for _, l := range []struct{ id, v int }{
		{sqlite3.SQLITE_LIMIT_LENGTH, value},
		{sqlite3.SQLITE_LIMIT_FUNCTION_ARG, extraValues},
		// ATTACH is refused by the authorizer; with no room for another
		// database it could not open one even if a statement got past.
		{sqlite3.SQLITE_LIMIT_ATTACHED, 0},
	} {
		if _, err := sqlite.Limit(c, l.id, l.v); err != nil {
			return fmt.Errorf("set SQLite limit %d: %w", l.id, err)
		}
	}
	return nil
}

// discard closes the driver connection behind c instead of returning it
// to the pool: database/sql drops a connection whose Raw function reports
// driver.ErrBadConn.
func discard(c *sql.Conn) {
	_ = c.Raw(func(any) error { return driver.ErrBadConn })
}

// errStatementTimeout is the cause a statement's context ends with at
// Config.QueryTimeout, so that the error can name the limit.
var errStatementTimeout = errors.New("sqltool: statement time limit")
