package gateway

import (
	"os"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestEveryToolInREADME: each tool tools.catalog lists is named, in
// backticks, in the README's tool list, so a tool is never added without
// telling users it is there.
func TestEveryToolInREADME(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, c := startWithConfig(t, fakemodel.New(t), "")
	cat := call[map[string]any](t, c, "tools.catalog", map[string]any{})
	n := 0
	for _, g := range cat["groups"].([]any) {
		for _, tool := range g.(map[string]any)["tools"].([]any) {
			id := tool.(map[string]any)["id"].(string)
			n++
			if !strings.Contains(string(readme), "`"+id+"`") {
				t.Errorf("tool %s is in tools.catalog but not in README.md", id)
			}
		}
	}
	if n < 50 {
		t.Fatalf("tools.catalog listed %d tools; the catalog looks wrong", n)
	}
}
