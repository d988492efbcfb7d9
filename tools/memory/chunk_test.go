package memory

import (
	"strings"
	"testing"
)

func TestChunkMarkdown(t *testing.T) {
	long := strings.Repeat("word ", 60) // 300 bytes a line
	tests := []struct {
		name   string
		src    string
		ranges [][2]int // start and end line of each chunk
	}{
		{"empty", "", nil},
		{"blank only", "\n\n  \n", nil},
		{"one paragraph", "a\nb\n", [][2]int{{1, 2}}},
		{"paragraphs pack", "a\n\nb\n\n\nc", [][2]int{{1, 6}}},
		{"headings split", "# A\ntext\n\n## B\n\nmore\n", [][2]int{{1, 2}, {4, 6}}},
		{"leading blank lines", "\n\n# A\n", [][2]int{{3, 3}}},
		{"not headings", "#tag\n    # code\n####### seven\n", [][2]int{{1, 3}}},
		{"fence keeps heading", "```\n# not a heading\n```\n# H\n", [][2]int{{1, 3}, {4, 4}}},
		{"fence keeps blank", "~~~\na\n\nb\n~~~\n", [][2]int{{1, 5}}},
		{"long paragraphs split", strings.Repeat(long+"\n", 3) + "\n" + strings.Repeat(long+"\n", 3), [][2]int{{1, 3}, {5, 7}}},
		{"long paragraph cut between lines", strings.Repeat(long+"\n", 5), [][2]int{{1, 3}, {4, 5}}},
		{"giant line kept whole", strings.Repeat("x", 3000) + "\nnext\n", [][2]int{{1, 1}, {2, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chunkMarkdown(tt.src)
			lines := strings.Split(tt.src, "\n")
			var ranges [][2]int
			for _, c := range got {
				ranges = append(ranges, [2]int{c.startLine, c.endLine})
				if want := strings.Join(lines[c.startLine-1:c.endLine], "\n"); c.text != want {
					t.Errorf("chunk %d-%d text %q; want %q", c.startLine, c.endLine, c.text, want)
				}
			}
			if len(ranges) != len(tt.ranges) {
				t.Fatalf("chunks %v; want %v", ranges, tt.ranges)
			}
			for i := range ranges {
				if ranges[i] != tt.ranges[i] {
					t.Fatalf("chunks %v; want %v", ranges, tt.ranges)
				}
			}
		})
	}
}

func FuzzChunkMarkdown(f *testing.F) {
	f.Add(memoryMD)
	f.Add("```\n# x\n\n" + strings.Repeat("y", 2000))
	f.Fuzz(func(t *testing.T, src string) {
		prev := 0
		for _, c := range chunkMarkdown(src) {
			if c.startLine <= prev || c.endLine < c.startLine || strings.TrimSpace(c.text) == "" {
				t.Fatalf("bad chunk %+v after line %d", c, prev)
			}
			prev = c.endLine
		}
	})
}
