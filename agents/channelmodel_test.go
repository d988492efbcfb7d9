package agents

import (
	"context"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents/sessions"
)

// A chat's modelByChannel model answers its turns, but a model the
// session chose (/model, sessions.patch) goes first.
func TestChannelModelYieldsToTheSessionsModel(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"},{id:"chat"},{id:"picked"}]}}},
		agents:{defaults:{model:"fake/echo-1"}}}`, nil)
	const key = "agent:main:telegram:group:-100"
	f.run(t, StartRequest{SessionKey: key, Message: "hi", ChannelModel: "fake/chat"})
	if reqs := f.model.Requests(); len(reqs) != 1 || reqs[0].Model != "chat" {
		t.Fatalf("the chat's model should answer; requests %+v", reqs)
	}
	picked := "fake/picked"
	if _, err := f.store.Patch(context.Background(), key, sessions.Patch{Model: &picked}); err != nil {
		t.Fatal(err)
	}
	f.run(t, StartRequest{SessionKey: key, Message: "again", ChannelModel: "fake/chat"})
	if reqs := f.model.Requests(); len(reqs) != 2 || reqs[1].Model != "picked" {
		t.Fatalf("the session's own model should answer; requests %+v", reqs)
	}
}

// OnText hears the answer grow as the model streams it.
func TestOnTextHearsTheAnswerGrow(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}}, agents:{defaults:{model:"fake/echo-1"}}}`, nil)
	var mu sync.Mutex
	var heard []string
	res := f.run(t, StartRequest{Message: "hello there", OnText: func(s string) { mu.Lock(); heard = append(heard, s); mu.Unlock() }})
	mu.Lock()
	defer mu.Unlock()
	if len(heard) == 0 || heard[len(heard)-1] != res.Text {
		t.Fatalf("heard %q, answer %q", heard, res.Text)
	}
}
