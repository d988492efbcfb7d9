package browser

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
)

// tree builds accessibility nodes from "id role name parent backend" rows.
func tree(rows ...[5]string) []*accessibility.Node {
	var out []*accessibility.Node
	byID := map[string]*accessibility.Node{}
	for i, r := range rows {
		n := &accessibility.Node{NodeID: accessibility.NodeID(r[0]), ParentID: accessibility.NodeID(r[3]),
			Role: axValue(r[1]), BackendDOMNodeID: cdp.BackendNodeID(i + 100)}
		if r[2] != "" {
			n.Name = axValue(r[2])
		}
		if r[4] == "ignored" {
			n.Ignored = true
		}
		if p := byID[r[3]]; p != nil {
			p.ChildIDs = append(p.ChildIDs, n.NodeID)
		}
		byID[r[0]] = n
		out = append(out, n)
	}
	return out
}

func axValue(s string) *accessibility.Value {
	b, _ := json.Marshal(s)
	return &accessibility.Value{Type: "string", Value: b}
}

func TestRenderSnapshot(t *testing.T) {
	nodes := tree(
		[5]string{"1", "RootWebArea", "Page", "", ""},
		[5]string{"2", "heading", "Title", "1", ""},
		[5]string{"3", "StaticText", "Title", "2", ""},
		[5]string{"4", "generic", "", "1", ""},
		[5]string{"5", "button", "Go", "4", ""},
		[5]string{"6", "StaticText", "Go", "5", ""},
		[5]string{"7", "paragraph", "", "4", ""},
		[5]string{"8", "StaticText", "some words", "7", ""},
		[5]string{"9", "textbox", "Email", "4", ""},
		[5]string{"10", "button", "Hidden", "4", "ignored"},
	)
	for _, c := range []struct {
		name     string
		opts     snapshotOptions
		want     []string
		wantNot  []string
		wantRefs int
	}{
		{"full", snapshotOptions{}, []string{`- heading "Title" [ref=e1]`, `- button "Go" [ref=e2]`, `  - text "some words"`, `- textbox "Email" [ref=e3]`}, []string{"Hidden", "generic", "RootWebArea"}, 3},
		{"interactive", snapshotOptions{Interactive: true}, []string{`- button "Go" [ref=e1]`, `- textbox "Email" [ref=e2]`}, []string{"heading", `text "`}, 2},
		{"compact", snapshotOptions{Compact: true}, []string{`- heading "Title"`, `- text "some words"`}, []string{`text "Title"`, "paragraph"}, 3},
		{"depth", snapshotOptions{Depth: 0 + 1}, []string{`- heading "Title"`}, []string{"      -"}, 3},
		{"truncated", snapshotOptions{MaxChars: 30}, []string{"truncated"}, []string{"Email"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, root := fromAX(nodes)
			text, refs := renderSnapshot(m, root, c.opts)
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("lacks %q:\n%s", w, text)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(text, w) {
					t.Errorf("has %q:\n%s", w, text)
				}
			}
			if len(refs) != c.wantRefs {
				t.Errorf("%d refs, want %d: %v", len(refs), c.wantRefs, refs)
			}
		})
	}
}

// FuzzRenderSnapshot feeds arbitrary (possibly cyclic or dangling) trees
// from a page to the renderer, which must neither loop nor panic.
func FuzzRenderSnapshot(f *testing.F) {
	f.Add([]byte(`[{"nodeId":"1","ignored":false,"role":{"type":"role","value":"button"},"name":{"type":"string","value":"Go"},"childIds":["1","2"],"backendDOMNodeId":3}]`), true, 2)
	f.Add([]byte(`[{"nodeId":"a","ignored":false,"childIds":["b"]},{"nodeId":"b","ignored":false,"parentId":"a","childIds":["a"],"role":{"type":"role","value":7}}]`), false, 0)
	f.Fuzz(func(t *testing.T, data []byte, interactive bool, depth int) {
		var list []*accessibility.Node
		if json.Unmarshal(data, &list) != nil {
			return
		}
		m, root := fromAX(list)
		text, refs := renderSnapshot(m, root, snapshotOptions{Interactive: interactive, Depth: depth % 10, MaxChars: 10000})
		if len(text) > 10200 {
			t.Fatalf("text of %d chars past the limit", len(text))
		}
		for r := range refs {
			if !strings.Contains(text, "[ref="+r+"]\n") {
				t.Fatalf("ref %s in the map but not on a line:\n%s", r, text)
			}
		}
	})
}
