package memory

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openclaw-go/openclaw/tools"
)

// Result limits of memory_search.
const (
	defaultLimit = 10
	maxLimit     = 50
)

// SearchArgs are memory_search's arguments.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"description=Words to look for in your memory files"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50,description=Most results to return (default 10; at most 50)"`
}

// searchResult is what memory_search returns, as JSON.
type searchResult struct {
	Results []Hit `json:"results"`
}

func newSearch(w workspaceFunc, ix *index) tools.Tool {
	return tools.NewTyped(spec("memory_search", "Search memory",
		"Full-text search over the Markdown files in your workspace (MEMORY.md, memory/*.md, …). "+
			"Returns the best passages with their path, line range, a snippet and a score; read more with memory_get."),
		func(ctx context.Context, c tools.Call, a SearchArgs) (tools.Result, error) {
			limit := a.Limit
			switch {
			case limit <= 0:
				limit = defaultLimit
			case limit > maxLimit:
				limit = maxLimit
			}
			ws, err := w.open(c.Who)
			if err != nil {
				return tools.Result{}, err
			}
			defer ws.Close()
			if err := ix.sync(ctx, c.Who.AgentID, ws.Root()); err != nil {
				return tools.Result{}, err
			}
			res := searchResult{Results: []Hit{}}
			// Every word first; when that finds nothing, any word.
			if terms := queryTerms(a.Query); len(terms) > 0 {
				if res.Results, err = ix.search(ctx, c.Who.AgentID, matchExpr(terms, "AND"), limit); err != nil {
					return tools.Result{}, err
				}
				if len(res.Results) == 0 && len(terms) > 1 {
					if res.Results, err = ix.search(ctx, c.Who.AgentID, matchExpr(terms, "OR"), limit); err != nil {
						return tools.Result{}, err
					}
				}
			}
			out, err := json.Marshal(res)
			if err != nil {
				return tools.Result{}, fmt.Errorf("encode results: %w", err)
			}
			return tools.Result{Text: string(out)}, nil
		})
}
