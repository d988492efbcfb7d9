package mateclaw

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// DocArgs are MateClawDocTool's arguments: a query searches, a path reads,
// neither lists.
type DocArgs struct {
	Query   string `json:"query,omitempty" jsonschema:"description=Words to find in the documentation; answers the matching sections"`
	Path    string `json:"path,omitempty" jsonschema:"description=A document to read, as the list names it (README.md, docs/ARCHITECTURE.md)"`
	Section string `json:"section,omitempty" jsonschema:"description=With path: read only the section under this heading"`
	Offset  int    `json:"offset,omitempty" jsonschema:"description=With path: characters to skip, to page through a long document"`
}

const (
	docReadChars   = 12_000 // one read's page
	docHits        = 8      // sections a search answers
	docSnippetRune = 600    // of each section found
)

// docSection is one heading's text in one document.
type docSection struct {
	file    string
	heading string // "" for the text before the first heading
	text    string
}

// DocTool returns MateClawDocTool over docs, the product's own
// documentation embedded in the binary. It reads nothing else: the paths
// it takes are names in docs, never the filesystem.
func DocTool(docs fs.FS) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name:        "MateClawDocTool",
		Description: "Read this gateway's own documentation (README, architecture, example config) to answer how-to questions: query searches it, path reads a document, neither lists them.",
		Source:      tools.SourceCore, Groups: []string{"group:mateclaw"}, Timeout: tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a DocArgs) (tools.Result, error) {
		files, err := docFiles(docs)
		if err != nil {
			return tools.Result{}, err
		}
		switch {
		case strings.TrimSpace(a.Query) != "":
			return tools.Result{Text: searchDocs(docs, files, a.Query)}, nil
		case a.Path != "":
			text, err := readDoc(docs, files, a.Path, a.Section, a.Offset)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: text}, nil
		}
		return tools.Result{Text: listDocs(docs, files)}, nil
	})
}

func docFiles(docs fs.FS) ([]string, error) {
	var files []string
	err := fs.WalkDir(docs, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the documentation: %w", err)
	}
	slices.Sort(files)
	return files, nil
}

func listDocs(docs fs.FS, files []string) string {
	var b strings.Builder
	b.WriteString("Documents (read one with path, search all with query):\n")
	for _, f := range files {
		secs := sections(docs, f)
		var heads []string
		for _, s := range secs {
			if s.heading != "" && len(heads) < 12 {
				heads = append(heads, s.heading)
			}
		}
		fmt.Fprintf(&b, "- %s", f)
		if len(heads) > 0 {
			fmt.Fprintf(&b, ": %s", strings.Join(heads, " · "))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func readDoc(docs fs.FS, files []string, name, section string, offset int) (string, error) {
	name = path.Clean(strings.TrimPrefix(name, "/"))
	if !slices.Contains(files, name) {
		return "", fmt.Errorf("no document %q; the documents are %s", name, strings.Join(files, ", "))
	}
	var text string
	if section != "" {
		for _, s := range sections(docs, name) {
			if strings.EqualFold(strings.TrimSpace(s.heading), strings.TrimSpace(section)) {
				text = s.text
				break
			}
		}
		if text == "" {
			return "", fmt.Errorf("%s has no section %q (list the documents to see their headings)", name, section)
		}
	} else {
		b, err := fs.ReadFile(docs, name)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", name, err)
		}
		text = string(b)
	}
	runes := []rune(text)
	if offset < 0 || offset > len(runes) {
		return "", fmt.Errorf("offset %d is outside %s (%d characters)", offset, name, len(runes))
	}
	end := min(len(runes), offset+docReadChars)
	out := string(runes[offset:end])
	if end < len(runes) {
		out += fmt.Sprintf("\n[%d of %d characters shown; read on with offset %d]", end-offset, len(runes), end)
	}
	return out, nil
}

// searchDocs ranks sections by how many of the query's words they hold
// (a heading match counts double) and answers the best with a snippet.
func searchDocs(docs fs.FS, files []string, query string) string {
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		sec   docSection
		score int
	}
	var hits []hit
	for _, f := range files {
		for _, s := range sections(docs, f) {
			body, head := strings.ToLower(s.text), strings.ToLower(s.heading)
			score := 0
			for _, w := range words {
				if n := strings.Count(body, w); n > 0 {
					score += 1 + min(n, 5)
				}
				if strings.Contains(head, w) {
					score += 6
				}
			}
			if score > 0 {
				hits = append(hits, hit{s, score})
			}
		}
	}
	if len(hits) == 0 {
		return fmt.Sprintf("nothing in the documentation matches %q; list the documents to browse them", query)
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	var b strings.Builder
	for i, h := range hits[:min(len(hits), docHits)] {
		if i > 0 {
			b.WriteString("\n\n")
		}
		head := h.sec.heading
		if head == "" {
			head = "(top)"
		}
		fmt.Fprintf(&b, "## %s — %s\n%s", h.sec.file, head, snippet(h.sec.text, docSnippetRune))
	}
	fmt.Fprintf(&b, "\n\n[%d sections matched; read one whole with path and section]", len(hits))
	return b.String()
}

func snippet(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "…"
}

// sections splits a markdown document at its headings; any other file is
// one section.
func sections(docs fs.FS, name string) []docSection {
	b, err := fs.ReadFile(docs, name)
	if err != nil {
		return nil
	}
	if !strings.HasSuffix(name, ".md") {
		return []docSection{{file: name, text: string(b)}}
	}
	var out []docSection
	cur := docSection{file: name}
	var body strings.Builder
	inFence := false
	for line := range strings.Lines(string(b)) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(line, "#") {
			if h := strings.TrimSpace(strings.TrimLeft(trimmed, "#")); h != "" {
				cur.text = body.String()
				if cur.heading != "" || strings.TrimSpace(cur.text) != "" {
					out = append(out, cur)
				}
				cur, body = docSection{file: name, heading: h}, strings.Builder{}
			}
		}
		body.WriteString(line)
	}
	cur.text = body.String()
	return append(out, cur)
}
