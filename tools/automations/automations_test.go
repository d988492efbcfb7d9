package automations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// fakeScheduler answers every call with answer (or fail) and records what
// it was called with, one line per call: "<method> <args...>".
type fakeScheduler struct {
	answer any
	fail   error

	mu    sync.Mutex
	calls []string
	whos  []tools.Who
}

func (f *fakeScheduler) record(who tools.Who, format string, args ...any) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.whos = append(f.whos, who)
	if f.fail != nil {
		return nil, f.fail
	}
	return f.answer, nil
}

func (f *fakeScheduler) Status(ctx context.Context, who tools.Who) (any, error) {
	return f.record(who, "status")
}

func (f *fakeScheduler) List(ctx context.Context, who tools.Who, includeDisabled bool) (any, error) {
	return f.record(who, "list %v", includeDisabled)
}

func (f *fakeScheduler) Add(ctx context.Context, who tools.Who, job json.RawMessage) (any, error) {
	return f.record(who, "add %s", job)
}

func (f *fakeScheduler) Update(ctx context.Context, who tools.Who, id string, patch json.RawMessage) (any, error) {
	return f.record(who, "update %s %s", id, patch)
}

func (f *fakeScheduler) Remove(ctx context.Context, who tools.Who, id string) (any, error) {
	return f.record(who, "remove %s", id)
}

func (f *fakeScheduler) Run(ctx context.Context, who tools.Who, id, mode string) (any, error) {
	return f.record(who, "run %s %s", id, mode)
}

func (f *fakeScheduler) Runs(ctx context.Context, who tools.Who, id string, limit int) (any, error) {
	return f.record(who, "runs %q %d", id, limit)
}

func (f *fakeScheduler) Wake(ctx context.Context, who tools.Who, mode, text string) (any, error) {
	return f.record(who, "wake %s %q", mode, text)
}

var _ Scheduler = (*fakeScheduler)(nil)

// caller is the conversation every test calls from.
var caller = tools.Who{AgentID: "work", SessionKey: "agent:work:telegram:direct:42", RunID: "run-1", Channel: "telegram", SenderID: "42"}

// call runs the tool and folds the two ways a call fails (an error, or an
// error result from argument validation) into one text.
func call(t *testing.T, s Scheduler, args string) (text string, isErr bool) {
	t.Helper()
	res, err := New(s, nil).Call(context.Background(), tools.Call{ID: "c1", Name: "automations", Args: json.RawMessage(args), Who: caller})
	if err != nil {
		return err.Error(), true
	}
	return res.Text, res.IsError
}

const teaJob = `{"name":"tea","schedule":{"kind":"at","at":"20m"},"payload":{"kind":"systemEvent","text":"Tea is ready"}}`

func TestAutomationsTool(t *testing.T) {
	tests := []struct {
		name   string
		args   string
		answer any
		fail   error
		call   string // what the scheduler got; "" for no call
		want   string // exact text
		prefix string // or the start of the text
		err    string // or part of the error
	}{
		{name: "status", args: `{"action":"status"}`, answer: map[string]any{"enabled": true, "jobs": 2},
			call: "status", want: `{"enabled":true,"jobs":2}`},
		{name: "list", args: `{"action":"list"}`, answer: json.RawMessage(`{ "jobs": [ {"id":"j1"} ], "total": 1 }`),
			call: "list false", want: `{"jobs":[{"id":"j1"}],"total":1}`},
		{name: "list disabled too", args: `{"action":"list","includeDisabled":true}`, answer: map[string]any{"jobs": []any{}},
			call: "list true", want: `{"jobs":[]}`},
		{name: "add", args: `{"action":"add","job":` + teaJob + `}`,
			answer: map[string]any{"id": "j1", "name": "tea", "nextRunAtMs": int64(1796050800000)},
			call:   "add " + teaJob, want: "Added job j1 (tea), next run 2026-11-30T15:00:00Z\n" + `{"id":"j1","name":"tea","nextRunAtMs":1796050800000}`},
		{name: "add keeps the bytes as written", args: `{"action":"add","job": { "name" : "tea",
			"schedule":{"kind":"every","everyMs":60000}} }`,
			call: "add { \"name\" : \"tea\",\n\t\t\t\"schedule\":{\"kind\":\"every\",\"everyMs\":60000}}", want: `{"ok":true}`},
		{name: "add job as a string", args: `{"action":"add","job":` + quote(" "+teaJob+"\n") + `}`,
			answer: map[string]any{"id": "j2", "name": "tea", "state": map[string]any{"nextRunAtMs": 0}},
			call:   "add " + teaJob, prefix: "Added job j2 (tea), next run 1970-01-01T00:00:00Z\n"},
		{name: "add disabled", args: `{"action":"add","job":{"enabled":false}}`,
			answer: map[string]any{"id": "j3", "name": "later", "enabled": false},
			call:   `add {"enabled":false}`, prefix: "Added job j3 (later), disabled\n"},
		{name: "add answer without id has no lead", args: `{"action":"add","job":{}}`, answer: map[string]any{"ok": true},
			call: "add {}", want: `{"ok":true}`},
		{name: "add without job", args: `{"action":"add"}`, err: "add needs job (a JSON object)"},
		{name: "add with null job", args: `{"action":"add","job":null}`, err: "add needs job"},
		{name: "add with empty string job", args: `{"action":"add","job":"  "}`, err: "add needs job"},
		{name: "add with a string not JSON", args: `{"action":"add","job":"tea at 5"}`, err: "add: job must be a JSON object (or a string holding one)"},
		{name: "add with a string holding an array", args: `{"action":"add","job":"[1]"}`, err: "add: job must be a JSON object"},
		{name: "add with an array", args: `{"action":"add","job":[1]}`, err: "add: job must be a JSON object"},
		{name: "add with broken JSON in a string", args: `{"action":"add","job":"{\"name\":"}`, err: "add: job is not valid JSON"},
		{name: "add refused by the scheduler", args: `{"action":"add","job":{"schedule":{"kind":"at","at":"soon"}}}`,
			fail: errors.New(`schedule: at "soon" is not a time`),
			call: `add {"schedule":{"kind":"at","at":"soon"}}`, err: `add job: schedule: at "soon" is not a time`},
		{name: "job fields at the top level", args: `{"action":"add","schedule":{"kind":"at","at":"1h"}}`, err: `unknown field "schedule"`},
		{name: "update", args: `{"action":"update","id":"j1","patch":{"enabled":false}}`, answer: map[string]any{"id": "j1", "enabled": false},
			call: `update j1 {"enabled":false}`, want: `{"enabled":false,"id":"j1"}`},
		{name: "update by jobId with a string patch", args: `{"action":"update","jobId":"j1","patch":"{\"name\":\"tea <hot>\"}"}`,
			answer: map[string]any{"id": "j1", "name": "tea <hot>"},
			call:   `update j1 {"name":"tea <hot>"}`, want: `{"id":"j1","name":"tea <hot>"}`},
		{name: "update without id", args: `{"action":"update","patch":{}}`, err: "update needs id"},
		{name: "update without patch", args: `{"action":"update","id":"j1"}`, err: "update needs patch"},
		{name: "update with a number patch", args: `{"action":"update","id":"j1","patch":5}`, err: "update: patch must be a JSON object"},
		{name: "update unknown job", args: `{"action":"update","id":"nope","patch":{}}`, fail: errors.New("unknown cron job id: nope"),
			call: "update nope {}", err: "update job nope: unknown cron job id: nope"},
		{name: "remove", args: `{"action":"remove","id":" j1 "}`, answer: map[string]any{"ok": true, "removed": true, "id": "j1"},
			call: "remove j1", want: `{"id":"j1","ok":true,"removed":true}`},
		{name: "remove without id", args: `{"action":"remove"}`, err: "remove needs id (see action list)"},
		{name: "run", args: `{"action":"run","id":"j1"}`, answer: map[string]any{"ok": true, "ran": true, "enqueued": true, "runId": "r9"},
			call: "run j1 force", prefix: "Started run r9 of job j1 in the background; it is not finished yet: check action runs with id j1 for its result.\n{"},
		{name: "run when due", args: `{"action":"run","jobId":"j1","mode":"due"}`, answer: map[string]any{"ok": true, "ran": false, "reason": "not-due"},
			call: "run j1 due", want: "Job j1 did not run: not-due.\n" + `{"ok":true,"ran":false,"reason":"not-due"}`},
		{name: "run with a wake mode", args: `{"action":"run","id":"j1","mode":"now"}`, err: `run: mode "now" is unknown (force or due)`},
		{name: "run without id", args: `{"action":"run"}`, err: "run needs id"},
		{name: "run fails", args: `{"action":"run","id":"j1"}`, fail: errors.New("the gateway is stopping"),
			call: "run j1 force", err: "run job j1: the gateway is stopping"},
		{name: "runs of all jobs", args: `{"action":"runs"}`, answer: map[string]any{"entries": []any{}},
			call: `runs "" 10`, want: `{"entries":[]}`},
		{name: "runs of one job", args: `{"action":"runs","id":"j1","limit":50}`, answer: map[string]any{"entries": []any{}},
			call: `runs "j1" 50`, want: `{"entries":[]}`},
		{name: "runs limit too high", args: `{"action":"runs","limit":51}`, err: "runs: limit 51 is out of range (1..50)"},
		{name: "runs limit negative", args: `{"action":"runs","limit":-1}`, err: "limit -1 is out of range"},
		{name: "runs limit not a number", args: `{"action":"runs","limit":"5"}`, err: "limit"},
		{name: "wake", args: `{"action":"wake","text":"Check the build"}`, answer: map[string]any{"ok": true},
			call: `wake now "Check the build"`, want: `{"ok":true}`},
		{name: "wake at the next heartbeat", args: `{"action":"wake","text":"later","mode":"next-heartbeat"}`,
			call: `wake next-heartbeat "later"`, want: `{"ok":true}`},
		{name: "wake without text", args: `{"action":"wake","text":" "}`, err: "wake needs text"},
		{name: "wake with a run mode", args: `{"action":"wake","text":"x","mode":"force"}`, err: `wake: mode "force" is unknown (now or next-heartbeat)`},
		{name: "wake fails", args: `{"action":"wake","text":"x"}`, fail: errors.New("no main session"),
			call: `wake now "x"`, err: "wake: no main session"},
		{name: "status fails", args: `{"action":"status"}`, fail: errors.New("cron is disabled"), call: "status", err: "scheduler status: cron is disabled"},
		{name: "unknown action", args: `{"action":"dance"}`, err: `unknown action "dance" (status, list, add`},
		{name: "no action", args: `{}`, err: "missing required action"},
		{name: "not an object", args: `[]`, err: "arguments must be a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeScheduler{answer: tc.answer, fail: tc.fail}
			text, isErr := call(t, f, tc.args)
			switch {
			case tc.err != "":
				if !isErr || !strings.Contains(text, tc.err) {
					t.Errorf("got %q (error %v), want an error containing %q", text, isErr, tc.err)
				}
			case isErr:
				t.Errorf("error %q", text)
			case tc.want != "" && text != tc.want:
				t.Errorf("text\n%s\nwant\n%s", text, tc.want)
			case tc.prefix != "" && !strings.HasPrefix(text, tc.prefix):
				t.Errorf("text\n%s\nwant it to start\n%s", text, tc.prefix)
			}
			var got string
			if len(f.calls) > 1 {
				t.Fatalf("%d scheduler calls: %q", len(f.calls), f.calls)
			}
			if len(f.calls) == 1 {
				got = f.calls[0]
				if !reflect.DeepEqual(f.whos[0], caller) {
					t.Errorf("scheduler got caller %+v, want %+v", f.whos[0], caller)
				}
			}
			if got != tc.call {
				t.Errorf("scheduler call\n%s\nwant\n%s", got, tc.call)
			}
		})
	}
}

func TestAutomationsTruncation(t *testing.T) {
	jobs := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"id": fmt.Sprintf("j%d", i)}
		}
		return out
	}
	runs := func(n, size int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"runId": fmt.Sprintf("r%d", i), "summary": strings.Repeat("x", size)}
		}
		return out
	}
	tests := []struct {
		name   string
		args   string
		answer any
		lead   string // "" when nothing is left out
		key    string // where the items are; "" for a bare array
		shown  int
	}{
		{name: "short list", args: `{"action":"list"}`, answer: map[string]any{"jobs": jobs(30), "total": 30}, key: "jobs", shown: 30},
		{name: "long list", args: `{"action":"list"}`, answer: map[string]any{"jobs": jobs(45), "total": 45}, key: "jobs", shown: 30,
			lead: "Showing 30 of 45 jobs; 15 left out (disable or remove jobs that are no longer needed)."},
		{name: "list that was already a page", args: `{"action":"list"}`, answer: map[string]any{"jobs": jobs(40), "total": 200}, key: "jobs", shown: 30,
			lead: "Showing 30 of 200 jobs; 170 left out"},
		{name: "bare array", args: `{"action":"list"}`, answer: jobs(31), shown: 30, lead: "Showing 30 of 31 jobs; 1 left out"},
		{name: "runs over the byte budget", args: `{"action":"runs","limit":20}`, answer: map[string]any{"entries": runs(20, 2000)}, key: "entries", shown: 12,
			lead: "Showing 12 of 20 runs; 8 left out (pass id for one job's runs or a smaller limit)."},
		{name: "one huge run is still shown", args: `{"action":"runs"}`, answer: map[string]any{"entries": runs(2, 30000)}, key: "entries", shown: 1,
			lead: "Showing 1 of 2 runs; 1 left out"},
		{name: "runs that fit", args: `{"action":"runs"}`, answer: map[string]any{"entries": runs(10, 100)}, key: "entries", shown: 10},
		{name: "an answer of another shape passes", args: `{"action":"runs"}`, answer: map[string]any{"entries": "none"}, shown: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := call(t, &fakeScheduler{answer: tc.answer}, tc.args)
			if isErr {
				t.Fatalf("error %q", text)
			}
			lead, body, found := strings.Cut(text, "\n")
			if !found {
				lead, body = "", text
			}
			if tc.lead == "" && lead != "" || !strings.HasPrefix(lead, tc.lead) {
				t.Errorf("lead %q, want %q", lead, tc.lead)
			}
			if tc.shown < 0 {
				return
			}
			var items []json.RawMessage
			if tc.key == "" {
				if err := json.Unmarshal([]byte(body), &items); err != nil {
					t.Fatalf("body %.200s: %v", body, err)
				}
			} else {
				var env map[string]json.RawMessage
				if err := json.Unmarshal([]byte(body), &env); err != nil {
					t.Fatalf("body %.200s: %v", body, err)
				}
				if err := json.Unmarshal(env[tc.key], &items); err != nil {
					t.Fatalf("%s: %v", tc.key, err)
				}
			}
			if len(items) != tc.shown {
				t.Errorf("%d items shown, want %d", len(items), tc.shown)
			}
			if tc.shown > 1 && len(body) > maxResultBytes {
				t.Errorf("body is %d bytes, over the %d budget", len(body), maxResultBytes)
			}
		})
	}
}

func TestAutomationsSpec(t *testing.T) {
	spec := New(&fakeScheduler{}, nil).Spec()
	if spec.Name != "automations" || spec.Tier != tools.TierCore || spec.Source != tools.SourceCore || spec.Timeout != tools.TimeoutFast {
		t.Errorf("spec %+v", spec)
	}
	if !slices.Equal(spec.Groups, []string{"group:automation"}) {
		t.Errorf("groups %q", spec.Groups)
	}
	var schema struct {
		Type       string   `json:"type"`
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type       string                     `json:"type"`
			Enum       []string                   `json:"enum"`
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v\n%s", err, spec.Parameters)
	}
	if schema.Type != "object" || !slices.Equal(schema.Required, []string{"action"}) {
		t.Errorf("schema type %q required %q", schema.Type, schema.Required)
	}
	if got, want := schema.Properties["action"].Enum, []string{"status", "list", "add", "update", "remove", "run", "runs", "wake"}; !slices.Equal(got, want) {
		t.Errorf("action enum %q, want %q", got, want)
	}
	job := schema.Properties["job"]
	if job.Type != "object" || !slices.Equal(job.Required, []string{"schedule", "payload"}) {
		t.Errorf("job type %q required %q", job.Type, job.Required)
	}
	for _, k := range []string{"name", "schedule", "sessionTarget", "wakeMode", "payload", "delivery", "deleteAfterRun", "enabled", "catchUp"} {
		if _, ok := job.Properties[k]; !ok {
			t.Errorf("job schema lacks %s", k)
		}
	}
	patch := schema.Properties["patch"]
	if patch.Type != "object" || len(patch.Required) != 0 || patch.Properties["schedule"] == nil {
		t.Errorf("patch schema %+v", patch)
	}
	for _, k := range []string{"includeDisabled", "id", "jobId", "mode", "limit", "text"} {
		if _, ok := schema.Properties[k]; !ok {
			t.Errorf("schema lacks %s", k)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestArgsMarshalKeepsJob(t *testing.T) {
	a := Args{Action: "update", ID: "j1", Patch: Patch(`{"enabled":false}`)}
	b, err := json.Marshal(a)
	if err != nil || string(b) != `{"action":"update","id":"j1","patch":{"enabled":false}}` {
		t.Errorf("marshal: %s %v", b, err)
	}
}

// FuzzObject checks that whatever a model sends as job, object either
// refuses it or returns one JSON object.
func FuzzObject(f *testing.F) {
	for _, s := range []string{teaJob, quote(teaJob), `null`, `"  "`, `"tea at 5"`, `[1]`, `"[1]"`, `5`, `{}`, `"{\"name\":"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out, err := object("add", "job", json.RawMessage(raw))
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(out, &m) != nil || m == nil {
			t.Errorf("object(%q) = %q, not a JSON object", raw, out)
		}
	})
}
