package soak

import (
	"path/filepath"
	"testing"
	"time"
)

// series makes one sample a minute with RSS from f.
func series(n int, f func(i int) int64) []sample {
	out := make([]sample, n)
	for i := range out {
		out[i] = sample{At: time.Duration(i) * time.Minute, RSSKB: f(i) * 1024, Goroutines: 50, OpenFiles: 20, SQLiteBytes: 1 << 20}
	}
	return out
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name         string
		samples      []sample
		pass, enough bool
	}{
		{"flat after warm-up", series(30, func(i int) int64 { return min(40, 20+int64(i)*2) }), true, true},
		{"noise", series(30, func(i int) int64 { return 40 + int64(i%3) }), true, true},
		{"leak", series(30, func(i int) int64 { return 40 + int64(i) }), false, true},
		{"too short", series(4, func(i int) int64 { return 40 }), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := judge(tc.samples, growthRules[0])
			if got.Insufficient == tc.enough || (tc.enough && got.Pass != tc.pass) {
				t.Errorf("judge = %+v, want pass %v (enough samples %v)", got, tc.pass, tc.enough)
			}
		})
	}
}

func TestReportCountsLostAndDuplicated(t *testing.T) {
	led := newLedger()
	for _, m := range []string{"m000001", "m000002", "m000003"} {
		led.sent(m, "bus:1")
	}
	led.setAnswers("m000001", 1)
	led.setAnswers("m000003", 2)
	r := report{Ledger: led.summary(), Samples: series(30, func(int) int64 { return 40 }), Trends: trends(series(30, func(int) int64 { return 40 }))}
	p := r.problems()
	if len(p) != 2 {
		t.Fatalf("problems %q, want one lost and one duplicated", p)
	}
	if err := plotSamples(r.Samples, filepath.Join(t.TempDir(), "soak.png")); err != nil {
		t.Fatal(err)
	}
}
