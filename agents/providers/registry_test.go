package providers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func TestParseModelRef(t *testing.T) {
	tests := []struct {
		ref, provider, model string
		wantErr              bool
	}{
		{ref: "anthropic/claude-opus-4-6", provider: "anthropic", model: "claude-opus-4-6"},
		{ref: "openrouter/meta-llama/llama-3.1-8b", provider: "openrouter", model: "meta-llama/llama-3.1-8b"},
		{ref: "ollama/qwen3:8b", provider: "ollama", model: "qwen3:8b"},
		{ref: " ollama/llama3 ", provider: "ollama", model: "llama3"},
		{ref: "claude-opus-4-6", wantErr: true},
		{ref: "", wantErr: true},
		{ref: "/model", wantErr: true},
		{ref: "provider/", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			p, m, err := providers.ParseModelRef(tt.ref)
			if tt.wantErr {
				if err == nil {
					t.Errorf("ParseModelRef(%q) = %q, %q; want an error", tt.ref, p, m)
				}
				return
			}
			if err != nil || p != tt.provider || m != tt.model {
				t.Errorf("ParseModelRef(%q) = %q, %q, %v; want %q, %q", tt.ref, p, m, err, tt.provider, tt.model)
			}
		})
	}
}

func TestNewFromConfig(t *testing.T) {
	srv := fakemodel.New(t)
	tests := []struct {
		name     string
		cfg      providers.ProviderConfig
		wantPath string // the path the fake saw; "" when New must fail
		wantErr  []string
	}{
		{name: "default api", cfg: providers.ProviderConfig{Name: "ollama", BaseURL: srv.URL() + "/v1"}, wantPath: "/v1/chat/completions"},
		{name: "completions", cfg: providers.ProviderConfig{Name: "vllm", API: "openai-completions", BaseURL: srv.URL() + "/v1"}, wantPath: "/v1/chat/completions"},
		{name: "responses served as completions", cfg: providers.ProviderConfig{Name: "openai", API: "openai-responses", BaseURL: srv.URL() + "/v1"}, wantPath: "/v1/chat/completions"},
		{name: "anthropic", cfg: providers.ProviderConfig{Name: "anthropic", API: "anthropic-messages", BaseURL: srv.URL()}, wantPath: "/v1/messages"},
		{name: "unknown api", cfg: providers.ProviderConfig{Name: "vx", API: "google-vertex"}, wantErr: []string{`"vx"`, `"google-vertex"`}},
		{name: "no name", cfg: providers.ProviderConfig{API: "openai-completions"}, wantErr: []string{"name"}},
		{name: "slash in name", cfg: providers.ProviderConfig{Name: "a/b"}, wantErr: []string{`"a/b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := providers.New(tt.cfg, nil, nil)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("New = %v, want an error", p)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %s", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tt.cfg.Name {
				t.Errorf("Name = %q, want %q", p.Name(), tt.cfg.Name)
			}
			before := len(srv.Requests())
			if _, err := p.Complete(context.Background(), userRequest("m", "hi"), providers.Hooks{}); err != nil {
				t.Fatal(err)
			}
			if got := srv.Requests()[before].Path; got != tt.wantPath {
				t.Errorf("request went to %s, want %s", got, tt.wantPath)
			}
		})
	}
}

// TestAuthHeader: authHeader moves the key into "Authorization: Bearer",
// in place of the API's own header and of a configured Authorization.
func TestAuthHeader(t *testing.T) {
	srv := fakemodel.New(t)
	for _, authHeader := range []bool{false, true} {
		p, err := providers.New(providers.ProviderConfig{Name: "proxy", API: providers.APIAnthropicMessages, BaseURL: srv.URL(),
			APIKey: "sk-ant-proxy-key", AuthHeader: authHeader, Headers: map[string]string{"authorization": "Bearer stale", "X-Region": "us"}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Complete(context.Background(), userRequest("claude", "hi"), providers.Hooks{}); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		h := reqs[len(reqs)-1].Header
		if authHeader && (h.Get("Authorization") != "Bearer sk-ant-proxy-key" || h.Get("X-Api-Key") != "" || h.Get("X-Region") != "us") {
			t.Errorf("authHeader: headers %v", h)
		}
		if !authHeader && h.Get("X-Api-Key") != "sk-ant-proxy-key" {
			t.Errorf("default: headers %v", h)
		}
	}
}
