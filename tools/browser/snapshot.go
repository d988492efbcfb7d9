package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// interactiveRoles are the roles that get a ref and survive the
// interactive filter.
var interactiveRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true,
	"radio": true, "combobox": true, "listbox": true, "option": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "slider": true, "spinbutton": true,
	"switch": true, "tab": true, "treeitem": true, "textarea": true,
}

// contentRoles get a ref too when they have a name, so the model can
// screenshot or scroll to a heading or picture.
var contentRoles = map[string]bool{"heading": true, "img": true, "image": true, "cell": true}

// structuralRoles carry no meaning of their own; their children take
// their place.
var structuralRoles = map[string]bool{
	"generic": true, "none": true, "presentation": true, "InlineTextBox": true,
	"LineBreak": true, "RootWebArea": true, "WebArea": true, "LabelText": true, "MenuListPopup": true,
}

// snapshotOptions shape a role snapshot.
type snapshotOptions struct {
	Interactive bool // only interactive elements, flat
	Compact     bool // drop unnamed structure and repeated text
	Depth       int  // deepest indentation level shown; 0 means no limit
	MaxChars    int  // truncate the text after this many characters (bytes, so never more characters)
}

// axNode is the part of an accessibility node a snapshot reads.
type axNode struct {
	id       string
	role     string
	name     string
	value    string
	props    []string // checked, disabled, expanded...
	children []string
	backend  cdp.BackendNodeID
	ignored  bool
}

// renderSnapshot turns an accessibility tree into the snapshot text and
// the refs it names. It does no I/O, so it is tested and fuzzed alone.
func renderSnapshot(nodes map[string]*axNode, root string, o snapshotOptions) (string, map[string]cdp.BackendNodeID) {
	var b strings.Builder
	refs := map[string]cdp.BackendNodeID{}
	n := 0
	truncated := false
	seen := map[string]bool{}
	var walk func(id string, depth int, parentName string)
	walk = func(id string, depth int, parentName string) {
		node := nodes[id]
		if node == nil || seen[id] || truncated {
			return
		}
		seen[id] = true // a malformed tree must not loop
		childDepth := depth
		name := parentName
		if show, ref := node.shown(o, parentName); show && (o.Depth <= 0 || depth <= o.Depth) {
			role := node.role
			if role == "StaticText" {
				role = "text"
			}
			line := strings.Repeat("  ", depth) + "- " + role
			if node.name != "" {
				line += " " + strconv.Quote(clip(node.name, 200))
			}
			if node.value != "" && node.value != node.name {
				line += " value=" + strconv.Quote(clip(node.value, 200))
			}
			for _, p := range node.props {
				line += " [" + p + "]"
			}
			r := ""
			if ref && node.backend != 0 {
				r = "e" + strconv.Itoa(n+1)
				line += " [ref=" + r + "]"
			}
			if o.MaxChars > 0 && b.Len()+len(line) > o.MaxChars {
				truncated = true
				return
			}
			if r != "" {
				n++
				refs[r] = node.backend
			}
			b.WriteString(line)
			b.WriteByte('\n')
			if !o.Interactive {
				childDepth = depth + 1
			}
			name = node.name
		}
		for _, c := range node.children {
			walk(c, childDepth, name)
		}
	}
	walk(root, 0, "")
	if truncated {
		b.WriteString(snapshotNote)
	}
	if b.Len() == 0 {
		b.WriteString("(no matching elements)\n")
	}
	return b.String(), refs
}

// shown says whether a node gets a line, and whether that line gets a ref.
func (n *axNode) shown(o snapshotOptions, parentName string) (show, ref bool) {
	if n.ignored || structuralRoles[n.role] {
		return false, false
	}
	interactive := interactiveRoles[n.role]
	if o.Interactive {
		return interactive, interactive
	}
	if n.role == "StaticText" {
		// Text that only repeats its parent's name adds nothing.
		return n.name != "" && strings.TrimSpace(n.name) != strings.TrimSpace(parentName), false
	}
	if o.Compact && !interactive && n.name == "" {
		return false, false
	}
	return true, interactive || (contentRoles[n.role] && n.name != "")
}

// fromAX converts the protocol's nodes; the first node is the root.
func fromAX(list []*accessibility.Node) (map[string]*axNode, string) {
	nodes := make(map[string]*axNode, len(list))
	root := ""
	for _, a := range list {
		if a == nil {
			continue
		}
		n := &axNode{id: string(a.NodeID), role: axString(a.Role), name: axString(a.Name),
			value: axString(a.Value), backend: a.BackendDOMNodeID, ignored: a.Ignored}
		for _, c := range a.ChildIDs {
			n.children = append(n.children, string(c))
		}
		for _, p := range a.Properties {
			if p == nil || p.Value == nil {
				continue
			}
			switch name := string(p.Name); name {
			case "checked", "pressed", "selected", "expanded", "disabled", "required":
				v := axString(p.Value)
				switch v {
				case "true":
					n.props = append(n.props, name)
				case "mixed":
					n.props = append(n.props, name+"=mixed")
				}
			case "level":
				if v := axString(p.Value); v != "" {
					n.props = append(n.props, "level="+v)
				}
			}
		}
		if root == "" && a.ParentID == "" {
			root = n.id
		}
		nodes[n.id] = n
	}
	if root == "" && len(list) > 0 && list[0] != nil {
		root = string(list[0].NodeID)
	}
	return nodes, root
}

// axString reads a value as text whatever its JSON type.
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return strings.Trim(string(v.Value), `"`)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// snapshot reads the active tab's accessibility tree, renders it and
// keeps its refs for act.
func (t *tab) snapshot(ctx context.Context, selector string, o snapshotOptions) (string, error) {
	cctx, cancel := t.bound(ctx, 30*time.Second)
	defer cancel()
	var res accessibility.GetFullAXTreeResult
	err := whileNavigating(cctx, func() (err error) {
		res, err = chromedp.Call(cctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read accessibility tree: %w", err)
	}
	nodes, root := fromAX(res.Nodes)
	if selector != "" {
		backend, err := t.querySelector(cctx, selector)
		if err != nil {
			return "", err
		}
		root = ""
		for id, n := range nodes {
			if n.backend == backend {
				root = id
				break
			}
		}
		if root == "" {
			return "", fmt.Errorf("selector %q matches an element outside the accessibility tree", selector)
		}
	}
	text, refs := renderSnapshot(nodes, root, o)
	t.setRefs(refs)
	return text, nil
}

// querySelector finds the first element matching a CSS selector.
func (t *tab) querySelector(ctx context.Context, selector string) (cdp.BackendNodeID, error) {
	doc, err := chromedp.Call(ctx, dom.GetDocument, dom.GetDocumentParams{})
	if err != nil || doc.Root == nil {
		return 0, fmt.Errorf("read document: %w", err)
	}
	q, err := chromedp.Call(ctx, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: selector})
	if err != nil {
		return 0, fmt.Errorf("selector %q: %w", selector, err)
	}
	if q.NodeID == 0 {
		return 0, fmt.Errorf("selector %q matches nothing", selector)
	}
	d, err := chromedp.Call(ctx, dom.DescribeNode, dom.DescribeNodeParams{NodeID: q.NodeID})
	if err != nil || d.Node == nil {
		return 0, fmt.Errorf("selector %q: %w", selector, err)
	}
	return d.Node.BackendNodeID, nil
}

// snapshotNote ends a cut snapshot; snapshotNoteChars leaves room for it.
const (
	snapshotNote      = "… (snapshot truncated; use selector or interactive to narrow it)\n"
	snapshotNoteChars = 100
)
