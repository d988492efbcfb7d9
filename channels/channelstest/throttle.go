package channelstest

import (
	"net/http"
	"sync"

	"github.com/openclaw-go/openclaw/channels"
)

// Throttle is a channels.SecretThrottle that locks every client out once
// Max failures were recorded, as the gateway's limiter does for one
// client within its window. Locked-out requests get 429 with
// Retry-After: 60.
type Throttle struct {
	Max int

	mu       sync.Mutex
	failures int
}

var _ channels.SecretThrottle = (*Throttle)(nil)

// Admit implements channels.SecretThrottle.
func (t *Throttle) Admit(w http.ResponseWriter, r *http.Request) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failures >= t.Max {
		w.Header().Set("Retry-After", "60")
		http.Error(w, "too many failed authentication attempts", http.StatusTooManyRequests)
		return false
	}
	return true
}

// Failed implements channels.SecretThrottle.
func (t *Throttle) Failed(r *http.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failures++
}

// Failures is how many failures were recorded.
func (t *Throttle) Failures() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failures
}
