package config

import (
	"slices"
	"testing"
)

func TestDiff(t *testing.T) {
	no := false
	for _, tc := range []struct {
		name         string
		change       func(c *Config)
		restart, all []string
	}{
		{name: "nothing", change: func(c *Config) {}},
		{name: "port", change: func(c *Config) { c.Gateway.Port = 1 }, restart: []string{"gateway.port"}, all: []string{"gateway.port"}},
		{
			name: "listener keys",
			change: func(c *Config) {
				c.Gateway.Bind = "custom"
				c.Gateway.CustomBindHost = "10.0.0.1"
				c.Gateway.ControlUI.BasePath = "/x"
			},
			restart: []string{"gateway.bind", "gateway.customBindHost", "gateway.controlUi.basePath"},
			all:     []string{"gateway.bind", "gateway.customBindHost", "gateway.controlUi.basePath"},
		},
		{
			name: "hot keys",
			change: func(c *Config) {
				c.Gateway.Auth.Mode = "password"
				c.Gateway.Auth.Token = SecretInput{Value: "t"}
				c.Gateway.Auth.Password = SecretInput{Value: "p"}
				c.Gateway.Auth.RateLimit.MaxAttempts = 3
				c.Gateway.ControlUI.AllowedOrigins = []string{"https://x"}
				c.Logging.Level = "debug"
			},
			all: []string{"gateway.auth.mode", "gateway.auth.token", "gateway.auth.password", "gateway.auth.rateLimit.maxAttempts", "gateway.controlUi.allowedOrigins", "logging.level"},
		},
		{name: "nil bool is the default", change: func(c *Config) { c.Gateway.ControlUI.Enabled = nil }},
		{name: "false bool differs", change: func(c *Config) { c.Gateway.ControlUI.Enabled = &no }, restart: []string{"gateway.controlUi.enabled"}, all: []string{"gateway.controlUi.enabled"}},
		{name: "secret ref", change: func(c *Config) { c.Gateway.Auth.Token = SecretInput{Ref: &SecretRef{"env", "default", "X"}} }, all: []string{"gateway.auth.token"}},
		{name: "empty and nil lists match", change: func(c *Config) { c.Gateway.TrustedProxies = []string{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, cur := Defaults(), Defaults()
			tc.change(cur)
			if got := Diff(old, cur); !slices.Equal(got, tc.restart) {
				t.Errorf("Diff = %q, want %q", got, tc.restart)
			}
			if got := Changes(old, cur); !slices.Equal(got, tc.all) {
				t.Errorf("Changes = %q, want %q", got, tc.all)
			}
		})
	}
	if got := Diff(nil, Defaults()); len(got) != 0 {
		t.Errorf("nil counts as defaults, got %q", got)
	}
}
