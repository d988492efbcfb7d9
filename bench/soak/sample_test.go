package soak

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// sample is one reading of the gateway process and its state.
type sample struct {
	At          time.Duration // since the load started
	RSSKB       int64         // VmRSS
	Goroutines  int64         // from health's process vitals (probe: fresh)
	OpenFiles   int64         // entries of /proc/PID/fd
	SQLiteBytes int64         // every SQLite file of the state folder, with -wal and -shm
	BusTurns    int64
	ChannelMsgs int64
}

const sampleHeader = "minutes,rss_kb,goroutines,open_files,sqlite_bytes,bus_turns,channel_messages"

func (s sample) csv() string {
	return fmt.Sprintf("%.2f,%d,%d,%d,%d,%d,%d", s.At.Minutes(), s.RSSKB, s.Goroutines, s.OpenFiles, s.SQLiteBytes, s.BusTurns, s.ChannelMsgs)
}

func (s sample) human() string {
	return fmt.Sprintf("%5.1f min: RSS %.1f MB, %d goroutines, %d open files, SQLite %.2f MB, %d bus turns, %d channel messages",
		s.At.Minutes(), float64(s.RSSKB)/1024, s.Goroutines, s.OpenFiles, float64(s.SQLiteBytes)/1048576, s.BusTurns, s.ChannelMsgs)
}

func takeSample(admin *client.Client, g *harness.Gateway, start time.Time, n *counters) (sample, error) {
	s := sample{At: time.Since(start), BusTurns: n.busTurns.Load(), ChannelMsgs: n.channelMsgs.Load()}
	pid := g.PID()
	var err error
	if s.RSSKB, err = vmRSS(pid); err != nil {
		return s, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, fmt.Errorf("open files of %d: %w", pid, err)
	}
	s.OpenFiles = int64(len(fds))
	var h struct {
		Process struct {
			Goroutines int64 `json:"goroutines"`
		} `json:"process"`
	}
	if err := call(admin, "health", map[string]any{"probe": true}, &h); err != nil {
		return s, fmt.Errorf("health: %w", err)
	}
	s.Goroutines = h.Process.Goroutines
	if s.SQLiteBytes, err = sqliteBytes(g.StateDir); err != nil {
		return s, err
	}
	return s, nil
}

func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("status of %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("status of %d: no VmRSS", pid)
}

// sqliteBytes sums the files of dir that are SQLite databases (by their
// header) and their -wal and -shm companions.
func sqliteBytes(dir string) (int64, error) {
	dbs := map[string]bool{}
	var sizes = map[string]int64{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file removed while walking
		}
		if d.IsDir() {
			if d.Name() == "workspace" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		sizes[path] = info.Size()
		if f, err := os.Open(path); err == nil {
			head := make([]byte, 16)
			n, _ := f.Read(head)
			f.Close()
			if n == 16 && string(head) == "SQLite format 3\x00" {
				dbs[path] = true
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("state folder %s: %w", dir, err)
	}
	var total int64
	for db := range dbs {
		total += sizes[db] + sizes[db+"-wal"] + sizes[db+"-shm"]
	}
	return total, nil
}

// trend is one metric's verdict: the mean of the last third of the
// samples against the mean of the middle third (the first third is the
// warm-up: caches filling, runs kept for agent.wait accumulating to
// their retention).
type trend struct {
	Metric       string
	Unit         string
	First, Last  float64 // first and last sample
	Middle, End  float64 // means of the middle and last thirds
	Max          float64
	Allowed      float64 // growth from Middle to End that still passes
	Pass         bool
	Insufficient bool // too few samples to judge
}

// growthRule is how much a metric may grow from the middle third to the
// last: a fraction of the middle mean or an absolute slack, whichever is
// larger, for noise (GC timing, a connection or a sweep in flight).
type growthRule struct {
	metric, unit string
	scale        float64
	get          func(sample) int64
	frac, abs    float64
}

var growthRules = []growthRule{
	{"RSS", "MB", 1024, func(s sample) int64 { return s.RSSKB }, 0.10, 4},
	{"goroutines", "", 1, func(s sample) int64 { return s.Goroutines }, 0.10, 10},
	{"open files", "", 1, func(s sample) int64 { return s.OpenFiles }, 0.10, 5},
	{"SQLite size", "MB", 1048576, func(s sample) int64 { return s.SQLiteBytes }, 0.10, 1},
}

func trends(samples []sample) []trend {
	var out []trend
	for _, r := range growthRules {
		out = append(out, judge(samples, r))
	}
	return out
}

func judge(samples []sample, r growthRule) trend {
	t := trend{Metric: r.metric, Unit: r.unit}
	if len(samples) == 0 {
		t.Insufficient = true
		return t
	}
	vals := make([]float64, len(samples))
	for i, s := range samples {
		vals[i] = float64(r.get(s)) / r.scale
		t.Max = max(t.Max, vals[i])
	}
	t.First, t.Last = vals[0], vals[len(vals)-1]
	if len(vals) < 6 {
		t.Insufficient = true
		return t
	}
	third := len(vals) / 3
	t.Middle = mean(vals[third : 2*third])
	t.End = mean(vals[len(vals)-third:])
	t.Allowed = max(t.Middle*r.frac, r.abs)
	t.Pass = t.End-t.Middle <= t.Allowed
	return t
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// report is what the soak found.
type report struct {
	Elapsed      time.Duration
	Samples      []sample
	Ledger       ledgerSummary
	Counters     map[string]int64
	CronRuns     int
	CronOK       int
	CronExpected int
	Errors       []string
	Trends       []trend
}

// problems are the reasons the soak fails.
func (r report) problems() []string {
	var p []string
	for _, t := range r.Trends {
		switch {
		case t.Insufficient:
			p = append(p, fmt.Sprintf("%s: too few samples (%d) to judge a trend; run longer", t.Metric, len(r.Samples)))
		case !t.Pass:
			p = append(p, fmt.Sprintf("%s grew from %.1f to %.1f%s between the middle and last thirds (allowed +%.1f)", t.Metric, t.Middle, t.End, t.Unit, t.Allowed))
		}
	}
	for _, s := range r.Ledger.Streams {
		if l := r.Ledger.Lost[s]; len(l) > 0 {
			p = append(p, fmt.Sprintf("%s: %d messages never answered: %s", s, len(l), clipList(l)))
		}
		if d := r.Ledger.Dup[s]; len(d) > 0 {
			p = append(p, fmt.Sprintf("%s: %d messages answered more than once: %s", s, len(d), clipList(d)))
		}
	}
	if r.CronOK < r.CronExpected-1 {
		p = append(p, fmt.Sprintf("cron: %d runs ended ok (%d in all), want about %d", r.CronOK, r.CronRuns, r.CronExpected))
	}
	if r.Counters["config reload errors"] > 0 {
		p = append(p, fmt.Sprintf("%d config reloads failed", r.Counters["config reload errors"]))
	}
	for _, e := range r.Errors {
		p = append(p, e)
	}
	return p
}

func clipList(v []string) string {
	if len(v) > 10 {
		return strings.Join(v[:10], ", ") + ", …"
	}
	return strings.Join(v, ", ")
}

func (r report) markdown() string {
	var b strings.Builder
	verdict := "PASS"
	if len(r.problems()) > 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "Soak of %s, %d samples: **%s**\n\n", r.Elapsed.Round(time.Second), len(r.Samples), verdict)
	b.WriteString("| metric | first | max | middle third | last third | allowed growth | verdict |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, t := range r.Trends {
		v := "flat"
		switch {
		case t.Insufficient:
			v = "too few samples"
		case !t.Pass:
			v = "**grows**"
		}
		unit := ""
		if t.Unit != "" {
			unit = " " + t.Unit
		}
		fmt.Fprintf(&b, "| %s%s | %.1f | %.1f | %.1f | %.1f | +%.1f | %s |\n", t.Metric, paren(unit), t.First, t.Max, t.Middle, t.End, t.Allowed, v)
	}
	b.WriteString("\n| stream | sent | answered once | never answered | answered twice or more |\n| --- | --- | --- | --- | --- |\n")
	for _, s := range r.Ledger.Streams {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", s, r.Ledger.Sent[s], r.Ledger.Once[s], len(r.Ledger.Lost[s]), len(r.Ledger.Dup[s]))
	}
	keys := make([]string, 0, len(r.Counters))
	for k := range r.Counters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d; ", k, r.Counters[k])
	}
	fmt.Fprintf(&b, "cron runs: %d (%d ok, about %d due).\n", r.CronRuns, r.CronOK, r.CronExpected)
	if p := r.problems(); len(p) > 0 {
		b.WriteString("\nProblems:\n\n")
		for _, x := range p {
			fmt.Fprintf(&b, "- %s\n", x)
		}
	}
	return b.String()
}

func paren(unit string) string {
	if unit == "" {
		return ""
	}
	return " (" + strings.TrimSpace(unit) + ")"
}
