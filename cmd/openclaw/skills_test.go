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

// TestSkillsListEligible checks --eligible keeps only the skills ready to
// use, in text and in JSON (the answer's other fields kept).
func TestSkillsListEligible(t *testing.T) {
	answer := map[string]any{"workspaceDir": "/w", "skills": []any{
		map[string]any{"name": "weather", "available": true, "status": "available"},
		map[string]any{"name": "gh", "available": false, "status": "unavailable", "reason": "needs bin gh"},
		map[string]any{"name": "oc-style", "eligible": true, "blockedByAgentFilter": false},
		map[string]any{"name": "filtered", "eligible": true, "blockedByAgentFilter": true},
		map[string]any{"name": "oc-missing", "eligible": false, "available": true},
	}}
	tests := []struct {
		name    string
		args    []string
		answer  any
		want    []string
		notWant []string
	}{
		{name: "text", args: []string{"--eligible"}, answer: answer, want: []string{"weather", "oc-style"}, notWant: []string{"gh", "filtered", "oc-missing"}},
		{name: "json", args: []string{"--eligible", "--json"}, answer: answer,
			want: []string{`"name": "weather"`, `"name": "oc-style"`, `"workspaceDir": "/w"`}, notWant: []string{`"gh"`, "filtered", "oc-missing"}},
		{name: "without the flag all are listed", args: []string{"-v"}, answer: answer, want: []string{"weather", "gh", "filtered", "oc-missing"}},
		{name: "none eligible", args: []string{"--eligible"}, answer: map[string]any{"skills": []any{map[string]any{"name": "gh", "available": false}}},
			want: []string{"No eligible skills found. Run `openclaw skills list` to see all skills."}},
		{name: "none eligible json", args: []string{"--eligible", "--json"}, answer: map[string]any{"skills": []any{map[string]any{"name": "gh", "available": false}}},
			want: []string{`"skills": []`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("skills.status", tc.answer)
			out, stderr, err := runCLI(t, append(append([]string{"skills", "list"}, tc.args...), "--url", srv.URL(), "--token", testToken)...)
			if err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}
