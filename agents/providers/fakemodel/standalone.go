package fakemodel

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
)

// Start serves the fake on addr ("127.0.0.1:0" picks a free port) for a
// program rather than a test: benchmarks and manual runs that point a
// gateway at it. It answers exactly as a server from New does (scripted
// replies first, then the echo), but keeps no record of requests, so it
// can answer for as long as it runs: Requests returns none. Call Close
// to stop it.
func Start(addr string) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen on %s: %w", addr, err)
	}
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveOpenAI)
	mux.HandleFunc("POST /v1/messages", s.serveAnthropic)
	forgetful := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		s.forgetRequests()
	})
	s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: forgetful}}
	s.srv.Start()
	return s, nil
}

// Close stops the server, waiting for requests in flight. A server from
// New is closed at the end of its test; closing it earlier is harmless.
func (s *Server) Close() { s.srv.Close() }

// forgetRequests drops the recorded requests.
func (s *Server) forgetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.requests)
	s.requests = s.requests[:0]
}
