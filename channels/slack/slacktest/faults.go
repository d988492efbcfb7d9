package slacktest

import (
	"net/http"
	"strconv"
)

// Fault is what a faulted Web API call answers instead of its result.
type Fault struct {
	status     int
	slackError string
	retryAfter int
	malformed  bool
}

// TooManyRequests answers 429 with a Retry-After header in seconds, as
// Slack's rate limiter does.
func TooManyRequests(retryAfter int) Fault {
	return Fault{status: http.StatusTooManyRequests, retryAfter: retryAfter}
}

// ServerError answers 500 with an HTML body, as Slack's edge does.
func ServerError() Fault { return Fault{status: http.StatusInternalServerError} }

// Malformed answers 200 with a body that is not JSON.
func Malformed() Fault { return Fault{status: http.StatusOK, malformed: true} }

// SlackError answers 200 {"ok":false,"error":code}, e.g.
// "channel_not_found" or "invalid_auth".
func SlackError(code string) Fault { return Fault{status: http.StatusOK, slackError: code} }

// InvalidAuth answers invalid_auth once (RevokeTokens does it for good).
func InvalidAuth() Fault { return SlackError("invalid_auth") }

// Fail makes the next n calls of method answer f. Faults queue up: a
// second Fail for the same method applies after the first is used up.
func (s *Server) Fail(method string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[method] = append(s.faults[method], f)
	}
}

func (s *Server) takeFaultLocked(method string) (Fault, bool) {
	q := s.faults[method]
	if len(q) == 0 {
		return Fault{}, false
	}
	s.faults[method] = q[1:]
	return q[0], true
}

func (f Fault) apply(w http.ResponseWriter) {
	switch {
	case f.malformed:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":tru`))
	case f.slackError != "":
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": f.slackError})
	default:
		if f.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(f.retryAfter))
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.status)
		_, _ = w.Write([]byte("<html><body>" + http.StatusText(f.status) + "</body></html>"))
	}
}
