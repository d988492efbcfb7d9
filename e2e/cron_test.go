package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// cronRuns reads `openclaw cron runs --id ID --json` (our CLI or the real
// one) until want entries are there, newest first.
func cronRuns(t *testing.T, c *client, id string, want int, extra ...string) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := c.run(t, append([]string{"cron", "runs", "--id", id, "--json"}, extra...)...)
		r.mustSucceed(t)
		var page struct {
			Entries []map[string]any `json:"entries"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &page); err != nil {
			t.Fatalf("cron runs output: %v\n%s", err, r)
		}
		if len(page.Entries) >= want {
			return page.Entries
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s has %d runs, want %d:\n%s", id, len(page.Entries), want, r.Stdout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// addedID reads the job id from `cron add` output (JSON from the real
// CLI, "Added job <id>" text or JSON from ours).
func addedID(t *testing.T, r result) string {
	t.Helper()
	r.mustSucceed(t)
	var job struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &job); err == nil && job.ID != "" {
		return job.ID
	}
	t.Fatalf("no job id in cron add output:\n%s", r)
	return ""
}

// TestCronEndToEnd: jobs made with the real OpenClaw CLI fire in our
// binary into the fake model and deliver to the fake Telegram chat; a
// failing job says why in `openclaw cron runs`; a one-shot due while the
// gateway is down runs once when it comes back.
func TestCronEndToEnd(t *testing.T) {
	needOurGateway(t)
	needRealCLI(t)
	t.Parallel()
	model := fakemodel.New(t)
	const token = "123456:TEST-cron-e2e"
	tg := telegramtest.New(t, token)
	g := startGateway(t, gatewayOpts{Config: telegramConfig(model.URL(), tg.URL(), token, "")})
	real := realClient(t, g)
	ours := ourClient(t, g)
	remote := g.remote(g.Token)

	// An every job, made by the real CLI, delivers each answer to chat 1001.
	add := real.run(t, append([]string{"cron", "add", "--name", "digest", "--every", "2s",
		"--message", "daily digest please", "--announce", "--channel", "telegram", "--to", "1001", "--json"}, remote...)...)
	digest := addedID(t, add)
	got := waitSentWhere(t, tg, "with the digest", func(m telegramtest.Message) bool {
		return m.ChatID == "1001" && strings.Contains(m.Text, "daily digest please")
	})
	if !strings.Contains(got.Text, "[cron:"+digest+" digest]") {
		t.Errorf("the model did not get the job's tag: %q", got.Text)
	}
	runs := cronRuns(t, real, digest, 1, remote...)
	first := runs[len(runs)-1]
	if first["status"] != "ok" || first["deliveryStatus"] != "delivered" || first["completionStatus"] != "succeeded" ||
		!strings.HasPrefix(first["sessionKey"].(string), "agent:main:cron:"+digest) {
		t.Fatalf("run entry: %v", first)
	}
	list := real.run(t, append([]string{"cron", "list", "--json"}, remote...)...)
	list.mustSucceed(t)
	if !strings.Contains(list.Stdout, digest) || !strings.Contains(list.Stdout, `"everyMs": 2000`) {
		t.Fatalf("cron list:\n%s", list.Stdout)
	}
	ours.run(t, "cron", "disable", digest).mustSucceed(t)

	// A job whose model call fails is an error run with the reason. The
	// failure answers that job's message only: a digest run already under
	// way when the job was disabled must not take it.
	model.Respond(func(r fakemodel.Recorded) (fakemodel.Reply, bool) {
		for _, m := range r.Messages {
			if m.Role == "user" && strings.Contains(m.Text, "this will fail") {
				return fakemodel.Reply{Status: 401, ErrorMessage: "invalid api key for the digest"}, true
			}
		}
		return fakemodel.Reply{}, false
	})
	fail := addedID(t, real.run(t, append([]string{"cron", "add", "--name", "broken", "--at", "1s",
		"--message", "this will fail", "--no-deliver", "--json"}, remote...)...))
	bad := cronRuns(t, ours, fail, 1)[0]
	if bad["status"] != "error" || !strings.Contains(bad["error"].(string), "invalid api key") {
		t.Fatalf("failed run: %v", bad)
	}
	text := ours.run(t, "cron", "runs", "--id", fail)
	text.mustSucceed(t)
	if !strings.Contains(text.Stdout, "error") || !strings.Contains(text.Stdout, "invalid api key") {
		t.Fatalf("cron runs does not show the failure:\n%s", text.Stdout)
	}
	show := ours.run(t, "cron", "show", fail)
	show.mustSucceed(t)
	if !strings.Contains(show.Stdout, "invalid api key") {
		t.Fatalf("cron show hides the last error:\n%s", show.Stdout)
	}

	// A job that keeps failing says so in its chat, once.
	model.Script(fakemodel.Reply{Status: 401, ErrorMessage: "key revoked"}, fakemodel.Reply{Status: 401, ErrorMessage: "key revoked"})
	flaky := addedID(t, real.run(t, append([]string{"cron", "add", "--name", "flaky", "--every", "1s",
		"--message", "flaky job", "--announce", "--channel", "telegram", "--to", "1001", "--json"}, remote...)...))
	alert := waitSentWhere(t, tg, "with the failure alert", func(m telegramtest.Message) bool {
		return m.ChatID == "1001" && strings.Contains(m.Text, "in a row")
	})
	if !strings.Contains(alert.Text, `"flaky" failed 2 times in a row`) || !strings.Contains(alert.Text, "key revoked") {
		t.Fatalf("alert: %q", alert.Text)
	}
	ours.run(t, "cron", "disable", flaky).mustSucceed(t)

	// A one-shot due while the gateway is down runs once at the next start.
	late := addedID(t, real.run(t, append([]string{"cron", "add", "--name", "while-down", "--at", "3s",
		"--message", "missed me", "--announce", "--channel", "telegram", "--to", "1001", "--json"}, remote...)...))
	g.proc.stop()
	time.Sleep(4 * time.Second)
	g.restart(t)
	waitSentWhere(t, tg, "with the caught-up one-shot", func(m telegramtest.Message) bool {
		return m.ChatID == "1001" && strings.Contains(m.Text, "missed me")
	})
	caught := cronRuns(t, ours, late, 1)[0]
	if caught["status"] != "ok" || caught["trigger"] != "catch-up" {
		t.Fatalf("catch-up run: %v", caught)
	}
	// It ran and went (deleteAfterRun); the disabled digest and the
	// failed one-shot (kept, disabled) survived the restart.
	all := ours.run(t, "cron", "list", "--all", "--json")
	all.mustSucceed(t)
	if strings.Contains(all.Stdout, late) || !strings.Contains(all.Stdout, digest) || !strings.Contains(all.Stdout, fail) {
		t.Fatalf("jobs after restart:\n%s", all.Stdout)
	}
	if n := strings.Count(tgTexts(tg), "missed me"); n != 1 {
		t.Fatalf("the missed one-shot was delivered %d times", n)
	}
	ours.run(t, "cron", "rm", digest).mustSucceed(t)
	if r := ours.run(t, "cron", "get", digest); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "not found") {
		t.Fatalf("get after rm:\n%s", r)
	}
}

func tgTexts(tg *telegramtest.Server) string {
	var b strings.Builder
	for _, m := range tg.Sent() {
		b.WriteString(m.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
