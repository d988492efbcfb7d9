package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// fakePart records what the root asked of it.
type fakePart struct {
	name       string
	refuse     error
	log        *[]string
	registered bool
}

func (p *fakePart) Name() string { return p.name }
func (p *fakePart) Register(srv *rpc.Server, mux *http.ServeMux) {
	p.registered = true
}
func (p *fakePart) Prepare(snap *config.Snapshot) (func(), error) {
	*p.log = append(*p.log, "prepare "+p.name)
	if p.refuse != nil {
		return nil, p.refuse
	}
	return func() { *p.log = append(*p.log, "commit "+p.name) }, nil
}
func (p *fakePart) Close(ctx context.Context) error {
	*p.log = append(*p.log, "close "+p.name)
	if p.refuse != nil {
		return p.refuse
	}
	return nil
}

func TestPartsReloadAsOneTransaction(t *testing.T) {
	tests := []struct {
		name    string
		refuse  string // the part that refuses the config, if any
		want    string
		wantErr string
	}{
		{"all prepare, then all commit", "", "prepare a,prepare b,prepare c,commit a,commit b,commit c", ""},
		{"one refusal commits nothing", "b", "prepare a,prepare b", "b: bad key"},
		{"the first refusal stops the rest", "a", "prepare a", "a: bad key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			s := &System{}
			for _, n := range []string{"a", "b", "c"} {
				p := &fakePart{name: n, log: &log}
				if n == tt.refuse {
					p.refuse = errors.New("bad key")
				}
				s.addPart(p)
			}
			commit, err := s.prepareParts(&config.Snapshot{})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || commit != nil {
					t.Fatalf("err = %v, commit = %v; want %q and no commit", err, commit != nil, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				commit()
			}
			if got := strings.Join(log, ","); got != tt.want {
				t.Fatalf("calls = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPartsCloseInReverseAndReportEveryFailure(t *testing.T) {
	var log []string
	s := &System{}
	for _, n := range []string{"a", "b", "c"} {
		p := &fakePart{name: n, log: &log}
		if n != "b" {
			p.refuse = errors.New("stuck")
		}
		s.addPart(p)
	}
	err := s.closeParts(context.Background())
	if got := strings.Join(log, ","); got != "close c,close b,close a" {
		t.Fatalf("close order = %s", got)
	}
	if err == nil || !strings.Contains(err.Error(), "c: stuck") || !strings.Contains(err.Error(), "a: stuck") {
		t.Fatalf("err = %v, want both failures named", err)
	}
	s.registerParts(http.NewServeMux())
	for _, p := range s.parts {
		if !p.(*fakePart).registered {
			t.Fatalf("%s not registered", p.Name())
		}
	}
}
