package agents

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/sessions"
)

// TestMaxConcurrentCapsRuns performs the flood: five chats (a stranger's
// many sessions, say) each start a turn at once under maxConcurrent 2.
// Only two reach the model; the others wait for a slot, not for their
// session, and all five are answered once the model lets go.
func TestMaxConcurrentCapsRuns(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}},
		agents:{defaults:{model:"fake/echo-1", maxConcurrent:2}}}`, nil)
	f.model.Hold()
	var runs []*Run
	for i := range 5 {
		run, _, err := f.svc.Start(context.Background(), StartRequest{SessionKey: fmt.Sprintf("agent:main:flood-%d", i), Message: fmt.Sprintf("m%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	f.waitHeld(t, 2)
	waitFor(t, "three runs waiting for a slot", func() bool { _, w := f.svc.slots.counts(); return w == 3 })
	if busy, _ := f.svc.slots.counts(); busy != 2 || f.model.Held() != 2 {
		t.Fatalf("busy %d, model holds %d; want 2 and 2", busy, f.model.Held())
	}
	f.model.Release()
	for _, r := range runs {
		<-r.Done()
		if res := r.Result(); res.Status != "ok" {
			t.Fatalf("run %s: %+v", r.ID, res)
		}
	}
	// A run gives its slot back just after it reports its end.
	waitFor(t, "every slot free", func() bool { busy, waiting := f.svc.slots.counts(); return busy == 0 && waiting == 0 })
}

// TestMaxConcurrentAbortWhileWaiting: a run aborted while it waits for a
// slot ends as aborted and never reaches the model.
func TestMaxConcurrentAbortWhileWaiting(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}},
		agents:{defaults:{model:"fake/echo-1", maxConcurrent:1}}}`, nil)
	f.model.Hold()
	first, _, _ := f.svc.Start(context.Background(), StartRequest{SessionKey: "agent:main:a", Message: "one"})
	f.waitHeld(t, 1)
	second, _, _ := f.svc.Start(context.Background(), StartRequest{SessionKey: "agent:main:b", Message: "two"})
	waitFor(t, "the second run waiting", func() bool { _, w := f.svc.slots.counts(); return w == 1 })
	if !f.svc.Abort("agent:main:b", second.ID) {
		t.Fatal("nothing aborted")
	}
	<-second.Done()
	if res := second.Result(); res.Status != "aborted" {
		t.Fatalf("second = %+v", res)
	}
	f.model.Release()
	<-first.Done()
	if n := len(f.model.Requests()); n != 1 {
		t.Fatalf("model calls = %d, want 1 (the aborted run never called it)", n)
	}
}

func TestRunSlotsLimitChanges(t *testing.T) {
	var r runSlots
	ctx := context.Background()
	r.acquire(ctx, 1)
	got := make(chan int, 2)
	for i := range 2 {
		go func() { r.acquire(ctx, 1); got <- i }()
	}
	waitFor(t, "two waiters", func() bool { _, w := r.counts(); return w == 2 })
	// A reload raised the limit to 3: one release lets both waiters in.
	r.release(3)
	<-got
	<-got
	if busy, waiting := r.counts(); busy != 2 || waiting != 0 {
		t.Fatalf("busy %d waiting %d, want 2 0", busy, waiting)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBootstrapCharLimits(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"AGENTS.md": strings.Repeat("a", 50), "SOUL.md": strings.Repeat("s", 50), "USER.md": strings.Repeat("u", 50)})
	cases := []struct {
		name           string
		perFile, total int
		want, wantNot  []string
	}{
		{"no limits", 0, 0, []string{strings.Repeat("a", 50), strings.Repeat("s", 50), strings.Repeat("u", 50)}, []string{"truncated", "left out"}},
		{"per file", 20, 0, []string{strings.Repeat("a", 20) + "\n[AGENTS.md truncated at 20 characters]", "[USER.md truncated at 20 characters]"}, []string{strings.Repeat("a", 21)}},
		{"total", 0, 70, []string{strings.Repeat("a", 50) + "\n", strings.Repeat("s", 20) + "\n[SOUL.md truncated at 20 characters]", "[USER.md left out: the workspace files reached 70 characters]"}, []string{"uuu"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := buildSystemPrompt(resolvedAgent{ID: "main", Workspace: ws, BootstrapMaxChars: c.perFile, BootstrapTotalMaxChars: c.total}, nil, "", promptOptions{})
			for _, w := range c.want {
				if !strings.Contains(p, w) {
					t.Errorf("prompt lacks %q:\n%s", w, p)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(p, w) {
					t.Errorf("prompt has %q:\n%s", w, p)
				}
			}
		})
	}
}

// TestBootstrapLimitsFromConfig: the defaults apply to every agent, and an
// entry's own values win for that agent.
func TestBootstrapLimitsFromConfig(t *testing.T) {
	cfg := configFor(t, `{agents:{defaults:{bootstrapMaxChars:100, bootstrapTotalMaxChars:300, contextInjection:"continuation-skip"},
		entries:{main:{}, strict:{bootstrapMaxChars:5000, bootstrapTotalMaxChars:9000, contextInjection:"always"}}}}`)
	main, _ := resolveAgent(cfg, t.TempDir(), "main")
	strict, _ := resolveAgent(cfg, t.TempDir(), "strict")
	if main.BootstrapMaxChars != 100 || main.BootstrapTotalMaxChars != 300 || main.ContextInjection != "continuation-skip" {
		t.Errorf("main = %d %d %q", main.BootstrapMaxChars, main.BootstrapTotalMaxChars, main.ContextInjection)
	}
	if strict.BootstrapMaxChars != 5000 || strict.BootstrapTotalMaxChars != 9000 || strict.ContextInjection != "always" {
		t.Errorf("strict = %d %d %q", strict.BootstrapMaxChars, strict.BootstrapTotalMaxChars, strict.ContextInjection)
	}
	def, _ := resolveAgent(configFor(t, `{}`), t.TempDir(), "main")
	if def.BootstrapMaxChars != 20_000 || def.BootstrapTotalMaxChars != 60_000 || def.ContextInjection != "always" {
		t.Errorf("defaults = %d %d %q", def.BootstrapMaxChars, def.BootstrapTotalMaxChars, def.ContextInjection)
	}
}

func TestSkipWorkspaceFiles(t *testing.T) {
	answered := []sessions.Message{{Role: "user", Text: "hi", RunID: "r1"}, {Role: "assistant", Text: "hello", RunID: "r1"}, {Role: "user", Text: "again", RunID: "r2"}}
	first := []sessions.Message{{Role: "user", Text: "hi", RunID: "r2"}}
	midTurn := []sessions.Message{{Role: "user", Text: "hi", RunID: "r2"}, {Role: "assistant", ToolCalls: []sessions.ToolCall{{ID: "c", Name: "x"}}, RunID: "r2"}}
	cases := []struct {
		name    string
		mode    string
		history []sessions.Message
		rebuild bool
		skip    bool
	}{
		{"always", "always", answered, false, false},
		{"never, first turn", "never", first, false, true},
		{"never, heartbeat", "never", answered, true, true},
		{"continuation-skip, first turn", "continuation-skip", first, false, false},
		{"continuation-skip, only tool calls so far", "continuation-skip", midTurn, false, false},
		{"continuation-skip, after an answer", "continuation-skip", answered, false, true},
		{"continuation-skip, heartbeat or compacted", "continuation-skip", answered, true, false},
	}
	for _, c := range cases {
		if got := skipWorkspaceFiles(c.mode, c.history, "r2", c.rebuild); got != c.skip {
			t.Errorf("%s: skip = %v, want %v", c.name, got, c.skip)
		}
	}
}

// TestContextInjectionTurns runs two turns under continuation-skip: the
// first prompt carries AGENTS.md, the second (after an answer) does not.
func TestContextInjectionTurns(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}},
		agents:{defaults:{model:"fake/echo-1", contextInjection:"continuation-skip", skipBootstrap:true}}}`, nil)
	ws, _ := f.svc.Workspace("main")
	os.MkdirAll(ws, 0o700)
	writeFiles(t, ws, map[string]string{"AGENTS.md": "the house rules"})
	f.run(t, StartRequest{Message: "one"})
	f.run(t, StartRequest{Message: "two"})
	reqs := f.model.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].System, "the house rules") || strings.Contains(reqs[1].System, "the house rules") {
		t.Fatalf("system prompts:\n1: %s\n2: %s", reqs[0].System, reqs[len(reqs)-1].System)
	}
}

func TestPromptTimezone(t *testing.T) {
	for _, zone := range []string{"America/Chicago", "Asia/Tokyo"} {
		p := buildSystemPrompt(resolvedAgent{ID: "main"}, nil, "", promptOptions{Timezone: zone})
		if want := "The user's time zone is " + zone + ".\n"; !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	// A zone Go does not know is not repeated into the prompt.
	if p := buildSystemPrompt(resolvedAgent{ID: "main"}, nil, "", promptOptions{Timezone: "Mars/Olympus"}); strings.Contains(p, "Mars") {
		t.Errorf("unknown zone in prompt:\n%s", p)
	}
}

// TestRunLimitDefault: maxConcurrent unset caps runs as OpenClaw does,
// at the larger of 8 and 4 per available CPU; a set value is used as is.
func TestRunLimitDefault(t *testing.T) {
	if got, want := runLimit(0), max(8, 4*runtime.NumCPU()); got != want {
		t.Errorf("runLimit(0) = %d, want %d", got, want)
	}
	if got := runLimit(0); got < 8 {
		t.Errorf("the default cap %d is under OpenClaw's floor of 8", got)
	}
	if got := runLimit(3); got != 3 {
		t.Errorf("runLimit(3) = %d", got)
	}
}
