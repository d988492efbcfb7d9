// Package toolset merges the tools of several providers (the MCP servers
// of plugins/mcp, the plugins of plugins/extproc) into the one list the
// gateway registers, and tells the gateway when that list changes.
package toolset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/tools"
)

// Owner is one provider and the tools it lists.
type Owner struct {
	Name  string
	Tools []tools.Tool
}

// Merge returns the owners' tools sorted by name. Registry names are
// case-insensitive, so a tool whose name, ignoring case, an earlier
// owner already took is left out and reported to taken (may be nil) with
// its owner and the owner that took the name.
func Merge(owners []Owner, taken func(tool, owner, by string)) []tools.Tool {
	var out []tools.Tool
	seen := map[string]string{}
	for _, o := range owners {
		for _, t := range o.Tools {
			n := strings.ToLower(t.Spec().Name)
			if other, dup := seen[n]; dup {
				if taken != nil {
					taken(t.Spec().Name, o.Name, other)
				}
				continue
			}
			seen[n] = o.Name
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b tools.Tool) int { return strings.Compare(a.Spec().Name, b.Spec().Name) })
	return out
}

// Watch calls onChange when a list of tools changes. A refresh that lists
// the same tools (names, descriptions and parameters) stays silent, so a
// provider that restarts does not make the gateway rebuild its registry.
type Watch struct {
	list     func() []tools.Tool
	onChange func()

	mu   sync.Mutex // serializes onChange
	last string
}

// NewWatch watches the list that list returns. onChange may be nil.
func NewWatch(list func() []tools.Tool, onChange func()) *Watch {
	return &Watch{list: list, onChange: onChange}
}

// Check reads the list and calls onChange if it differs from the one the
// last Check saw; the first Check always calls it. onChange runs on the
// caller's goroutine, never concurrently with itself.
func (w *Watch) Check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	sig := signature(w.list())
	if sig == w.last {
		return
	}
	w.last = sig
	if w.onChange != nil {
		w.onChange()
	}
}

func signature(ts []tools.Tool) string {
	h := sha256.New()
	for _, t := range ts {
		s := t.Spec()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", s.Name, s.Description, s.Parameters)
	}
	return hex.EncodeToString(h.Sum(nil))
}
