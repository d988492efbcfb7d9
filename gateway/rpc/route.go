package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Handler serves one method. It returns the response payload or an error;
// a *protocol.Error is sent as is, any other error as UNAVAILABLE. Handlers
// may block and are called concurrently.
type Handler func(ctx context.Context, req *Request) (any, error)

// Route describes a registered method.
type Route struct {
	// Scope is what an operator must hold. ScopeNode marks node-only
	// methods; ScopeNone lets any authenticated connection call it.
	Scope protocol.Scope
	// Hidden methods are callable but not listed in hello-ok.
	Hidden bool
	// Inline handlers never block: they run on the connection's reader
	// goroutine, which saves a goroutine (and its stack growth) per call.
	Inline  bool
	Handler Handler
	// Owner is the package that serves the method; Handle fills it in
	// from the caller when it is empty.
	Owner string
}

// Request is one call as a handler sees it.
type Request struct {
	ID     string
	Method string
	Params json.RawMessage
	Conn   *Conn

	accepted bool
}

// Decode unmarshals params into v; empty params decode as {}. A failure
// is an INVALID_REQUEST error naming the method.
func (r *Request) Decode(v any) error {
	p := r.Params
	if len(p) == 0 {
		p = []byte("{}")
	}
	if err := json.Unmarshal(p, v); err != nil {
		return protocol.InvalidParams(r.Method, err)
	}
	return nil
}

// Accept sends the interim {status:"accepted"} answer of a two-stage call;
// the handler's return value is then sent as the final answer with the
// same id. payload should carry status "accepted".
func (r *Request) Accept(payload any) {
	if r.accepted {
		return
	}
	r.accepted = true
	r.Conn.sendResponse(protocol.OKResponse(r.ID, payload))
}

// Handle registers a method. Registering the same method twice panics: it
// is a wiring bug.
func (s *Server) Handle(method string, rt Route) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.routes[method]; dup {
		panic(fmt.Sprintf("rpc: method %q registered twice", method))
	}
	if rt.Handler == nil {
		panic(fmt.Sprintf("rpc: method %q has no handler", method))
	}
	if rt.Owner == "" {
		rt.Owner = callerPackage()
	}
	s.routes[method] = rt
	s.methodList = nil
}

// HandleFunc registers a method with the scope the OpenClaw catalog gives
// it (admin for methods the catalog doesn't know).
func (s *Server) HandleFunc(method string, h Handler) {
	scope, _ := protocol.MethodScope(method)
	s.Handle(method, Route{Scope: scope, Handler: h})
}

func (s *Server) route(method string) (Route, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rt, ok := s.routes[method]
	return rt, ok
}

// Methods lists the advertised methods, sorted.
func (s *Server) Methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.methodList == nil {
		list := []string{}
		for m, rt := range s.routes {
			if !rt.Hidden {
				list = append(list, m)
			}
		}
		sort.Strings(list)
		s.methodList = list
	}
	return s.methodList
}
