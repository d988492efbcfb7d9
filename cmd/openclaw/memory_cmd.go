package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func init() { registerCommand("", newMemoryCmd) }

// memoryHit is one memory_search result.
type memoryHit struct {
	Path      string  `json:"path"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Snippet   string  `json:"snippet"`
	Score     float64 `json:"score"`
}

// newMemoryCmd is `openclaw memory status|search`: the agent's memory
// index (full-text over the workspace's Markdown files) as the gateway
// keeps it. Search goes through the memory_search tool, so it reads the
// same files, with the same workspace confinement, as the agent.
func newMemoryCmd(a *app) *cobra.Command {
	root := &cobra.Command{Use: "memory <command>", Short: "Search and inspect memory files"}

	var statusAgent string
	var sg *gatewayFlags
	status := &cobra.Command{
		Use:   "status",
		Short: "The memory index of an agent: files and chunks indexed, search provider",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			params := map[string]any{}
			if statusAgent != "" {
				params["agentId"] = statusAgent
			}
			var raw json.RawMessage
			if err := a.callOnce(cmd.Context(), sg, "doctor.memory.status", scopesFor("doctor.memory.status"), params, &raw, false); err != nil {
				return err
			}
			if sg.json {
				return writeJSON(a.stdout, raw)
			}
			var st struct {
				AgentID   string `json:"agentId"`
				Provider  string `json:"provider"`
				Embedding struct {
					Error string `json:"error"`
				} `json:"embedding"`
				Index struct {
					Files  int `json:"files"`
					Chunks int `json:"chunks"`
				} `json:"index"`
			}
			if err := json.Unmarshal(raw, &st); err != nil {
				return fmt.Errorf("doctor.memory.status answer: %w", err)
			}
			fmt.Fprintf(a.stdout, "Memory (agent %s)\nProvider: %s\nIndexed: %d files, %d chunks\n", st.AgentID, st.Provider, st.Index.Files, st.Index.Chunks)
			if st.Embedding.Error != "" {
				fmt.Fprintf(a.stdout, "Embeddings: %s\n", st.Embedding.Error)
			}
			if st.Index.Files == 0 {
				fmt.Fprintln(a.stdout, "Nothing indexed yet: the first memory search indexes MEMORY.md and memory/*.md.")
			}
			return nil
		},
	}
	status.Flags().StringVar(&statusAgent, "agent", "", "agent `id` (default: the default agent)")
	sg = addGatewayFlags(status.Flags(), a)

	var query, searchAgent string
	var maxResults int
	var minScore float64
	var qg *gatewayFlags
	search := &cobra.Command{
		Use:   "search [query]",
		Short: "Search the agent's memory files",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if query != "" {
					return usageErrorf("give the query as an argument or with --query, not both")
				}
				query = args[0]
			}
			if strings.TrimSpace(query) == "" {
				return usageErrorf("memory search needs a query")
			}
			if maxResults < 0 || maxResults > 50 {
				return usageErrorf("--max-results %d: want 1 to 50", maxResults)
			}
			toolArgs := map[string]any{"query": query}
			if maxResults > 0 {
				toolArgs["limit"] = maxResults
			}
			params := map[string]any{"name": "memory_search", "args": toolArgs}
			if searchAgent != "" {
				params["agentId"] = searchAgent
			}
			var res struct {
				OK     bool   `json:"ok"`
				Output string `json:"output"`
			}
			if err := a.callOnce(cmd.Context(), qg, "tools.invoke", scopesFor("tools.invoke"), params, &res, false); err != nil {
				return err
			}
			if !res.OK {
				return errors.New(res.Output)
			}
			var found struct {
				Results []memoryHit `json:"results"`
			}
			if err := json.Unmarshal([]byte(res.Output), &found); err != nil {
				return fmt.Errorf("memory_search answer: %w", err)
			}
			kept := found.Results[:0]
			for _, h := range found.Results {
				if h.Score >= minScore {
					kept = append(kept, h)
				}
			}
			found.Results = kept
			if qg.json {
				return writeJSON(a.stdout, found)
			}
			if len(found.Results) == 0 {
				fmt.Fprintln(a.stdout, "No matches.")
				return nil
			}
			for _, h := range found.Results {
				fmt.Fprintf(a.stdout, "%s:%d-%d  (score %.2f)\n  %s\n", h.Path, h.StartLine, h.EndLine, h.Score,
					strings.ReplaceAll(strings.TrimSpace(h.Snippet), "\n", "\n  "))
			}
			return nil
		},
	}
	sf := search.Flags()
	sf.StringVar(&query, "query", "", "the `text` to look for")
	sf.StringVar(&searchAgent, "agent", "", "agent `id` (default: the default agent)")
	sf.IntVar(&maxResults, "max-results", 0, "at most `n` results (1 to 50, default 10)")
	sf.Float64Var(&minScore, "min-score", 0, "drop matches scoring below `n`")
	qg = addGatewayFlags(sf, a)

	root.AddCommand(status, search)
	return root
}
