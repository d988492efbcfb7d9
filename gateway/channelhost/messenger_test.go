package channelhost

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/tools/message"
)

// The message tool offers every channel action, and refuses to anyone
// but the owner exactly the actions message.action keeps to admins.
func TestMessageToolMatchesChannelActions(t *testing.T) {
	f, _ := reflect.TypeFor[message.Args]().FieldByName("Action")
	var enum []string
	for _, part := range strings.Split(f.Tag.Get("jsonschema"), ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			enum = append(enum, v)
		}
	}
	if !slices.Equal(enum, channels.Actions) {
		t.Errorf("tool enum %v\nchannels.Actions %v", enum, channels.Actions)
	}
	for _, a := range channels.Actions {
		if got, want := message.OwnerOnlyAction(a), slices.Contains(channels.DangerousActions, a); got != want {
			t.Errorf("%s: owner-only in the tool %v, admin-only over RPC %v", a, got, want)
		}
	}
}
