package sqltool

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/openclaw-go/openclaw/tools"
)

// Row limits of SqlQueryTool.
const (
	DefaultMaxRows = 200
	MaxMaxRows     = 1000
)

// approvalTimeout bounds a whole SqlQueryTool call, the wait for a person's
// approval of a write included; the statement itself gets
// Config.QueryTimeout.
const approvalTimeout = 10 * time.Minute

// QueryArgs are SqlQueryTool's arguments.
type QueryArgs struct {
	Datasource string `json:"datasource" jsonschema:"description=Name of a configured datasource (see DatasourceTool)"`
	SQL        string `json:"sql" jsonschema:"description=Exactly one SQL statement; use ? placeholders for values"`
	Params     []any  `json:"params,omitempty" jsonschema:"description=Positional values for the ? placeholders (strings, numbers, booleans or null)"`
	MaxRows    int    `json:"maxRows,omitempty" jsonschema:"description=Rows to return at most (default 200, at most 1000)"`
}

// QueryResult is SqlQueryTool's answer to a statement that returns rows.
type QueryResult struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	RowCount  int      `json:"rowCount"`
	Truncated bool     `json:"truncated"`
	// TruncatedReason says, when Truncated, what was left out or shortened
	// and why, for the model to ask again differently.
	TruncatedReason string `json:"truncatedReason,omitempty"`
}

// WriteResult is SqlQueryTool's answer to a write.
type WriteResult struct {
	RowsAffected int64 `json:"rowsAffected"`
}

func newQueryTool(p *pools) tools.Tool {
	dangerous := false
	for _, d := range p.cfg.Datasources {
		dangerous = dangerous || !d.readOnly()
	}
	return tools.NewTyped(tools.Spec{
		Name:  "SqlQueryTool",
		Label: "SQL query",
		Description: "Run one SQL statement against a configured datasource. Queries return " +
			`{columns, rows, rowCount, truncated}; writes return {rowsAffected} and need a person's approval. ` +
			"Read-only datasources refuse writes. Binary values come back as text when they are valid UTF-8, else as {\"base64\": …}. " +
			"Long results are cut: truncatedReason says what was left out; values over a few KB come back as {\"textPrefix\"|\"base64Prefix\", \"bytes\"}, and values over 1 MiB cannot be read whole (use substr() or length()).",
		Tier:   tools.TierCore,
		Source: tools.SourceCore,
		Groups: []string{"group:sql"},
		// Flagged for the operator's guard rules only when some
		// datasource can be written at all.
		Dangerous: dangerous,
		Timeout:   approvalTimeout,
	}, func(ctx context.Context, c tools.Call, a QueryArgs) (tools.Result, error) {
		out, err := p.query(ctx, c, a)
		if err != nil {
			return tools.Result{}, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return tools.Result{}, fmt.Errorf("encode result of datasource %q: %w", a.Datasource, err)
		}
		return tools.Result{Text: string(b)}, nil
	})
}

// query runs one call of SqlQueryTool.
func (p *pools) query(ctx context.Context, c tools.Call, a QueryArgs) (any, error) {
	d, err := p.find(a.Datasource)
	if err != nil {
		return nil, err
	}
	maxRows := a.MaxRows
	switch {
	case maxRows < 0:
		return nil, fmt.Errorf("maxRows must not be negative (got %d)", maxRows)
	case maxRows == 0:
		maxRows = DefaultMaxRows
	case maxRows > MaxMaxRows:
		maxRows = MaxMaxRows
	}
	params, err := bindParams(a.Params)
	if err != nil {
		return nil, err
	}
	st, err := splitStatement(a.SQL)
	if err != nil {
		return nil, fmt.Errorf("datasource %q: %w", d.Name, err)
	}
	if err := st.refuseKeywords(d.Name, d.readOnly()); err != nil {
		return nil, err
	}
	db, err := p.open(c.Who, d)
	if err != nil {
		return nil, err
	}
	cn, auth, err := conn(ctx, db, d)
	if err != nil {
		return nil, err
	}
	defer cn.Close()
	out, wrote, err := p.run(ctx, c, cn, auth, d, a, st, params, maxRows)
	if wrote {
		// What a write may have changed on the connection itself (a
		// PRAGMA setting, a TEMP table or trigger) must not reach the
		// next call that borrows it, so it is closed, not pooled.
		discard(cn)
	}
	return out, err
}

// run compiles and runs the statement on cn; wrote says whether it was a
// write that a person approved, so ran or at least was allowed to.
func (p *pools) run(ctx context.Context, c tools.Call, cn *sql.Conn, auth *authorizer, d Datasource, a QueryArgs, st statement, params []any, maxRows int) (_ any, wrote bool, _ error) {
	cols, err := columnCount(cn, st.text)
	if err != nil {
		return nil, false, auth.explain(err)
	}
	limit := valueLimit(cols)
	if err := setLimits(cn, limit); err != nil {
		return nil, false, fmt.Errorf("datasource %q: %w", d.Name, err)
	}
	stmt, err := cn.PrepareContext(ctx, st.text)
	if err != nil {
		return nil, false, auth.explain(err)
	}
	defer func() { stmt.Close() }()
	writes := auth.done()
	if writes {
		if err := p.approve(ctx, c, d, a); err != nil {
			return nil, false, err
		}
		if auth.recompile() {
			// The first compile left the PRAGMA setting out (see
			// authorizer.approved); now it may go in.
			stmt.Close()
			if stmt, err = cn.PrepareContext(ctx, st.text); err != nil {
				return nil, true, auth.explain(err)
			}
			auth.done()
		}
	}
	qctx, cancel := context.WithTimeoutCause(ctx, p.cfg.QueryTimeout, errStatementTimeout)
	defer cancel()
	if writes {
		res, err := stmt.ExecContext(qctx, params...)
		if err != nil {
			return nil, true, p.failed(qctx, auth, limit, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, true, fmt.Errorf("datasource %q: rows affected: %w", d.Name, err)
		}
		return WriteResult{RowsAffected: n}, true, nil
	}
	rows, err := stmt.QueryContext(qctx, params...)
	if err != nil {
		return nil, false, p.failed(qctx, auth, limit, err)
	}
	// Closing the rows resets the statement: once a limit stops the
	// reading, SQLite computes no further row.
	defer rows.Close()
	out, err := readRows(rows, maxRows)
	if err != nil {
		return nil, false, p.failed(qctx, auth, limit, err)
	}
	return out, false, nil
}

// approve asks a person before a write to a writable datasource.
func (p *pools) approve(ctx context.Context, c tools.Call, d Datasource, a QueryArgs) error {
	if p.cfg.Approver == nil {
		return fmt.Errorf("datasource %q: writes need a person's approval and nobody can approve them here", d.Name)
	}
	args, _ := json.Marshal(map[string]any{"datasource": d.Name, "sql": a.SQL, "params": a.Params})
	ok, _, err := p.cfg.Approver.Approve(ctx, tools.ApprovalRequest{
		Tool: "SqlQueryTool", Args: args, Who: c.Who,
		Reason: fmt.Sprintf("SQL statement writes to datasource %q", d.Name),
	})
	if err != nil {
		return fmt.Errorf("datasource %q: the write was not approved: %w", d.Name, err)
	}
	if !ok {
		return fmt.Errorf("datasource %q: the write was not approved (denied or timed out)", d.Name)
	}
	return nil
}

// failed words an execution error, naming the limit that stopped the
// statement when one did; limit is the statement's value limit.
func (p *pools) failed(ctx context.Context, auth *authorizer, limit int, err error) error {
	if errors.Is(context.Cause(ctx), errStatementTimeout) {
		return fmt.Errorf("datasource %q: the statement was stopped after %s, the time limit of one statement: %w", auth.ds, p.cfg.QueryTimeout, err)
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_TOOBIG {
		return fmt.Errorf("datasource %q: a value would be larger than %s, the limit of one value in this statement "+
			"(%s at most, less when it has many columns); read a value's size with length() or a part with substr() (%w)",
			auth.ds, kib(limit), kib(maxValueBytes), err)
	}
	return auth.explain(err)
}

// kib writes a byte count in KiB, or MiB when whole.
func kib(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// bindParams checks the model's values and turns whole JSON numbers into
// integers, so that 3 is bound as INTEGER and not as REAL 3.0.
func bindParams(in []any) ([]any, error) {
	out := make([]any, len(in))
	for i, v := range in {
		switch x := v.(type) {
		case nil, string, bool:
			out[i] = x
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				out[i] = int64(x)
			} else {
				out[i] = x
			}
		default:
			return nil, fmt.Errorf("params[%d] must be a string, number, boolean or null, not %T", i, v)
		}
	}
	return out, nil
}
