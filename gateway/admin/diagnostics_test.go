package admin

import (
	"encoding/json"
	"testing"
)

func TestParseStabilityQuery(t *testing.T) {
	tests := []struct {
		params  string
		want    stabilityQuery
		wantErr string
	}{
		{``, stabilityQuery{limit: 50, sinceSeq: -1}, ""},
		{`{}`, stabilityQuery{limit: 50, sinceSeq: -1}, ""},
		{`{"limit":1000,"type":" telemetry.exporter "}`, stabilityQuery{limit: 1000, typ: "telemetry.exporter", sinceSeq: -1}, ""},
		{`{"limit":"25","sinceSeq":"7"}`, stabilityQuery{limit: 25, sinceSeq: 7}, ""},
		{`{"limit":0}`, stabilityQuery{}, "limit must be between 1 and 1000"},
		{`{"limit":1001}`, stabilityQuery{}, "limit must be between 1 and 1000"},
		{`{"limit":2.5}`, stabilityQuery{}, "limit must be a non-negative integer"},
		{`{"limit":"-3"}`, stabilityQuery{}, "limit must be a non-negative integer"},
		{`{"sinceSeq":-1}`, stabilityQuery{}, "sinceSeq must be a non-negative integer"},
		{`{"type":"  "}`, stabilityQuery{}, "type must be a non-empty string"},
		{`{"type":3}`, stabilityQuery{}, "type must be a non-empty string"},
		{`[1]`, stabilityQuery{}, "params must be an object"},
	}
	for _, tc := range tests {
		got, err := parseStabilityQuery(json.RawMessage(tc.params))
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s: err %v, want %q", tc.params, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.params, got, err, tc.want)
		}
	}
}

func TestStabilityRingKeepsTheNewest(t *testing.T) {
	var r stabilityRing
	for range stabilityCapacity + 5 {
		r.add(stabilityRecord{Type: "diagnostic.memory.sample", Memory: map[string]any{"heapUsedBytes": int64(10), "rssBytes": int64(20)}})
	}
	snap := r.snapshot(stabilityQuery{limit: 3, sinceSeq: -1})
	events := snap["events"].([]stabilityRecord)
	if snap["count"] != stabilityCapacity || snap["dropped"] != int64(5) || len(events) != 3 ||
		events[2].Seq != stabilityCapacity+5 || snap["firstSeq"] != int64(6) {
		t.Fatalf("snapshot = count %v dropped %v firstSeq %v, %d events, last %+v", snap["count"], snap["dropped"], snap["firstSeq"], len(events), events[len(events)-1])
	}
	since := r.snapshot(stabilityQuery{limit: 50, sinceSeq: stabilityCapacity + 3})
	if since["count"] != 2 {
		t.Errorf("sinceSeq: count %v, want 2", since["count"])
	}
	ex := r.snapshot(stabilityQuery{limit: 50, typ: "telemetry.exporter", sinceSeq: -1})
	if ex["count"] != 0 || ex["capacity"] != 16 {
		t.Errorf("exporter query = %v", ex)
	}
}
