package browser

import (
	"strings"
	"testing"
	"time"
)

// A screenshot taken while the page is still navigating (a form was just
// submitted) must wait for the new document, not hang until the deadline.
func TestScreenshotRightAfterSubmit(t *testing.T) {
	h := newHarness(t, loopback)
	for i := 0; i < 6; i++ {
		h.call(t, map[string]any{"action": "open", "url": h.srv.URL + "/"})
		snap := h.call(t, map[string]any{"action": "snapshot", "interactive": true})
		h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `button "Send"`)})
		for h.srv.postCount() <= i {
			time.Sleep(time.Millisecond)
		}
		shot := h.call(t, map[string]any{"action": "screenshot"})
		if !strings.Contains(shot, "MEDIA:") {
			t.Fatalf("round %d: screenshot: %s", i, shot)
		}
	}
}

func (s *site) postCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.posts)
}
