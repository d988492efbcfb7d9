package sqltool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openclaw-go/openclaw/tools"
)

// DatasourceArgs are DatasourceTool's arguments.
type DatasourceArgs struct {
	Action string `json:"action" jsonschema:"enum=list,enum=describe,description=list: the configured datasources; describe: a datasource's tables or one table's columns"`
	Name   string `json:"name,omitempty" jsonschema:"description=Datasource to describe"`
	Table  string `json:"table,omitempty" jsonschema:"description=Table or view whose columns to describe"`
}

// DatasourceInfo is one datasource as the model sees it: never its DSN.
type DatasourceInfo struct {
	Name        string `json:"name"`
	Driver      string `json:"driver"`
	ReadOnly    bool   `json:"readOnly"`
	Description string `json:"description,omitempty"`
}

// TableInfo is one table or view.
type TableInfo struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ColumnInfo is one column of a table.
type ColumnInfo struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	NotNull bool   `json:"notnull"`
	// PK is the column's position in the primary key, 0 if not in it.
	PK int `json:"pk"`
}

func newDatasourceTool(p *pools) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name:        "DatasourceTool",
		Label:       "Datasources",
		Description: "List the configured SQL datasources, or describe a datasource's tables or one table's columns.",
		Tier:        tools.TierCore,
		Source:      tools.SourceCore,
		Groups:      []string{"group:sql"},
		Timeout:     tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a DatasourceArgs) (tools.Result, error) {
		var out any
		var err error
		switch a.Action {
		case "list":
			out = p.list()
		case "describe":
			out, err = p.describe(ctx, c.Who, a.Name, a.Table)
		default:
			return tools.Result{}, fmt.Errorf("unknown action %q (want list or describe)", a.Action)
		}
		if err != nil {
			return tools.Result{}, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return tools.Result{}, fmt.Errorf("encode %s result: %w", a.Action, err)
		}
		return tools.Result{Text: string(b)}, nil
	})
}

func (p *pools) list() []DatasourceInfo {
	out := make([]DatasourceInfo, 0, len(p.cfg.Datasources))
	for _, d := range p.cfg.Datasources {
		out = append(out, DatasourceInfo{Name: d.Name, Driver: d.Driver, ReadOnly: d.readOnly(), Description: d.Description})
	}
	return out
}

// describe lists the tables and views of a datasource, or the columns of
// one, read from SQLite's own catalogue.
func (p *pools) describe(ctx context.Context, who tools.Who, name, table string) (any, error) {
	if name == "" {
		return nil, fmt.Errorf("describe needs the datasource name")
	}
	d, err := p.find(name)
	if err != nil {
		return nil, err
	}
	db, err := p.open(who, d)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.QueryTimeout)
	defer cancel()
	cn, auth, err := conn(ctx, db, d)
	if err != nil {
		return nil, err
	}
	defer cn.Close()
	if table == "" {
		rows, err := cn.QueryContext(ctx, `SELECT name, type FROM sqlite_master
			WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
		if err != nil {
			return nil, auth.explain(fmt.Errorf("list tables: %w", err))
		}
		defer rows.Close()
		out := []TableInfo{}
		for rows.Next() {
			var t TableInfo
			if err := rows.Scan(&t.Name, &t.Type); err != nil {
				return nil, auth.explain(fmt.Errorf("list tables: %w", err))
			}
			out = append(out, t)
		}
		if err := rows.Err(); err != nil {
			return nil, auth.explain(fmt.Errorf("list tables: %w", err))
		}
		return out, nil
	}
	rows, err := cn.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return nil, auth.explain(fmt.Errorf("columns of %q: %w", table, err))
	}
	defer rows.Close()
	out := []ColumnInfo{}
	for rows.Next() {
		var col ColumnInfo
		if err := rows.Scan(&col.Name, &col.Type, &col.NotNull, &col.PK); err != nil {
			return nil, auth.explain(fmt.Errorf("columns of %q: %w", table, err))
		}
		out = append(out, col)
	}
	if err := rows.Err(); err != nil {
		return nil, auth.explain(fmt.Errorf("columns of %q: %w", table, err))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("datasource %q has no table or view %q", d.Name, table)
	}
	return out, nil
}
