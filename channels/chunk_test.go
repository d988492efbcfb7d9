package channels

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

var chunkTests = []struct {
	name  string
	text  string
	limit int
	mode  string
	want  []string
}{
	{name: "empty", text: "", limit: 10, want: nil},
	{name: "only whitespace", text: " \n\n\t\n ", limit: 10, want: nil},
	{name: "fits", text: "hello world", limit: 11, want: []string{"hello world"}},
	{name: "no limit", text: "a long text\n\nwith paragraphs  \n", limit: 0, want: []string{"a long text\n\nwith paragraphs"}},
	{name: "negative limit", text: "abc def", limit: -1, want: []string{"abc def"}},
	{
		name: "paragraph before newline", text: "aaa aaa\n\nbbb bbb\nccc", limit: 12,
		want: []string{"aaa aaa", "bbb bbb\nccc"},
	},
	{
		name: "latest paragraph that fits", text: "aa\n\nbb\n\ncc dd ee ff", limit: 8,
		want: []string{"aa\n\nbb", "cc dd ee", "ff"},
	},
	{
		name: "newline before space", text: "aaa bbb\nccc ddd eee", limit: 10,
		want: []string{"aaa bbb", "ccc ddd", "eee"},
	},
	{
		name: "space", text: "one two three four", limit: 9,
		want: []string{"one two", "three", "four"},
	},
	{
		name: "long word hard split", text: "abcdefghij", limit: 4,
		want: []string{"abcd", "efgh", "ij"},
	},
	{
		name: "long word between words", text: "go supercalifragilistic ok", limit: 8,
		want: []string{"go", "supercal", "ifragili", "stic ok"},
	},
	{
		name: "emoji count two units", text: "😀😀😀", limit: 3,
		want: []string{"😀", "😀", "😀"},
	},
	{
		name: "emoji never split mid pair", text: "a😀b😀", limit: 2,
		want: []string{"a", "😀", "b", "😀"},
	},
	{
		name: "cjk hard split on runes", text: "日本語のテキスト", limit: 3,
		want: []string{"日本語", "のテキ", "スト"},
	},
	{
		name: "trailing whitespace and empty chunks", text: "a   \n\n\n   \n\nb  ", limit: 3,
		want: []string{"a", "b"},
	},
	{
		name: "indentation kept", text: "- item one\n  - nested two\n- item three", limit: 15,
		want: []string{"- item one", "  - nested two", "- item three"},
	},
	{
		name: "codeFence kept whole", text: "intro text here\n\n```go\nfunc a() {}\n```\n\nafter", limit: 30,
		want: []string{"intro text here", "```go\nfunc a() {}\n```\n\nafter"},
	},
	{
		name: "no break inside fitting codeFence", text: "text\n```\na b\nc d\n```", limit: 16,
		want: []string{"text", "```\na b\nc d\n```"},
	},
	{
		name: "long codeFence reopened", text: "```go\nline1\nline2\nline3\n```", limit: 20,
		want: []string{"```go\nline1\n```", "```go\nline2\n```", "```go\nline3\n```"},
	},
	{
		name: "long tilde codeFence keeps info string", text: "~~~python title\nprint(1)\nprint(2)\nprint(3)\n~~~\ntail", limit: 32,
		want: []string{
			"~~~python title\nprint(1)\n~~~",
			"~~~python title\nprint(2)\n~~~",
			"~~~python title\nprint(3)\n~~~",
			"tail",
		},
	},
	{
		name: "long codeFence after prose", text: "see:\n````sh\necho 1\necho 2\n````", limit: 24,
		want: []string{"see:\n````sh\necho 1\n````", "````sh\necho 2\n````"},
	},
	{
		name: "unclosed codeFence reopened", text: "```\naaaa\nbbbb\ncccc", limit: 12,
		want: []string{"```\naaaa\n```", "```\nbbbb\n```", "```\ncccc"},
	},
	{
		name: "inline backticks are not a codeFence", text: "```a``` b c", limit: 8,
		want: []string{"```a```", "b c"},
	},
	{
		name: "newline mode paragraphs", text: "a\n\nb\n\n\nc", limit: 100, mode: ChunkNewline,
		want: []string{"a", "b", "c"},
	},
	{
		name: "newline mode keeps single newlines", text: "a\nb\n\nc", limit: 100, mode: ChunkNewline,
		want: []string{"a\nb", "c"},
	},
	{
		name: "newline mode codeFence is one paragraph", text: "para one\n\n```\nx\n\ny\n```\n\npara two", limit: 100, mode: ChunkNewline,
		want: []string{"para one", "```\nx\n\ny\n```", "para two"},
	},
	{
		name: "newline mode long paragraph", text: "short\n\none two three four", limit: 9, mode: ChunkNewline,
		want: []string{"short", "one two", "three", "four"},
	},
	{
		name: "unknown mode is length", text: "a\n\nb", limit: 100, mode: "bogus",
		want: []string{"a\n\nb"},
	},
}

func TestChunk(t *testing.T) {
	for _, tt := range chunkTests {
		t.Run(tt.name, func(t *testing.T) {
			got := Chunk(tt.text, tt.limit, tt.mode)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Chunk(%q, %d, %q)\n got %q\nwant %q", tt.text, tt.limit, tt.mode, got, tt.want)
			}
			if tt.limit > 0 {
				for _, c := range got {
					if n := UTF16Len(c); n > tt.limit {
						t.Errorf("chunk %q is %d units, limit %d", c, n, tt.limit)
					}
				}
			}
		})
	}
}

func TestUTF16Len(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"日本", 2},
		{"😀", 2},
		{"a😀b", 4},
		{"👍🏽", 4},   // base emoji plus skin-tone modifier: two pairs
		{"\xff", 1}, // invalid byte: one U+FFFD
	} {
		if got := UTF16Len(tt.s); got != tt.want {
			t.Errorf("UTF16Len(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func FuzzChunk(f *testing.F) {
	for _, tt := range chunkTests {
		f.Add(tt.text, tt.limit, tt.mode == ChunkNewline)
	}
	f.Add("```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\nDone 😀 日本語", 16, false)
	f.Fuzz(func(t *testing.T, text string, limit int, newline bool) {
		limit %= 300
		mode := ChunkLength
		if newline {
			mode = ChunkNewline
		}
		pieces := chunkPieces(text, limit, mode)
		chunks := Chunk(text, limit, mode)
		if len(chunks) != len(pieces) {
			t.Fatalf("Chunk gave %d chunks, pieces %d", len(chunks), len(pieces))
		}
		// Bodies are substrings of the input, in order, separated only by
		// whitespace: nothing lost, nothing reordered.
		pos := 0
		for i, p := range pieces {
			if chunks[i] != p.String() {
				t.Fatalf("chunk %d = %q, chunkPiece %q", i, chunks[i], p.String())
			}
			if strings.TrimSpace(chunks[i]) == "" || p.body == "" {
				t.Fatalf("chunk %d is empty: %q", i, chunks[i])
			}
			if p.start < pos || text[p.start:p.start+len(p.body)] != p.body {
				t.Fatalf("chunk %d body %q not at offset %d (after %d)", i, p.body, p.start, pos)
			}
			if gap := text[pos:p.start]; strings.TrimFunc(gap, unicode.IsSpace) != "" {
				t.Fatalf("content %q lost before chunk %d", gap, i)
			}
			pos = p.start + len(p.body)
			if p.prefix != "" && !isFenceLine(strings.TrimSuffix(p.prefix, "\n")) {
				t.Fatalf("chunk %d prefix %q is not a codeFence line", i, p.prefix)
			}
			if p.suffix != "" && !isFenceLine(strings.TrimPrefix(p.suffix, "\n")) {
				t.Fatalf("chunk %d suffix %q is not a codeFence line", i, p.suffix)
			}
			if limit >= 16 && UTF16Len(chunks[i]) > limit {
				t.Fatalf("chunk %d is %d units, limit %d: %q", i, UTF16Len(chunks[i]), limit, chunks[i])
			}
		}
		if rest := text[pos:]; strings.TrimFunc(rest, unicode.IsSpace) != "" {
			t.Fatalf("content %q lost at the end", rest)
		}
	})
}

func isFenceLine(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~")
}
