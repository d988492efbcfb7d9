package sessions

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestList(t *testing.T) {
	ctx := context.Background()
	s, c := newTestStore(t)
	// Created a minute apart, so updated_at orders them: the last is newest.
	keys := []struct {
		key  string
		init Init
	}{
		{"global", Init{}},
		{"unknown", Init{}},
		{"agent:main:main", Init{Label: "Home Base"}},
		{"agent:main:telegram:group:-100", Init{DisplayName: "Family 50%"}},
		{"agent:work:main", Init{}},
		{"agent:main:subagent:s1", Init{SpawnedBy: "agent:main:main"}},
		{"cron:nightly", Init{}},
		{"agent:main:discord:channel:9:thread:1", Init{Label: "bug_triage"}},
	}
	for _, k := range keys {
		c.Add(time.Minute)
		mustEnsure(t, s, k.key, k.init)
	}
	yes, no := true, false
	if _, err := s.Patch(ctx, "agent:work:main", Patch{Archived: &yes}); err != nil {
		t.Fatal(err)
	}
	// Activity moves a session to the front.
	c.Add(time.Minute)
	home, _ := s.Get(ctx, "agent:main:main")
	if err := s.Append(ctx, home.SessionID, Message{Role: RoleUser, Text: "hi"}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name  string
		f     ListFilter
		want  []string
		total int
	}{
		{"default hides global and unknown, newest first", ListFilter{}, []string{
			"agent:main:main", "agent:main:discord:channel:9:thread:1", "cron:nightly", "agent:main:subagent:s1",
			"agent:work:main", "agent:main:telegram:group:-100"}, 6},
		{"include specials", ListFilter{IncludeGlobal: true, IncludeUnknown: true, Limit: 2, Offset: 6},
			[]string{"unknown", "global"}, 8},
		{"page", ListFilter{Limit: 2, Offset: 1}, []string{"agent:main:discord:channel:9:thread:1", "cron:nightly"}, 6},
		{"offset without limit", ListFilter{Offset: 5}, []string{"agent:main:telegram:group:-100"}, 6},
		{"agent", ListFilter{AgentID: "Work"}, []string{"agent:work:main"}, 1},
		{"active minutes", ListFilter{ActiveMinutes: 2}, []string{"agent:main:main", "agent:main:discord:channel:9:thread:1", "cron:nightly"}, 3},
		{"search key", ListFilter{Search: "TELEGRAM"}, []string{"agent:main:telegram:group:-100"}, 1},
		{"search label", ListFilter{Search: "home"}, []string{"agent:main:main"}, 1},
		{"search escapes %", ListFilter{Search: "50%"}, []string{"agent:main:telegram:group:-100"}, 1},
		{"search escapes _", ListFilter{Search: "l_9"}, nil, 0},
		{"label", ListFilter{Label: "bug_triage"}, []string{"agent:main:discord:channel:9:thread:1"}, 1},
		{"archived", ListFilter{Archived: &yes}, []string{"agent:work:main"}, 1},
		{"not archived", ListFilter{Archived: &no, Limit: 1}, []string{"agent:main:main"}, 5},
		{"spawned by", ListFilter{SpawnedBy: "Agent:Main:Main"}, []string{"agent:main:subagent:s1"}, 1},
		{"kinds", ListFilter{Kinds: []Kind{KindCron, KindThread}}, []string{"agent:main:discord:channel:9:thread:1", "cron:nightly"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, total, err := s.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, g := range got {
				keys = append(keys, g.Key)
			}
			if !slices.Equal(keys, tc.want) || total != tc.total {
				t.Errorf("List = %q (total %d), want %q (total %d)", keys, total, tc.want, tc.total)
			}
		})
	}
}
