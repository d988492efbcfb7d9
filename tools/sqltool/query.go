package sqltool

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

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
			"Read-only datasources refuse writes. Binary values come back as text when they are valid UTF-8, else as {\"base64\": …}.",
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
	stmt, err := cn.PrepareContext(ctx, st.text)
	if err != nil {
		return nil, auth.explain(err)
	}
	defer stmt.Close()
	writes := auth.done()
	if writes {
		if err := p.approve(ctx, c, d, a); err != nil {
			return nil, err
		}
	}
	qctx, cancel := context.WithTimeout(ctx, p.cfg.QueryTimeout)
	defer cancel()
	if writes {
		res, err := stmt.ExecContext(qctx, params...)
		if err != nil {
			return nil, p.failed(qctx, auth, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("datasource %q: rows affected: %w", d.Name, err)
		}
		return WriteResult{RowsAffected: n}, nil
	}
	rows, err := stmt.QueryContext(qctx, params...)
	if err != nil {
		return nil, p.failed(qctx, auth, err)
	}
	defer rows.Close()
	out, err := readRows(rows, maxRows)
	if err != nil {
		return nil, p.failed(qctx, auth, err)
	}
	return out, nil
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

// failed words an execution error, naming the timeout when it was one.
func (p *pools) failed(ctx context.Context, auth *authorizer, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("datasource %q: statement timed out after %s: %w", auth.ds, p.cfg.QueryTimeout, err)
	}
	return auth.explain(err)
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

// maxResultBytes bounds the rows' JSON, below the Runner's default cut of
// 16,000 characters.
const maxResultBytes = 12_000

// readRows reads at most max rows, and one more to know whether there are
// more; it also stops once the rows' JSON would pass maxResultBytes.
func readRows(rows *sql.Rows, max int) (QueryResult, error) {
	cols, err := rows.Columns()
	if err != nil {
		return QueryResult{}, err
	}
	out := QueryResult{Columns: cols, Rows: [][]any{}}
	size := 0
	for rows.Next() {
		if len(out.Rows) == max {
			out.Truncated = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return QueryResult{}, err
		}
		for i, v := range vals {
			vals[i] = jsonValue(v)
		}
		// The Runner cuts long results mid-text, which would leave the
		// model broken JSON; stop at whole rows well before that instead.
		b, err := json.Marshal(vals)
		if err != nil {
			return QueryResult{}, fmt.Errorf("encode row %d: %w", len(out.Rows)+1, err)
		}
		if size += len(b) + 1; size > maxResultBytes && len(out.Rows) > 0 {
			out.Truncated = true
			break
		}
		out.Rows = append(out.Rows, vals)
	}
	if err := rows.Err(); err != nil {
		return QueryResult{}, err
	}
	out.RowCount = len(out.Rows)
	return out, nil
}

// jsonValue makes a column value JSON-friendly: text blobs as strings,
// other blobs marked as base64 so they are not mistaken for text, times
// as RFC 3339, and non-finite floats (which JSON cannot hold) as strings.
func jsonValue(v any) any {
	switch x := v.(type) {
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		return map[string]string{"base64": base64.StdEncoding.EncodeToString(x)}
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x)
		}
	}
	return v
}
