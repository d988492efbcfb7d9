package fakemodel

import "net/http"

// Hold makes every request wait, before it is answered, until Release.
// Tests use it to have runs in flight at a moment they choose (to stop a
// gateway mid-turn, say).
func (s *Server) Hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold == nil {
		s.hold = make(chan struct{})
	}
}

// Release lets held requests, and all later ones, through.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
}

// Held is how many requests are waiting in Hold now.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// holding wraps h with the Hold gate.
func (s *Server) holding(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		gate := s.hold
		if gate != nil {
			s.held++
		}
		s.mu.Unlock()
		if gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done():
			}
			s.mu.Lock()
			s.held--
			s.mu.Unlock()
			if r.Context().Err() != nil {
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
