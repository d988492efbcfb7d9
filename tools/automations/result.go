package automations

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Limits of what list and runs show. Every byte of a result is paid for
// in the model's context on each later step, and past a few dozen entries
// a long list tells it little more.
const (
	maxListItems   = 30
	maxRunItems    = MaxRunsLimit
	maxResultBytes = 24 << 10
)

// render is the scheduler's answer as compact JSON, led for add by a line
// the model can repeat to the user, and cut short for list and runs.
func render(action string, answer any) (tools.Result, error) {
	b, err := compact(answer)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode %s result: %w", action, err)
	}
	var lead string
	switch action {
	case "add":
		lead = addedLead(b)
	case "list":
		b, lead = truncate(b, "jobs", "jobs", maxListItems, "disable or remove jobs that are no longer needed")
	case "runs":
		b, lead = truncate(b, "entries", "runs", maxRunItems, "pass id for one job's runs or a smaller limit")
	}
	return result(lead, b), nil
}

// renderRun says that a started run goes on without the tool: the answer
// is back long before the run is done.
func renderRun(id string, answer any) (tools.Result, error) {
	b, err := compact(answer)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode run result: %w", err)
	}
	var r struct {
		Ran    *bool  `json:"ran"`
		RunID  string `json:"runId"`
		Reason string `json:"reason"`
	}
	var lead string
	if json.Unmarshal(b, &r) == nil {
		switch {
		case r.RunID != "":
			lead = fmt.Sprintf("Started run %s of job %s in the background; it is not finished yet: check action runs with id %s for its result.", r.RunID, id, id)
		case r.Ran != nil && !*r.Ran:
			lead = fmt.Sprintf("Job %s did not run: %s.", id, cmp.Or(r.Reason, "the scheduler declined"))
		}
	}
	return result(lead, b), nil
}

func result(lead string, b []byte) tools.Result {
	if lead == "" {
		return tools.Result{Text: string(b)}
	}
	return tools.Result{Text: lead + "\n" + string(b)}
}

// compact encodes v without HTML escaping: the reader is a model, and
// \u003c in a job's message only obscures it.
func compact(v any) ([]byte, error) {
	if v == nil {
		return []byte(`{"ok":true}`), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// addedLead is "Added job <id> (<name>), next run <time>" for a job add
// returned, or "" when the answer is not a job.
func addedLead(b []byte) string {
	var j struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Enabled     *bool  `json:"enabled"`
		NextRunAtMs *int64 `json:"nextRunAtMs"`
		State       struct {
			NextRunAtMs *int64 `json:"nextRunAtMs"`
		} `json:"state"`
	}
	if json.Unmarshal(b, &j) != nil || j.ID == "" {
		return ""
	}
	lead := "Added job " + j.ID
	if j.Name != "" {
		lead += " (" + j.Name + ")"
	}
	switch next := cmp.Or(j.NextRunAtMs, j.State.NextRunAtMs); {
	case next != nil:
		lead += ", next run " + time.UnixMilli(*next).UTC().Format(time.RFC3339)
	case j.Enabled != nil && !*j.Enabled:
		lead += ", disabled"
	}
	return lead
}

// truncate keeps at most limit items of the array under key (or of a bare
// array) and no more than fit in maxResultBytes, and returns a lead saying
// how many were left out. Answers of another shape pass unchanged.
func truncate(b []byte, key, noun string, limit int, hint string) ([]byte, string) {
	var env map[string]json.RawMessage
	var items []json.RawMessage
	if json.Unmarshal(b, &env) == nil && env != nil {
		if json.Unmarshal(env[key], &items) != nil {
			return b, ""
		}
	} else if json.Unmarshal(b, &items) != nil {
		return b, ""
	}
	itemBytes := 0
	for _, it := range items {
		itemBytes += len(it) + 1
	}
	budget := maxResultBytes - (len(b) - itemBytes)
	keep, size := min(len(items), limit), 0
	for i := range keep {
		size += len(items[i]) + 1
		if size > budget && i > 0 { // always show one, however long
			keep = i
			break
		}
	}
	if keep == len(items) {
		return b, ""
	}
	// The scheduler may itself have returned a page of a longer list.
	total := len(items)
	var t int
	if env != nil && json.Unmarshal(env["total"], &t) == nil && t > total {
		total = t
	}
	lead := fmt.Sprintf("Showing %d of %d %s; %d left out (%s).", keep, total, noun, total-keep, hint)
	var out any = items[:keep]
	if env != nil {
		env[key], _ = compact(items[:keep])
		out = env
	}
	nb, err := compact(out)
	if err != nil {
		return b, ""
	}
	return nb, lead
}
