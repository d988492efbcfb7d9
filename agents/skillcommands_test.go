package agents

import (
	"context"
	"strings"
	"testing"
)

// TestSkillCommands: /skill <name> and /<skill> reach the model as a
// request to load and follow the skill, with the input after it; a
// /skill naming no skill is answered by the gateway; other slash text
// goes to the model as typed.
func TestSkillCommands(t *testing.T) {
	tests := []struct {
		name, message string
		commands      bool   // a chat sender (StartRequest.Commands set)
		refused       bool   // ... whom commands.allowFrom refuses
		wantModel     string // in the model's last user message; "" when the gateway answers
		wantReply     string // in the gateway's answer
	}{
		{name: "direct command", message: "/weather Sydney tomorrow", wantModel: `Use the "weather" skill for this request` + "|Sydney tomorrow"},
		{name: "from a Telegram group menu", message: "/weather@ClawBot Oslo", commands: true, wantModel: `"weather" skill|Oslo`},
		{name: "sanitised command of a hyphenated skill", message: "/git_helper rebase", wantModel: `"git-helper" skill|rebase`},
		{name: "by /skill and the skill's own name", message: "/skill git-helper\nwith two lines", commands: true, wantModel: `"git-helper" skill|with two lines`},
		{name: "no input", message: "/weather", wantModel: `"weather" skill|no further input`},
		{name: "/skill with no such skill", message: "/skill nope", commands: true, wantReply: `No skill named "nope" here.|/weather: Forecasts`},
		{name: "/skill alone lists them", message: "/skill", commands: true, wantReply: "Usage: /skill <name> [input].|/git_helper: Git"},
		{name: "not a skill: to the model as typed", message: "/weathervane spin", wantModel: "echo: /weathervane spin"},
		{name: "a sender commands.allowFrom refuses: as typed", message: "/weather Oslo", commands: true, refused: true, wantModel: "echo: /weather Oslo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "", nil)
			f.svc.opts.SkillCommands = func(_ context.Context, agentID string) []SkillCommand {
				return []SkillCommand{{Name: "weather", Skill: "weather", Description: "Forecasts"}, {Name: "git_helper", Skill: "git-helper", Description: "Git"}}
			}
			req := StartRequest{Message: tt.message}
			if tt.commands {
				req.Commands = &CommandSender{ID: "telegram:1", Refused: tt.refused}
			}
			res := f.run(t, req)
			if res.Status != "ok" {
				t.Fatalf("run: %+v", res)
			}
			reqs := f.model.Requests()
			if tt.wantReply != "" {
				if len(reqs) != 0 || !res.Command {
					t.Fatalf("%d model requests, command %v; want the gateway to answer", len(reqs), res.Command)
				}
				for _, part := range strings.Split(tt.wantReply, "|") {
					if !strings.Contains(res.Text, part) {
						t.Errorf("reply %q lacks %q", res.Text, part)
					}
				}
				return
			}
			if len(reqs) != 1 {
				t.Fatalf("%d model requests, want 1", len(reqs))
			}
			msgs := reqs[0].Messages
			last := msgs[len(msgs)-1].Text
			if strings.HasPrefix(tt.wantModel, "echo: ") {
				last = res.Text
			}
			for _, part := range strings.Split(tt.wantModel, "|") {
				if !strings.Contains(last, part) {
					t.Errorf("the model got %q, lacking %q", last, part)
				}
			}
		})
	}
}
