package gateway

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

func TestPortResolution(t *testing.T) {
	tests := []struct {
		name   string
		flag   int
		env    string
		config string
		dev    bool
		want   int
	}{
		{"default", 0, "", `{}`, false, DefaultPort},
		{"dev default", 0, "", `{}`, true, DevPort},
		{"config", 0, "", `{gateway:{port:18800}}`, false, 18800},
		{"config beats dev default", 0, "", `{gateway:{port:18800}}`, true, 18800},
		{"env beats config", 0, "18811", `{gateway:{port:18800}}`, false, 18811},
		{"flag beats env", 18822, "18811", `{gateway:{port:18800}}`, false, 18822},
		{"bad env ignored", 0, "http", `{gateway:{port:18800}}`, false, 18800},
		{"negative flag picks a free port", -1, "", `{}`, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := config.Parse("openclaw.json", []byte(tt.config), config.LoadOptions{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			s := &System{opts: Options{Port: tt.flag, Dev: tt.dev, Getenv: func(k string) string {
				if k == "OPENCLAW_GATEWAY_PORT" {
					return tt.env
				}
				return ""
			}}}
			if got := s.port(snap); got != tt.want {
				t.Fatalf("port = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestToolConfigErrorsNameTheKey(t *testing.T) {
	tests := []struct{ src, want string }{
		{`{tools:{hooks:[{on:"before_tool", action:"redact"}]}}`, "tools.hooks: hooks[0]: redact needs a pattern"},
		{`{tools:{guard:{rules:[{tool:"exec", argPattern:"(", action:"deny"}]}}}`, "tools.guard"},
		{`{tools:{profile:"coding", allow:["read"], alsoAllow:["write"]}}`, "alsoAllow"},
	}
	for _, tt := range tests {
		snap, err := config.Parse("openclaw.json", []byte(tt.src), config.LoadOptions{Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		s := &System{opts: Options{Getenv: func(string) string { return "" }}}
		if _, err := s.liveFrom(snap); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.src, err, tt.want)
		}
	}
}
