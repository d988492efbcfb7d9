package main

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

func TestSkillsCommands(t *testing.T) {
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Reply("skills.status", map[string]any{"skills": []any{
		map[string]any{"name": "weather", "description": "Forecasts", "origin": "workspace", "path": "/w/skills/weather/SKILL.md",
			"available": true, "status": "available", "scripts": []string{"forecast.sh"}},
		map[string]any{"name": "gh", "description": "GitHub", "origin": "managed", "available": false, "status": "unavailable", "reason": "needs bin gh"},
	}})
	flags := []string{"--url", srv.URL(), "--token", testToken}
	out, _, err := runCLI(t, append([]string{"skills", "list"}, flags...)...)
	if err != nil || !strings.Contains(out, "weather") || !strings.Contains(out, "needs bin gh") {
		t.Fatalf("skills list: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, append([]string{"skills", "check"}, flags...)...)
	if err == nil || strings.Contains(out, "weather") || !strings.Contains(out, "gh") {
		t.Fatalf("skills check should fail and list only gh: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, append([]string{"skills", "info", "weather"}, flags...)...)
	if err != nil || !strings.Contains(out, "scripts: forecast.sh") || !strings.Contains(out, "origin: workspace") {
		t.Fatalf("skills info: %v\n%s", err, out)
	}
	if _, stderr, err := runCLI(t, append([]string{"skills", "info", "nope"}, flags...)...); err == nil || !strings.Contains(stderr, "no skill") {
		t.Fatalf("skills info nope: %v %s", err, stderr)
	}
}
