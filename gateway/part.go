package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// part is one wing of the gateway. serve builds the parts in order, has
// each register its methods and HTTP routes before the port opens,
// reloads them together and closes them in reverse.
type part interface {
	// Name names the part in logs and errors.
	Name() string
	// Register adds the part's RPC methods and HTTP routes.
	Register(srv *rpc.Server, mux *http.ServeMux)
	// Prepare checks and builds what a new config needs without changing
	// anything that runs; commit then switches to it. A reload commits
	// only when every part prepared.
	Prepare(snap *config.Snapshot) (commit func(), err error)
	// Close stops the part; parts close in reverse order of building.
	Close(ctx context.Context) error
}

// addPart records p as built; it is registered, reloaded and closed with
// the others.
func (s *System) addPart(p part) { s.parts = append(s.parts, p) }

// registerParts has every part add its methods and routes.
func (s *System) registerParts(mux *http.ServeMux) {
	for _, p := range s.parts {
		p.Register(s.srv, mux)
	}
}

// prepareParts asks every part to prepare snap. On any failure nothing is
// committed, and the error names the part.
func (s *System) prepareParts(snap *config.Snapshot) (commit func(), err error) {
	var commits []func()
	for _, p := range s.parts {
		c, err := p.Prepare(snap)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
		if c != nil {
			commits = append(commits, c)
		}
	}
	return func() {
		for _, c := range commits {
			c()
		}
	}, nil
}

// closeParts closes the parts in reverse order of building.
func (s *System) closeParts(ctx context.Context) error {
	var errs []error
	for i := len(s.parts) - 1; i >= 0; i-- {
		if err := s.parts[i].Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.parts[i].Name(), err))
		}
	}
	return errors.Join(errs...)
}

// methodsPart is a service that only serves methods (devices, nodes): it
// reads the live config itself and has nothing to stop.
type methodsPart struct {
	name     string
	register func(*rpc.Server)
}

func (p methodsPart) Name() string { return p.name }

func (p methodsPart) Register(srv *rpc.Server, _ *http.ServeMux) { p.register(srv) }

func (methodsPart) Prepare(*config.Snapshot) (func(), error) { return nil, nil }

func (methodsPart) Close(context.Context) error { return nil }
