package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestOpenClawArgumentNames: arguments in OpenClaw's own shape (targetUrl,
// act fields nested in request, mode efficient) mean what ours do.
func TestOpenClawArgumentNames(t *testing.T) {
	yes := true
	tests := []struct {
		name string
		in   Args
		want Args
		err  string
	}{
		{"targetUrl", Args{Action: "open", TargetURL: "https://example.com/"},
			Args{Action: "open", URL: "https://example.com/", TargetURL: "https://example.com/"}, ""},
		{"url wins over targetUrl", Args{Action: "navigate", URL: "https://a.example/", TargetURL: "https://b.example/"},
			Args{Action: "navigate", URL: "https://a.example/", TargetURL: "https://b.example/"}, ""},
		{"nested act request", Args{Action: "act", Profile: "work", Request: &ActRequest{Kind: "type", Ref: "e3", Text: "hi", Submit: true}},
			Args{Action: "act", Profile: "work", Kind: "type", Ref: "e3", Text: "hi", Submit: true}, ""},
		{"nested fields win", Args{Action: "act", Kind: "click", Ref: "e1", Request: &ActRequest{Ref: "e2"}},
			Args{Action: "act", Kind: "click", Ref: "e2"}, ""},
		{"efficient snapshot", Args{Action: "snapshot", Mode: "efficient"},
			Args{Action: "snapshot", Mode: "efficient", Interactive: true, Compact: true}, ""},
		{"host target", Args{Action: "status", Target: "host"}, Args{Action: "status", Target: "host"}, ""},
		{"sandbox target", Args{Action: "status", Target: "sandbox"}, Args{}, "host only"},
		{"node", Args{Action: "status", Node: "mac"}, Args{}, "not supported"},
		{"modifiers", Args{Action: "act", Kind: "press", Key: "t", Modifiers: []string{"Control"}}, Args{}, "modifiers"},
		{"dialog accept stays", Args{Action: "dialog", Accept: &yes}, Args{Action: "dialog", Accept: &yes}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			err := got.normalize()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Request = nil
			if got.Action != tt.want.Action || got.URL != tt.want.URL || got.Kind != tt.want.Kind || got.Ref != tt.want.Ref ||
				got.Text != tt.want.Text || got.Submit != tt.want.Submit || got.Profile != tt.want.Profile ||
				got.Interactive != tt.want.Interactive || got.Compact != tt.want.Compact || (got.Accept == nil) != (tt.want.Accept == nil) {
				t.Fatalf("normalized %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestQueryLines(t *testing.T) {
	snap := "- heading \"Sign up\" [level=1]\n- textbox \"Email\" [ref=e1]\n- button \"Create account\" [ref=e3]"
	if got := queryLines(snap, []string{"button", "create"}); got != `- button "Create account" [ref=e3]` {
		t.Fatalf("query: %q", got)
	}
	if got := queryLines(snap, []string{"nothing"}); !strings.Contains(got, "no snapshot line matches") {
		t.Fatalf("no match: %q", got)
	}
}

func TestDetached(t *testing.T) {
	tests := map[string]bool{
		"Not attached to an active page (-32000)": true,
		"Cannot find context with specified id":   true,
		"Execution context was destroyed.":        true,
		"No node with given id found":             false,
	}
	for msg, want := range tests {
		if got := detached(errors.New(msg)); got != want {
			t.Errorf("detached(%q) = %v", msg, got)
		}
	}
	calls := 0
	err := whileNavigating(context.Background(), func() error {
		calls++
		if calls < 3 {
			return errors.New("Not attached to an active page")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("whileNavigating: %v after %d calls", err, calls)
	}
}
