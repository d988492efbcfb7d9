package config

import (
	"testing"
	"time"
)

func TestRetentionKeys(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    func(*Config) Retention
		keeps   bool
		d       time.Duration
		wantErr bool
	}{
		{"cron default", `{}`, func(c *Config) Retention { return c.Cron.SessionRetention }, true, 24 * time.Hour, false},
		{"cron duration", `{cron: {sessionRetention: "2h"}}`, func(c *Config) Retention { return c.Cron.SessionRetention }, true, 2 * time.Hour, false},
		{"cron false", `{cron: {sessionRetention: false}}`, func(c *Config) Retention { return c.Cron.SessionRetention }, false, 0, false},
		{"cron zero", `{cron: {sessionRetention: "0h"}}`, func(c *Config) Retention { return c.Cron.SessionRetention }, false, 0, false},
		{"cron true", `{cron: {sessionRetention: true}}`, nil, false, 0, true},
		{"cron number", `{cron: {sessionRetention: 5}}`, nil, false, 0, true},
		{"cron bad", `{cron: {sessionRetention: "soon"}}`, nil, false, 0, true},
		{"channel default", `{}`, func(c *Config) Retention { return c.Gateway.Retention.ChannelMessages }, true, 7 * 24 * time.Hour, false},
		{"channel days", `{gateway: {retention: {channelMessages: "3d"}}}`, func(c *Config) Retention { return c.Gateway.Retention.ChannelMessages }, true, 72 * time.Hour, false},
		{"audit default", `{}`, func(c *Config) Retention { return c.Gateway.Retention.ToolAudit }, true, 30 * 24 * time.Hour, false},
		{"audit off", `{gateway: {retention: {toolAudit: false}}}`, func(c *Config) Retention { return c.Gateway.Retention.ToolAudit }, false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, errs, _ := parseTest(t, tt.src, nil)
			if tt.wantErr {
				if len(errs) == 0 {
					t.Fatalf("want an error for %s", tt.src)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			got := tt.want(snap.Config)
			if got.Keeps() != tt.keeps || (tt.keeps && got.D != tt.d) {
				t.Fatalf("got %+v, want keeps=%v d=%v", got, tt.keeps, tt.d)
			}
		})
	}
}

func TestRetentionRowCaps(t *testing.T) {
	snap, errs, _ := parseTest(t, `{gateway: {retention: {channelMaxRows: 50, toolAuditMaxRows: 20}}}`, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r := snap.Config.Gateway.Retention
	if r.ChannelMaxRows != 50 || r.ToolAuditMaxRows != 20 {
		t.Fatalf("caps %+v", r)
	}
	if _, errs, _ := parseTest(t, `{gateway: {retention: {channelMaxRows: 0}}}`, nil); len(errs) == 0 {
		t.Fatal("a cap of 0 must be refused")
	}
}
