package telegramtest

import (
	"net/http"
	"strconv"
)

// Fault is what a faulted call answers instead of its normal result.
type Fault struct {
	kind       faultKind
	code       int
	desc       string
	retryAfter int
}

type faultKind int

const (
	faultError faultKind = iota
	faultHang
	faultMalformed
)

// TooManyRequests answers 429 with parameters.retry_after, as Telegram's
// flood control does.
func TooManyRequests(retryAfter int) Fault {
	return Fault{code: http.StatusTooManyRequests, desc: "Too Many Requests: retry after " + strconv.Itoa(retryAfter), retryAfter: retryAfter}
}

// ServerError answers 500 Internal Server Error.
func ServerError() Fault {
	return Fault{code: http.StatusInternalServerError, desc: "Internal Server Error"}
}

// APIError answers code with description, e.g. 403 "Forbidden: bot was
// blocked by the user".
func APIError(code int, description string) Fault {
	return Fault{code: code, desc: description}
}

// Hang blocks the call until Release, the client gives up or the server
// closes; then it answers normally if still possible.
func Hang() Fault { return Fault{kind: faultHang} }

// Malformed answers 200 with a body that is not JSON.
func Malformed() Fault { return Fault{kind: faultMalformed} }

// Fail makes the next n calls of method answer f. Faults queue up: a
// second Fail for the same method applies after the first is used up.
func (s *Server) Fail(method string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[method] = append(s.faults[method], f)
	}
}

// Release frees every call hung by Hang so far.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.release)
	s.release = make(chan struct{})
	s.notifyLocked()
}

func (s *Server) takeFaultLocked(method string) (Fault, bool) {
	q := s.faults[method]
	if len(q) == 0 {
		return Fault{}, false
	}
	s.faults[method] = q[1:]
	return q[0], true
}

// apply answers the fault; it returns false when the call should go on
// to its normal handler (a released hang).
func (f Fault) apply(w http.ResponseWriter, r *http.Request, release, closed <-chan struct{}) bool {
	switch f.kind {
	case faultHang:
		select {
		case <-release:
			return false
		case <-r.Context().Done():
		case <-closed:
		}
		return true
	case faultMalformed:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":tru`))
		return true
	default:
		writeError(w, f.code, f.desc, f.retryAfter)
		return true
	}
}
