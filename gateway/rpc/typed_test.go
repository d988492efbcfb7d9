package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

type echoParams struct {
	Name  string `json:"name"`
	Limit int    `json:"limit"`
}

func (p *echoParams) Validate() error {
	if p.Limit < 0 {
		return errors.New("limit must not be negative")
	}
	return nil
}

type echoResult struct {
	Hello string `json:"hello"`
	Limit int    `json:"limit"`
}

func TestTyped(t *testing.T) {
	h := Typed(func(ctx context.Context, req *Request, p echoParams) (echoResult, error) {
		if p.Name == "boom" {
			return echoResult{}, protocol.Errorf(protocol.CodeUnavailable, "boom")
		}
		return echoResult{Hello: p.Name, Limit: p.Limit}, nil
	})
	tests := []struct {
		name, params, want, wantErr string
	}{
		{"decoded", `{"name":"ada","limit":3}`, `{"hello":"ada","limit":3}`, ""},
		{"empty params are {}", ``, `{"hello":"","limit":0}`, ""},
		{"bad json names the method", `{"name":1}`, "", "invalid echo params"},
		{"validate refuses", `{"limit":-1}`, "", "invalid echo params: limit must not be negative"},
		{"handler error passes through", `{"name":"boom"}`, "", "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h(context.Background(), &Request{Method: "echo", Params: json.RawMessage(tt.params)})
			if tt.wantErr != "" {
				var pe *protocol.Error
				if !errors.As(err, &pe) || !strings.Contains(pe.Message, tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Fatalf("got %s, want %s", b, tt.want)
			}
		})
	}
}

func TestTypedEmptyIgnoresWhatIsSent(t *testing.T) {
	h := Typed(func(ctx context.Context, req *Request, _ Empty) (any, error) { return "ok", nil })
	for _, params := range []string{``, `{}`, `[1,2]`, `"text"`, `{"x":1}`} {
		got, err := h(context.Background(), &Request{Method: "none", Params: json.RawMessage(params)})
		if err != nil || got != "ok" {
			t.Errorf("params %q: got %v, %v", params, got, err)
		}
	}
}

func TestTableNamesTheRegisteringPackage(t *testing.T) {
	s := NewServer(Options{})
	s.HandleFunc("status", func(ctx context.Context, req *Request) (any, error) { return nil, nil })
	s.Handle("own", Route{Scope: protocol.ScopeRead, Owner: "gateway/admin", Handler: func(ctx context.Context, req *Request) (any, error) { return nil, nil }})
	got := s.Table()
	if len(got) != 2 || got[0].Method != "own" || got[0].Owner != "gateway/admin" {
		t.Fatalf("table = %+v", got)
	}
	// Registered from this test, through HandleFunc: the first caller
	// outside the rpc package is the test binary's main package.
	if got[1].Method != "status" || got[1].Owner == "gateway/rpc" || got[1].Owner == "" {
		t.Fatalf("status owner = %q", got[1].Owner)
	}
}

func TestFuncPackage(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/openclaw-go/openclaw/gateway/admin.(*Admin).Register":  "github.com/openclaw-go/openclaw/gateway/admin",
		"github.com/openclaw-go/openclaw/gateway.(*System).serve.func1":    "github.com/openclaw-go/openclaw/gateway",
		"github.com/openclaw-go/openclaw/gateway/rpc.(*Server).HandleFunc": "github.com/openclaw-go/openclaw/gateway/rpc",
		"main.main": "main",
		"nodot":     "",
	} {
		if got := funcPackage(in); got != want {
			t.Errorf("funcPackage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTypedStrict(t *testing.T) {
	h := TypedStrict(func(ctx context.Context, req *Request, p echoParams) (echoResult, error) {
		return echoResult{Hello: p.Name, Limit: p.Limit}, nil
	})
	tests := []struct {
		name, params, want, wantErr string
	}{
		{"decoded", `{"name":"ada","limit":3}`, `{"hello":"ada","limit":3}`, ""},
		{"empty params are {}", ``, `{"hello":"","limit":0}`, ""},
		{"blank params are {}", " \n", `{"hello":"","limit":0}`, ""},
		{"unknown key names it", `{"name":"ada","nmae":"x"}`, "", `invalid echo params: unknown field "nmae"`},
		{"mistyped field names it", `{"limit":"3"}`, "", "invalid echo params: limit: expected int, got string"},
		{"trailing data", `{"name":"ada"} {}`, "", "invalid echo params: trailing data after the JSON object"},
		{"not JSON", `{"name":`, "", "invalid echo params: unexpected EOF"},
		{"validate still runs", `{"limit":-1}`, "", "invalid echo params: limit must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h(context.Background(), &Request{Method: "echo", Params: json.RawMessage(tt.params)})
			if tt.wantErr != "" {
				var pe *protocol.Error
				if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidRequest || pe.Message != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Fatalf("got %s, want %s", b, tt.want)
			}
		})
	}
}
