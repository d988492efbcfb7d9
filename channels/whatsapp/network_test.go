package whatsapp

import (
	"maps"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
)

func TestActionsMapping(t *testing.T) {
	tests := []struct {
		name, actions string
		off           []string
	}{
		{"defaults", `{}`, nil},
		{"nothing", `{sendMessage: false, reactions: false, polls: false}`, []string{"poll", "react", "send"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := config.Parse("openclaw.json", []byte(`{channels: {whatsapp: {actions: `+tt.actions+`}}}`), config.LoadOptions{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			specs := Network(channels.Host{}).Accounts(snap.Config)
			if len(specs) != 1 {
				t.Fatalf("%d accounts", len(specs))
			}
			if got := slices.Sorted(maps.Keys(specs[0].Policy.ActionsOff)); !slices.Equal(got, tt.off) {
				t.Errorf("actions off = %v, want %v", got, tt.off)
			}
		})
	}
}
