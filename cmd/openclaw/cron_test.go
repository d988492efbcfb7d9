package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// cronTestNow is 2026-11-30 12:00:00Z, the clock of every cron test.
const cronTestNow = 1796040000000

func pinCronClock(t *testing.T) {
	t.Helper()
	old := cronNow
	cronNow = func() time.Time { return time.UnixMilli(cronTestNow) }
	t.Cleanup(func() { cronNow = old })
}

var (
	cronRead  = []string{"operator.read"}
	cronAdmin = []string{"operator.admin"}
)

// cronSaved is what cron.add and cron.update answer: the job.
var cronSaved = map[string]any{"id": "job-1", "name": "every10", "enabled": true,
	"schedule": map[string]any{"kind": "every", "everyMs": 600000}, "state": map[string]any{"nextRunAtMs": cronTestNow + 600_000}}

// TestCronAdd checks the cron.add params of each flag combination; the
// first cases repeat command lines whose params were captured from the
// real CLI.
func TestCronAdd(t *testing.T) {
	pinCronClock(t)
	added := "Added job job-1 (every10), next run in 10m (2026-11-30 12:10:00Z)\n"
	announceLast := `"delivery":{"channel":"last","mode":"announce"}`
	add := func(name string, args []string, params string) rpcCase {
		return rpcCase{name: name, args: append([]string{"cron", "add"}, args...), method: "cron.add",
			wantParams: params, wantScopes: cronAdmin, payload: cronSaved}
	}
	cases := []rpcCase{
		add("every message", []string{"--name", "every10", "--every", "10m", "--message", "tick msg", "--session", "isolated"},
			`{`+announceLast+`,"enabled":true,"name":"every10","payload":{"kind":"agentTurn","message":"tick msg"},`+
				`"schedule":{"everyMs":600000,"kind":"every"},"sessionTarget":"isolated","wakeMode":"now"}`),
		add("at duration", []string{"--name", "at20", "--at", "20m", "--message", "hello at"},
			`{`+announceLast+`,"enabled":true,"name":"at20","payload":{"kind":"agentTurn","message":"hello at"},`+
				`"schedule":{"at":"2026-11-30T12:20:00.000Z","kind":"at"},"sessionTarget":"isolated","wakeMode":"now"}`),
		add("at iso system event", []string{"--name", "atiso", "--at", "2026-11-30T16:23:53Z", "--system-event", "sys hello",
			"--session", "main", "--delete-after-run"},
			`{"deleteAfterRun":true,"enabled":true,"name":"atiso","payload":{"kind":"systemEvent","text":"sys hello"},`+
				`"schedule":{"at":"2026-11-30T16:23:53.000Z","kind":"at"},"sessionTarget":"main","wakeMode":"now"}`),
		add("cron tz announce", []string{"--name", "berlin", "--cron", "0 9 * * *", "--tz", "Europe/Berlin", "--message", "morning",
			"--session", "isolated", "--announce", "--channel", "telegram", "--to", "12345"},
			`{"delivery":{"channel":"telegram","mode":"announce","to":"12345"},"enabled":true,"name":"berlin",`+
				`"payload":{"kind":"agentTurn","message":"morning"},"schedule":{"expr":"0 9 * * *","kind":"cron","tz":"Europe/Berlin"},`+
				`"sessionTarget":"isolated","wakeMode":"now"}`),
		add("six field cron disabled", []string{"--name", "sixf", "--cron", "*/30 * * * * *", "--system-event", "every 30s", "--disabled"},
			`{"enabled":false,"name":"sixf","payload":{"kind":"systemEvent","text":"every 30s"},`+
				`"schedule":{"expr":"*/30 * * * * *","kind":"cron"},"sessionTarget":"main","wakeMode":"now"}`),
		add("offset-less at in tz", []string{"--name", "atlocal", "--at", "2027-01-05T10:00", "--tz", "Europe/Berlin", "--message", "hi"},
			`{`+announceLast+`,"enabled":true,"name":"atlocal","payload":{"kind":"agentTurn","message":"hi"},`+
				`"schedule":{"at":"2027-01-05T09:00:00.000Z","kind":"at"},"sessionTarget":"isolated","wakeMode":"now"}`),
		add("no deliver", []string{"--name", "runme", "--every", "1h", "--message", "say hi", "--no-deliver"},
			`{"delivery":{"channel":"last","mode":"none"},"enabled":true,"name":"runme","payload":{"kind":"agentTurn","message":"say hi"},`+
				`"schedule":{"everyMs":3600000,"kind":"every"},"sessionTarget":"isolated","wakeMode":"now"}`),
		add("every field", []string{"--name", "full", "--every", "1h30m", "--message", "m", "--model", "openai/gpt-5", "--thinking", "high",
			"--timeout-seconds", "120", "--light-context", "--agent", "ops", "--session-key", "k1", "--description", "d",
			"--wake", "next-heartbeat", "--keep-after-run", "--best-effort-deliver", "--account", "acc", "--catch-up", "skip"},
			`{"agentId":"ops","catchUp":"skip","deleteAfterRun":false,"delivery":{"accountId":"acc","bestEffort":true,"channel":"last","mode":"announce"},`+
				`"description":"d","enabled":true,"name":"full","payload":{"kind":"agentTurn","lightContext":true,"message":"m","model":"openai/gpt-5",`+
				`"thinking":"high","timeoutSeconds":120},"schedule":{"everyMs":5400000,"kind":"every"},"sessionKey":"k1",`+
				`"sessionTarget":"isolated","wakeMode":"next-heartbeat"}`),
		add("stagger custom session", []string{"--name", "s", "--cron", "0 * * * *", "--stagger", "5m", "--message", "m", "--session", "session:abc"},
			`{`+announceLast+`,"enabled":true,"name":"s","payload":{"kind":"agentTurn","message":"m"},`+
				`"schedule":{"expr":"0 * * * *","kind":"cron","staggerMs":300000},"sessionTarget":"session:abc","wakeMode":"now"}`),
		add("exact", []string{"--name", "e", "--cron", "0 3 * * *", "--exact", "--system-event", "x"},
			`{"enabled":true,"name":"e","payload":{"kind":"systemEvent","text":"x"},"schedule":{"expr":"0 3 * * *","kind":"cron","staggerMs":0},`+
				`"sessionTarget":"main","wakeMode":"now"}`),
		add("positional every", []string{"every 15m", "positional msg", "--name", "pos"},
			`{`+announceLast+`,"enabled":true,"name":"pos","payload":{"kind":"agentTurn","message":"positional msg"},`+
				`"schedule":{"everyMs":900000,"kind":"every"},"sessionTarget":"isolated","wakeMode":"now"}`),
		add("positional cron", []string{"0 9 * * 1-5", "weekday", "--name", "wd"},
			`{`+announceLast+`,"enabled":true,"name":"wd","payload":{"kind":"agentTurn","message":"weekday"},`+
				`"schedule":{"expr":"0 9 * * 1-5","kind":"cron"},"sessionTarget":"isolated","wakeMode":"now"}`),
		add("positional name", []string{"nightly", "--every", "1d", "--message", "m"},
			`{`+announceLast+`,"enabled":true,"name":"nightly","payload":{"kind":"agentTurn","message":"m"},`+
				`"schedule":{"everyMs":86400000,"kind":"every"},"sessionTarget":"isolated","wakeMode":"now"}`),
	}
	cases[0].wantOut = added
	alias := add("automations alias", []string{"--name", "a", "--every", "10m", "--system-event", "x"},
		`{"enabled":true,"name":"a","payload":{"kind":"systemEvent","text":"x"},"schedule":{"everyMs":600000,"kind":"every"},`+
			`"sessionTarget":"main","wakeMode":"now"}`)
	alias.args[0] = "automations"
	alias.wantOut = added
	runRPCCases(t, append(cases, alias))
}

func TestCronEdit(t *testing.T) {
	pinCronClock(t)
	edit := func(name string, args []string, patch string) rpcCase {
		return rpcCase{name: name, args: append([]string{"cron", "edit", "J"}, args...), method: "cron.update",
			wantParams: `{"id":"J","patch":` + patch + `}`, wantScopes: cronAdmin, payload: cronSaved}
	}
	cases := []rpcCase{
		edit("every and name", []string{"--every", "5m", "--name", "every5"}, `{"name":"every5","schedule":{"everyMs":300000,"kind":"every"}}`),
		edit("disable", []string{"--disable"}, `{"enabled":false}`),
		edit("enable and message", []string{"--enable", "--message", "new msg"}, `{"enabled":true,"payload":{"kind":"agentTurn","message":"new msg"}}`),
		edit("cron tz no deliver", []string{"--cron", "30 8 * * 1-5", "--tz", "America/New_York", "--no-deliver"},
			`{"delivery":{"mode":"none"},"schedule":{"expr":"30 8 * * 1-5","kind":"cron","tz":"America/New_York"}}`),
		edit("system event", []string{"--system-event", "hi", "--session", "main", "--wake", "next-heartbeat"},
			`{"payload":{"kind":"systemEvent","text":"hi"},"sessionTarget":"main","wakeMode":"next-heartbeat"}`),
		edit("payload fields merge", []string{"--clear-model", "--thinking", "low", "--no-light-context"},
			`{"payload":{"kind":"agentTurn","lightContext":false,"model":null,"thinking":"low"}}`),
		edit("delivery fields", []string{"--to", "999", "--clear-account", "--no-best-effort-deliver"},
			`{"delivery":{"accountId":null,"bestEffort":false,"to":"999"}}`),
		edit("best effort alone announces", []string{"--best-effort-deliver"}, `{"delivery":{"bestEffort":true,"mode":"announce"}}`),
		edit("clears and extension", []string{"--clear-agent", "--catch-up", "once", "--delete-after-run"},
			`{"agentId":null,"catchUp":"once","deleteAfterRun":true}`),
		edit("at with offset", []string{"--at", "2026-12-24T18:00:00+01:00"}, `{"schedule":{"at":"2026-12-24T17:00:00.000Z","kind":"at"}}`),
	}
	cases[0].wantOut = "Updated job job-1 (every10), next run in 10m (2026-11-30 12:10:00Z)\n"
	runRPCCases(t, cases)
}

// TestCronEditReadsJob: edits that keep part of the current schedule or
// payload read the job first and send its configRevision along.
func TestCronEditReadsJob(t *testing.T) {
	pinCronClock(t)
	tests := []struct {
		name  string
		args  []string
		patch string
	}{
		{"cron keeps tz", []string{"--cron", "0 10 * * *"}, `{"schedule":{"expr":"0 10 * * *","kind":"cron","tz":"Europe/Berlin"}}`},
		{"exact alone", []string{"--exact"}, `{"schedule":{"expr":"0 9 * * *","kind":"cron","staggerMs":0,"tz":"Europe/Berlin"}}`},
		{"tz alone", []string{"--tz", "UTC"}, `{"schedule":{"expr":"0 9 * * *","kind":"cron","tz":"UTC"}}`},
		{"timeout alone", []string{"--timeout-seconds", "60"}, `{"payload":{"kind":"agentTurn","timeoutSeconds":60}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("cron.get", fixture(t, "cron/job.json"))
			srv.Reply("cron.update", cronSaved)
			args := append([]string{"cron", "edit", "J"}, tc.args...)
			if _, stderr, err := runCLI(t, append(args, "--url", srv.URL(), "--token", testToken)...); err != nil {
				t.Fatalf("run: %v\n%s", err, stderr)
			}
			if conn, _ := srv.LastConnect(); strings.Join(conn.Params.Scopes, " ") != "operator.admin operator.read" {
				t.Errorf("scopes = %v", conn.Params.Scopes)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[0].Method != "cron.get" || string(reqs[0].Params) != `{"id":"J"}` || reqs[1].Method != "cron.update" {
				t.Fatalf("requests = %+v", reqs)
			}
			want := `{"expectedConfigRevision":"sha256:abc","id":"J","patch":` + tc.patch + `}`
			if got := string(reqs[1].Params); got != want {
				t.Errorf("params %s\nwant   %s", got, want)
			}
		})
	}
}

func TestCronCommands(t *testing.T) {
	pinCronClock(t)
	runs := map[string]any{"entries": []any{}, "total": 0}
	runRPCCases(t, []rpcCase{
		{name: "enable", args: []string{"cron", "enable", "J"}, method: "cron.update", wantParams: `{"id":"J","patch":{"enabled":true}}`,
			wantScopes: cronAdmin, payload: cronSaved, wantOut: "Enabled job job-1 (every10), next run in 10m (2026-11-30 12:10:00Z)\n"},
		{name: "disable", args: []string{"cron", "disable", "J"}, method: "cron.update", wantParams: `{"id":"J","patch":{"enabled":false}}`,
			wantScopes: cronAdmin, payload: cronSaved, wantOut: "Disabled job J (cron list hides it; see cron list --all)\n"},
		{name: "rm", args: []string{"cron", "rm", "J"}, method: "cron.remove", wantParams: `{"id":"J"}`,
			wantScopes: cronAdmin, payload: map[string]any{"ok": true, "removed": true}, wantOut: "Removed job J\n"},
		{name: "delete", args: []string{"cron", "delete", "J", "--json"}, method: "cron.remove", wantParams: `{"id":"J"}`,
			wantScopes: cronAdmin, payload: map[string]any{"ok": true}, wantOut: "{\n  \"ok\": true\n}\n"},
		{name: "run", args: []string{"cron", "run", "J"}, method: "cron.run", wantParams: `{"id":"J","mode":"force"}`,
			wantScopes: cronAdmin, payload: map[string]any{"ok": true, "enqueued": true, "runId": "manual:J:1"},
			wantOut: "Started job J (run manual:J:1)\n"},
		{name: "run force", args: []string{"cron", "run", "J", "--force"}, method: "cron.run", wantParams: `{"id":"J","mode":"force"}`,
			wantScopes: cronAdmin, payload: map[string]any{"ok": true, "ran": true}},
		{name: "run due", args: []string{"cron", "run", "J", "--due"}, method: "cron.run", wantParams: `{"id":"J","mode":"due"}`,
			wantScopes: cronAdmin, payload: map[string]any{"ok": true, "ran": true}},
		{name: "runs", args: []string{"cron", "runs", "--id", "J"}, method: "cron.runs", wantParams: `{"id":"J","limit":50}`,
			wantScopes: cronRead, payload: runs, wantOut: "No runs.\n"},
		{name: "runs filters", args: []string{"cron", "runs", "J", "--status", "error", "--delivery-status", "not-delivered",
			"--sort", "desc", "--limit", "5", "--offset", "0", "--query", "x", "--run-id", "R"}, method: "cron.runs",
			wantParams: `{"deliveryStatus":"not-delivered","id":"J","limit":5,"offset":0,"query":"x","runId":"R","sortDir":"desc","status":"error"}`,
			wantScopes: cronRead, payload: runs},
		{name: "list", args: []string{"cron", "list"}, method: "cron.list", wantParams: `{"includeDisabled":false,"limit":200,"offset":0}`,
			wantScopes: cronRead, payload: map[string]any{"jobs": []any{}}, wantOut: "No cron jobs.\n"},
		{name: "list all agent", args: []string{"cron", "list", "--all", "--agent", "main"}, method: "cron.list",
			wantParams: `{"agentId":"main","includeDisabled":true,"limit":200,"offset":0}`, wantScopes: cronRead, payload: map[string]any{"jobs": []any{}}},
		{name: "status", args: []string{"cron", "status"}, method: "cron.status", wantParams: `{}`, wantScopes: cronRead,
			payload: map[string]any{"enabled": false, "jobs": 0}, wantOut: "Scheduler: disabled (cron.enabled is false; no job runs)\nJobs:      0\nNext wake: -\n"},
		{name: "get", args: []string{"cron", "get", "J"}, method: "cron.get", wantParams: `{"id":"J"}`, wantScopes: cronRead,
			payload: map[string]any{"id": "J"}, wantOut: "{\n  \"id\": \"J\"\n}\n"},
	})
}

// TestCronGolden compares the friendly output of the read commands.
func TestCronGolden(t *testing.T) {
	pinCronClock(t)
	tests := []struct {
		name, method, fixture string
		args                  []string
	}{
		{"cron/list", "cron.list", "cron/list.json", []string{"cron", "list", "--all"}},
		{"cron/runs", "cron.runs", "cron/runs.json", []string{"cron", "runs", "J"}},
		{"cron/status", "cron.status", "cron/status.json", []string{"cron", "status"}},
		{"cron/show", "cron.get", "cron/job.json", []string{"cron", "show", "J"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply(tc.method, fixture(t, tc.fixture))
			stdout, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr)
			}
			checkGolden(t, tc.name, stdout)
		})
	}
}

// TestCronRunWait: --wait polls cron.runs for the run until it has an
// outcome, and a failed run makes the command fail.
func TestCronRunWait(t *testing.T) {
	errEntry := map[string]any{"ts": cronTestNow, "jobId": "J", "runId": "manual:J:1", "status": "error", "completionStatus": "failed",
		"error": "Channel is required", "summary": "fake reply ok", "durationMs": 451}
	okEntry := map[string]any{"ts": cronTestNow, "jobId": "J", "runId": "manual:J:1", "status": "ok", "summary": "done", "durationMs": 2721}
	tests := []struct {
		name     string
		entry    map[string]any // nil: the run never finishes
		extra    []string
		wantErr  bool
		wantOut  string
		wantPoll bool
	}{
		{"error", errEntry, nil, true, "Run manual:J:1 of job J: error in 451ms\nfake reply ok\nError: Channel is required\n", true},
		{"ok", okEntry, nil, false, "Run manual:J:1 of job J: ok in 2.7s\ndone\n", true},
		{"json", errEntry, []string{"--json"}, true, `"completionStatus": "failed"`, true},
		{"times out", nil, []string{"--wait-timeout", "100ms"}, true, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("cron.run", map[string]any{"ok": true, "enqueued": true, "runId": "manual:J:1"})
			var polls atomic.Int32
			srv.Handle("cron.runs", func(context.Context, *clienttest.Call) (any, error) {
				// The first poll finds nothing yet, as when the run is queued.
				if polls.Add(1) == 1 || tc.entry == nil {
					return map[string]any{"entries": []any{}, "total": 0}, nil
				}
				return map[string]any{"entries": []any{tc.entry}, "total": 1}, nil
			})
			args := append([]string{"cron", "run", "J", "--wait", "--poll-interval", "10ms"}, tc.extra...)
			stdout, stderr, err := runCLI(t, append(args, "--url", srv.URL(), "--token", testToken)...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v\nstderr: %s", err, tc.wantErr, stderr)
			}
			if !strings.Contains(stdout, tc.wantOut) || (tc.wantOut == "" && stdout != "") {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.wantOut)
			}
			if tc.entry == nil && !strings.Contains(stderr, "timed out after 100ms waiting for run manual:J:1") {
				t.Errorf("stderr = %q", stderr)
			}
			reqs := srv.Requests()
			if len(reqs) < 2 || reqs[1].Method != "cron.runs" || string(reqs[1].Params) != `{"id":"J","limit":1,"runId":"manual:J:1"}` {
				t.Errorf("requests = %+v", reqs)
			}
			if conn, _ := srv.LastConnect(); strings.Join(conn.Params.Scopes, " ") != "operator.admin operator.read" {
				t.Errorf("scopes = %v", conn.Params.Scopes)
			}
		})
	}
}

func TestCronRunNotDue(t *testing.T) {
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Reply("cron.run", map[string]any{"ok": true, "ran": false, "reason": "not-due"})
	stdout, stderr, err := runCLI(t, "cron", "run", "J", "--due", "--url", srv.URL(), "--token", testToken)
	if err == nil || stdout != "Job J did not run: not-due\n" || stderr != "" {
		t.Errorf("err %v stdout %q stderr %q", err, stdout, stderr)
	}
}

func TestCronUsage(t *testing.T) {
	add := func(args ...string) []string { return append([]string{"cron", "add", "--name", "n"}, args...) }
	edit := func(args ...string) []string { return append([]string{"cron", "edit", "J"}, args...) }
	runUsageCases(t, false, []usageCase{
		{"no subcommand", []string{"cron"}, "missing subcommand (one of add, create, delete, disable, edit, enable, get, list, remove, rm, run, runs, show, status)"},
		{"no schedule", add("--message", "m"), "missing schedule: give --at, --every or --cron"},
		{"two schedules", add("--every", "10m", "--cron", "0 * * * *", "--message", "m"), "choose one schedule: --at, --every or --cron"},
		{"positional and flag schedule", []string{"cron", "add", "every 10m", "m", "--name", "n", "--at", "20m"}, "pass the name either as an argument or with --name"},
		{"bad every", add("--every", "10x", "--message", "m"), `invalid --every "10x": use a duration like 30s`},
		{"zero every", add("--every", "0s", "--message", "m"), `invalid --every "0s"`},
		{"blank every", add("--every", " ", "--message", "m"), "--every must not be blank"},
		{"bad at", add("--at", "tomorrow", "--message", "m"), `invalid --at "tomorrow"`},
		{"bad tz", add("--at", "2027-01-05T10:00", "--tz", "Mars/Olympus", "--message", "m"), `invalid --tz "Mars/Olympus"`},
		{"bad stagger", add("--cron", "0 * * * *", "--stagger", "soon", "--message", "m"), `invalid --stagger "soon"`},
		{"stagger and exact", add("--cron", "0 * * * *", "--stagger", "1m", "--exact", "--message", "m"), "choose --stagger or --exact, not both"},
		{"stagger with every", add("--every", "1h", "--stagger", "1m", "--message", "m"), "--stagger and --exact are only valid with --cron"},
		{"tz with every", add("--every", "1h", "--tz", "UTC", "--message", "m"), "--tz is only valid with --cron"},
		{"bad session", add("--every", "1h", "--message", "m", "--session", "bogus"), `--session must be main, isolated, current, or session:<key> (got "bogus")`},
		{"empty custom session", add("--every", "1h", "--message", "m", "--session", "session: "), "--session must be"},
		{"no payload", add("--every", "1h"), "choose one payload: --message or --system-event"},
		{"two payloads", add("--every", "1h", "--message", "m", "--system-event", "e"), "choose one payload"},
		{"main with message", add("--every", "1h", "--message", "m", "--session", "main"), "--session main needs --system-event"},
		{"isolated with event", add("--every", "1h", "--system-event", "e", "--session", "isolated"), "--session isolated needs --message"},
		{"main with delivery", add("--every", "1h", "--system-event", "e", "--to", "123"), "--channel, --to and --account need an isolated --message job"},
		{"main with announce", add("--every", "1h", "--system-event", "e", "--announce"), "--announce and --no-deliver need an isolated --message job"},
		{"announce and no deliver", add("--every", "1h", "--message", "m", "--announce", "--no-deliver"), "choose --announce or --no-deliver, not both"},
		{"delete and keep", add("--at", "20m", "--message", "m", "--delete-after-run", "--keep-after-run"), "choose --delete-after-run or --keep-after-run"},
		{"bad wake", add("--every", "1h", "--message", "m", "--wake", "later"), "--wake must be now or next-heartbeat"},
		{"bad catch-up", add("--every", "1h", "--message", "m", "--catch-up", "all"), "--catch-up must be once or skip"},
		{"bad timeout seconds", add("--every", "1h", "--message", "m", "--timeout-seconds", "-1"), "--timeout-seconds must be a non-negative integer"},
		{"no name", []string{"cron", "add", "every 15m", "msg"}, "a job name is required"},
		{"edit nothing", edit(), "nothing to change"},
		{"edit enable and disable", edit("--enable", "--disable"), "choose --enable or --disable, not both"},
		{"edit main with message", edit("--session", "main", "--message", "m"), "--session main cannot take --message"},
		{"edit two schedules", edit("--every", "1h", "--at", "20m"), "choose one schedule"},
		{"edit two payloads", edit("--system-event", "e", "--model", "m"), "choose at most one payload change"},
		{"edit model and clear", edit("--model", "m", "--clear-model"), "use --model or --clear-model, not both"},
		{"edit to and clear", edit("--to", "1", "--clear-to"), "use --to or --clear-to, not both"},
		{"edit without id", []string{"cron", "edit"}, "missing argument"},
		{"rm without id", []string{"cron", "rm"}, "missing argument (usage: openclaw cron rm ID"},
		{"runs without id", []string{"cron", "runs"}, "missing job id; pass it as the argument or with --id"},
		{"runs two ids", []string{"cron", "runs", "A", "--id", "B"}, `conflicting job ids: "A" and --id "B"`},
		{"runs bad status", []string{"cron", "runs", "J", "--status", "failed"}, "--status must be one of all, ok, error, skipped"},
		{"runs bad limit", []string{"cron", "runs", "J", "--limit", "0"}, "--limit must be a positive integer"},
		{"run bad wait timeout", []string{"cron", "run", "J", "--wait", "--wait-timeout", "x"}, `invalid --wait-timeout "x"`},
	})
}

// TestCronGatewayErrors: refusals such as an unknown job id are reported
// with the gateway's code, detail code and message.
func TestCronGatewayErrors(t *testing.T) {
	notFound := protocol.Errorf(protocol.CodeInvalidRequest, "cron job not found: nope").
		WithDetails(map[string]any{"code": protocol.DetailCronJobNotFound, "jobId": "nope"})
	for _, tc := range []struct {
		method string
		args   []string
	}{
		{"cron.get", []string{"cron", "get", "nope"}},
		{"cron.remove", []string{"cron", "rm", "nope"}},
		{"cron.update", []string{"cron", "enable", "nope"}},
		{"cron.run", []string{"cron", "run", "nope"}},
	} {
		t.Run(tc.args[1], func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Fail(tc.method, notFound)
			stdout, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			want := "cron " + tc.args[1] + " failed: INVALID_REQUEST CRON_JOB_NOT_FOUND: cron job not found: nope\n"
			if err == nil || stdout != "" || stderr != want {
				t.Errorf("err %v stdout %q stderr %q, want %q", err, stdout, stderr, want)
			}
			stdout, _, _ = runCLI(t, append(tc.args, "--json", "--url", srv.URL(), "--token", testToken)...)
			var env struct {
				OK    bool
				Error errorBody
			}
			if err := json.Unmarshal([]byte(stdout), &env); err != nil || env.OK || env.Error.Code != "INVALID_REQUEST" ||
				detailCode(env.Error.Details) != "CRON_JOB_NOT_FOUND" {
				t.Errorf("--json: %q (%v)", stdout, err)
			}
		})
	}
}

func TestCronDurations(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ms   int64
		fail bool
	}{
		{"30s", 30_000, false}, {"10m", 600_000, false}, {"1h", 3_600_000, false}, {"2d", 172_800_000, false},
		{"1h30m", 5_400_000, false}, {"500ms", 500, false}, {"1.5h", 5_400_000, false}, {"250", 250, false}, {" 10M ", 600_000, false},
		{"10x", 0, true}, {"h", 0, true}, {"1h 30m", 0, true}, {"m10", 0, true}, {"", 0, true},
	} {
		ms, ok := cronDurationMs(tc.in)
		if ok == tc.fail || ms != tc.ms {
			t.Errorf("cronDurationMs(%q) = %d, %v; want %d, fail %v", tc.in, ms, ok, tc.ms, tc.fail)
		}
	}
	for ms, want := range map[int64]string{600_000: "10m", 604_800_000: "7d", 5_400_000: "1h30m", 30_000: "30s", 1500: "1500ms", 90_061_000: "1d1h1m1s"} {
		if got := cronEvery(ms); got != want {
			t.Errorf("cronEvery(%d) = %q, want %q", ms, got, want)
		}
	}
}

func TestCronAt(t *testing.T) {
	now := time.UnixMilli(cronTestNow)
	for _, tc := range []struct{ in, tz, want string }{
		{"20m", "", "2026-11-30T12:20:00.000Z"},
		{"+2h", "", "2026-11-30T14:00:00.000Z"},
		{"2026-12-24T18:00:00Z", "", "2026-12-24T18:00:00.000Z"},
		{"2026-12-24T18:00:00.250+0100", "", "2026-12-24T17:00:00.250Z"},
		{"2026-12-24T18:00", "", "2026-12-24T18:00:00.000Z"},
		{"2026-12-24T18:00", "America/New_York", "2026-12-24T23:00:00.000Z"},
		{"2026-12-24T18:00Z", "America/New_York", "2026-12-24T18:00:00.000Z"},
		{"2026-12-24", "", "2026-12-24T00:00:00.000Z"},
		{"1796040000000", "", "2026-11-30T12:00:00.000Z"},
	} {
		got, err := parseCronAt(tc.in, tc.tz, now)
		if err != nil || got != tc.want {
			t.Errorf("parseCronAt(%q, %q) = %q, %v; want %q", tc.in, tc.tz, got, err, tc.want)
		}
	}
	for _, in := range []string{"tomorrow", "2026-13-01T00:00", "2026-12-24T25:00", "0"} {
		if got, err := parseCronAt(in, "", now); err == nil {
			t.Errorf("parseCronAt(%q) = %q, want an error", in, got)
		}
	}
}

// TestCronShowByName: show falls back to a job of that exact name when
// the argument is no job id.
func TestCronShowByName(t *testing.T) {
	pinCronClock(t)
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Fail("cron.get", protocol.Errorf(protocol.CodeInvalidRequest, "cron job not found: berlin").
		WithDetails(map[string]any{"code": protocol.DetailCronJobNotFound, "jobId": "berlin"}))
	srv.Reply("cron.list", fixture(t, "cron/list.json"))
	stdout, stderr, err := runCLI(t, "cron", "show", "berlin", "--url", srv.URL(), "--token", testToken)
	if err != nil || !strings.HasPrefix(stdout, "ID:       34c02dd2-0a13-4aeb-ac08-e9d28c83002c\nName:     berlin\n") {
		t.Fatalf("err %v stderr %q stdout:\n%s", err, stderr, stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || string(reqs[1].Params) != `{"includeDisabled":true,"limit":200,"offset":0}` {
		t.Errorf("requests = %+v", reqs)
	}
	// An unknown name is reported as the gateway refused the id.
	_, stderr, err = runCLI(t, "cron", "show", "nope", "--url", srv.URL(), "--token", testToken)
	if err == nil || !strings.Contains(stderr, "CRON_JOB_NOT_FOUND") {
		t.Errorf("err %v stderr %q", err, stderr)
	}
}
