package toolset

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

type tool struct{ spec tools.Spec }

func (t tool) Spec() tools.Spec { return t.spec }
func (t tool) Call(context.Context, tools.Call) (tools.Result, error) {
	return tools.Result{}, nil
}

func mk(name, desc string) tools.Tool {
	return tool{tools.Spec{Name: name, Description: desc, Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func names(ts []tools.Tool) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Spec().Name)
	}
	return strings.Join(out, ",")
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name   string
		owners []Owner
		want   string
		taken  []string // "tool owner by"
	}{
		{"empty", nil, "", nil},
		{"sorted across owners", []Owner{
			{"a", []tools.Tool{mk("a__z", ""), mk("a__b", "")}},
			{"b", []tools.Tool{mk("b__a", "")}},
		}, "a__b,a__z,b__a", nil},
		{"first owner wins, ignoring case", []Owner{
			{"x", []tools.Tool{mk("dup__t", "")}},
			{"X", []tools.Tool{mk("DUP__t", ""), mk("X__other", "")}},
		}, "X__other,dup__t", []string{"DUP__t X x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var taken []string
			got := Merge(tt.owners, func(tool, owner, by string) {
				taken = append(taken, tool+" "+owner+" "+by)
			})
			if names(got) != tt.want {
				t.Errorf("Merge = %s, want %s", names(got), tt.want)
			}
			if !slices.Equal(taken, tt.taken) {
				t.Errorf("taken = %q, want %q", taken, tt.taken)
			}
		})
	}
	if got := Merge([]Owner{{"a", []tools.Tool{mk("t", "")}}, {"b", []tools.Tool{mk("T", "")}}}, nil); names(got) != "t" {
		t.Errorf("Merge with nil taken = %s", names(got))
	}
}

func TestWatch(t *testing.T) {
	var list []tools.Tool
	calls := 0
	w := NewWatch(func() []tools.Tool { return list }, func() { calls++ })
	steps := []struct {
		name  string
		list  []tools.Tool
		calls int
	}{
		{"first check always tells", nil, 1},
		{"same empty list", nil, 1},
		{"a tool came", []tools.Tool{mk("a", "one")}, 2},
		{"same again", []tools.Tool{mk("a", "one")}, 2},
		{"description changed", []tools.Tool{mk("a", "two")}, 3},
		{"tool gone", nil, 4},
	}
	for _, s := range steps {
		list = s.list
		w.Check()
		if calls != s.calls {
			t.Errorf("%s: onChange called %d times, want %d", s.name, calls, s.calls)
		}
	}
	NewWatch(func() []tools.Tool { return nil }, nil).Check() // nil onChange is allowed
}
