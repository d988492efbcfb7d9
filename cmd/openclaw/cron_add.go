package main

import (
	"cmp"
	"context"
	"encoding/json"
	flag "github.com/spf13/pflag"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// isSet reports whether the flag name was given on the command line.
func (fs *flagSet) isSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseCronDuration reads a duration as OpenClaw writes them: 500ms, 30s,
// 10m, 2h, 1d, composites like 1h30m; a bare number is milliseconds.
func parseCronDuration(flagName, s string) (time.Duration, error) {
	ms, ok := cronDurationMs(s)
	if !ok || ms <= 0 {
		return 0, usageErrorf("invalid %s %q: use a duration like 30s, 10m, 2h, 1d or 1h30m", flagName, s)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

var (
	cronSingleDuration = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$`) })
	cronDurationPart   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+(?:\.\d+)?)(ms|s|m|h|d)`) })
	cronUnitMs         = map[string]float64{"": 1, "ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3, "d": 86400e3}
)

// cronDurationMs parses s into milliseconds.
func cronDurationMs(s string) (int64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if m := cronSingleDuration().FindStringSubmatch(s); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		return int64(v*cronUnitMs[m[2]] + 0.5), true
	}
	var total float64
	consumed := 0
	for _, m := range cronDurationPart().FindAllStringSubmatchIndex(s, -1) {
		if m[0] != consumed {
			return 0, false
		}
		v, _ := strconv.ParseFloat(s[m[2]:m[3]], 64)
		total += v * cronUnitMs[s[m[4]:m[5]]]
		consumed = m[1]
	}
	if consumed == 0 || consumed != len(s) {
		return 0, false
	}
	return int64(total + 0.5), true
}

// cronAbsolute matches the ISO dates and times --at takes; group 2 is the
// time, group 3 the offset.
var cronAbsolute = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:[Tt](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)([Zz]|[+-]\d{2}:?\d{2})?)?$`)
})

// parseCronAt turns --at into the ISO time the gateway stores: an ISO
// timestamp (without an offset it is in tz, else UTC), Unix milliseconds,
// or a duration from now such as 20m or +2h.
func parseCronAt(s, tz string, now time.Time) (string, error) {
	bad := usageErrorf("invalid --at %q: use an ISO time (2026-12-24T18:00, 2026-12-24T18:00:00Z) or a duration like 20m", s)
	s = strings.TrimSpace(s)
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && !strings.HasPrefix(s, "+") {
		return iso(time.UnixMilli(n)), nil
	}
	if m := cronAbsolute().FindStringSubmatch(s); m != nil {
		loc := time.UTC
		if m[3] == "" && tz != "" {
			var err error
			if loc, err = time.LoadLocation(tz); err != nil {
				return "", usageErrorf("invalid --tz %q: %v", tz, err)
			}
		}
		clock := m[2]
		if clock == "" {
			clock = "00:00"
		}
		if strings.Count(clock, ":") == 1 {
			clock += ":00"
		}
		off := m[3]
		if off != "" && off != "Z" && off != "z" && !strings.Contains(off, ":") {
			off = off[:3] + ":" + off[3:]
		}
		layout, value := "2006-01-02T15:04:05.999999999", m[1]+"T"+clock
		if off != "" {
			layout, value = time.RFC3339Nano, value+strings.ToUpper(off)
		}
		t, err := time.ParseInLocation(layout, value, loc)
		if err != nil {
			return "", bad
		}
		return iso(t), nil
	}
	if ms, ok := cronDurationMs(strings.TrimPrefix(s, "+")); ok && ms > 0 {
		return iso(now.Add(time.Duration(ms) * time.Millisecond)), nil
	}
	return "", bad
}

// cronSessionTarget normalises --session: main, isolated, current or
// session:<key>.
func cronSessionTarget(s string) (string, error) {
	raw := strings.TrimSpace(s)
	switch lower := strings.ToLower(raw); {
	case lower == "main", lower == "isolated", lower == "current":
		return lower, nil
	case strings.HasPrefix(lower, "session:") && strings.TrimSpace(raw[len("session:"):]) != "":
		return "session:" + strings.TrimSpace(raw[len("session:"):]), nil
	}
	return "", usageErrorf("--session must be main, isolated, current, or session:<key> (got %q)", s)
}

// cronJobFlags are the job fields add and edit share.
type cronJobFlags struct {
	name, description, agent, session, sessionKey, wake    *string
	at, every, cron, tz, stagger                           *string
	message, systemEvent, model, thinking, timeoutSeconds  *string
	channel, to, account, catchUp                          *string
	exact, deleteAfterRun, keepAfterRun, lightContext      *bool
	announce, deliver, noDeliver, bestEffort, noBestEffort *bool
	noLightContext                                         *bool
}

func (fs *flagSet) cronJobFlags(edit bool) *cronJobFlags {
	f := &cronJobFlags{
		name:           fs.String("name", "", "job `name`"),
		description:    fs.String("description", "", "job description `text`"),
		agent:          fs.String("agent", "", "agent `id` that runs the job (default: the default agent)"),
		session:        fs.String("session", "", "session `target`: main, isolated, current or session:<key> (default: isolated for --message, main for --system-event)"),
		sessionKey:     fs.String("session-key", "", "session `key` for job routing"),
		wake:           fs.String("wake", "", "wake `mode`: now or next-heartbeat (default now)"),
		at:             fs.String("at", "", "run once at `when`: an ISO time (offset-less uses --tz) or a duration like 20m"),
		every:          fs.String("every", "", "run every `duration` (e.g. 10m, 1h)"),
		cron:           fs.String("cron", "", "cron `expr`ession (5 fields, or 6 with seconds)"),
		tz:             fs.String("tz", "", "IANA time `zone` of --cron and offset-less --at (default: the gateway's)"),
		stagger:        fs.String("stagger", "", "spread cron runs over a `duration` window (e.g. 30s, 5m)"),
		exact:          fs.Bool("exact", false, "no cron staggering (stagger 0)"),
		message:        fs.String("message", "", "agent `text` to run (an agent turn)"),
		systemEvent:    fs.String("system-event", "", "system event `text` for the main session"),
		model:          fs.String("model", "", "`model` for agent turns (provider/model or alias)"),
		thinking:       fs.String("thinking", "", "thinking `level` for agent turns"),
		timeoutSeconds: fs.String("timeout-seconds", "", "job timeout in `seconds` (0: none)"),
		lightContext:   fs.Bool("light-context", false, "lightweight bootstrap context for agent turns"),
		deleteAfterRun: fs.Bool("delete-after-run", false, "delete a one-shot job after it succeeds"),
		keepAfterRun:   fs.Bool("keep-after-run", false, "keep a one-shot job after it succeeds"),
		announce:       fs.Bool("announce", false, "deliver the final text to a chat"),
		deliver:        fs.Bool("deliver", false, "same as --announce (deprecated)"),
		noDeliver:      fs.Bool("no-deliver", false, "deliver nothing"),
		bestEffort:     fs.Bool("best-effort-deliver", false, "do not fail the job when delivery fails"),
		channel:        fs.String("channel", "", "delivery `channel` (last or a channel id; default last)"),
		to:             fs.String("to", "", "delivery `destination` (chat id, number, user)"),
		account:        fs.String("account", "", "channel account `id` for delivery"),
		catchUp:        fs.String("catch-up", "", "`mode` for runs missed while the gateway was down: once or skip"),
	}
	if edit {
		f.noBestEffort = fs.Bool("no-best-effort-deliver", false, "fail the job when delivery fails")
		f.noLightContext = fs.Bool("no-light-context", false, "full bootstrap context for agent turns")
	}
	return f
}

// cronEveryWords is a positional "every 10m" schedule.
var cronEveryWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^every\s+(.+)$`) })

// schedule reads the schedule flags (and a positional schedule) into
// a schedule object; nil when none is given.
func (f *cronJobFlags) schedule(fs *flagSet, positional string, now time.Time) (map[string]any, error) {
	at, every, expr := strings.TrimSpace(*f.at), strings.TrimSpace(*f.every), strings.TrimSpace(*f.cron)
	for _, n := range []string{"at", "every", "cron"} {
		if fs.isSet(n) && strings.TrimSpace(fs.Lookup(n).Value.String()) == "" {
			return nil, usageErrorf("--%s must not be blank", n)
		}
	}
	if positional != "" {
		// "every 10m", a five- or six-field cron expression, else a time.
		if m := cronEveryWords().FindStringSubmatch(positional); m != nil {
			every = strings.TrimSpace(m[1])
		} else if n := len(strings.Fields(positional)); n == 5 || n == 6 {
			expr = positional
		} else {
			at = positional
		}
	}
	chosen := 0
	for _, v := range []string{at, every, expr} {
		if v != "" {
			chosen++
		}
	}
	if chosen > 1 {
		return nil, usageErrorf("choose one schedule: --at, --every or --cron")
	}
	tz := strings.TrimSpace(*f.tz)
	var staggerMs *int64
	switch {
	case *f.exact && strings.TrimSpace(*f.stagger) != "":
		return nil, usageErrorf("choose --stagger or --exact, not both")
	case *f.exact:
		staggerMs = new(int64)
	case strings.TrimSpace(*f.stagger) != "":
		d, err := parseCronDuration("--stagger", *f.stagger)
		if err != nil {
			return nil, err
		}
		ms := d.Milliseconds()
		staggerMs = &ms
	}
	if tz != "" && every != "" {
		return nil, usageErrorf("--tz is only valid with --cron or an offset-less --at")
	}
	if staggerMs != nil && (at != "" || every != "") {
		return nil, usageErrorf("--stagger and --exact are only valid with --cron")
	}
	switch {
	case at != "":
		iso, err := parseCronAt(at, tz, now)
		if err != nil {
			return nil, err
		}
		return map[string]any{"kind": "at", "at": iso}, nil
	case every != "":
		d, err := parseCronDuration("--every", every)
		if err != nil {
			return nil, err
		}
		return map[string]any{"kind": "every", "everyMs": d.Milliseconds()}, nil
	case expr != "":
		s := map[string]any{"kind": "cron", "expr": expr}
		if tz != "" {
			s["tz"] = tz
		}
		if staggerMs != nil {
			s["staggerMs"] = *staggerMs
		}
		return s, nil
	}
	return nil, nil
}

// timeout reads --timeout-seconds, a non-negative integer.
func (f *cronJobFlags) timeout(fs *flagSet) (int, bool, error) {
	if !fs.isSet("timeout-seconds") {
		return 0, false, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(*f.timeoutSeconds))
	if err != nil || n < 0 {
		return 0, false, usageErrorf("--timeout-seconds must be a non-negative integer (got %q)", *f.timeoutSeconds)
	}
	return n, true, nil
}

// common checks the flags add and edit validate alike and puts the plain
// fields into p.
func (f *cronJobFlags) common(fs *flagSet, p map[string]any) error {
	if *f.deleteAfterRun && *f.keepAfterRun {
		return usageErrorf("choose --delete-after-run or --keep-after-run, not both")
	}
	if *f.deleteAfterRun {
		p["deleteAfterRun"] = true
	}
	if *f.keepAfterRun {
		p["deleteAfterRun"] = false
	}
	if fs.isSet("wake") {
		w := strings.TrimSpace(*f.wake)
		if w != "now" && w != "next-heartbeat" {
			return usageErrorf("--wake must be now or next-heartbeat (got %q)", *f.wake)
		}
		p["wakeMode"] = w
	}
	if fs.isSet("agent") {
		if strings.TrimSpace(*f.agent) == "" {
			return usageErrorf("--agent must not be blank")
		}
		p["agentId"] = strings.ToLower(strings.TrimSpace(*f.agent))
	}
	if fs.isSet("session-key") {
		if strings.TrimSpace(*f.sessionKey) == "" {
			return usageErrorf("--session-key must not be blank")
		}
		p["sessionKey"] = strings.TrimSpace(*f.sessionKey)
	}
	if fs.isSet("catch-up") {
		c := strings.TrimSpace(*f.catchUp)
		if c != "once" && c != "skip" {
			return usageErrorf("--catch-up must be once or skip (got %q)", *f.catchUp)
		}
		p["catchUp"] = c
	}
	if (*f.announce || *f.deliver) && *f.noDeliver {
		return usageErrorf("choose --announce or --no-deliver, not both")
	}
	return nil
}

// isolatedLike reports whether a session target runs in its own session.
func isolatedLike(target string) bool { return target != "main" }

func runCronAdd(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw cron add [NAME] (--at WHEN | --every DUR | --cron EXPR) (--message TEXT | --system-event TEXT) [flags]\n"+
		"       openclaw cron add SCHEDULE MESSAGE --name NAME [flags]")
	g := fs.gatewayFlags()
	f := fs.cronJobFlags(false)
	disabled := fs.Bool("disabled", false, "create the job disabled")
	pos, err := fs.parse(args, 0, 2)
	if err != nil {
		return err
	}
	params, err := cronAddParams(fs, f, *disabled, pos, cronNow())
	if err != nil {
		return err
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "cron.add", adminScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return printCronSaved(a.stdout, "Added", out, "")
}

// cronAddParams builds cron.add params the way the real CLI does: the
// session target follows the payload unless --session says otherwise,
// and an isolated agent turn announces to the last chat by default.
func cronAddParams(fs *flagSet, f *cronJobFlags, disabled bool, pos []string, now time.Time) (map[string]any, error) {
	var nameArg, messageArg string
	if len(pos) > 0 {
		nameArg = strings.TrimSpace(pos[0])
	}
	if len(pos) > 1 {
		messageArg = strings.TrimSpace(pos[1])
	}
	hasScheduleFlag := fs.isSet("at") || fs.isSet("every") || fs.isSet("cron")
	positionalSchedule := ""
	if !hasScheduleFlag {
		positionalSchedule = nameArg
	}
	schedule, err := f.schedule(fs, positionalSchedule, now)
	if err != nil {
		return nil, err
	}
	if schedule == nil {
		return nil, usageErrorf("missing schedule: give --at, --every or --cron (usage: %s)", fs.usage)
	}
	p := map[string]any{"enabled": !disabled, "schedule": schedule, "wakeMode": "now"}
	if err := f.common(fs, p); err != nil {
		return nil, err
	}

	message, event := strings.TrimSpace(*f.message), strings.TrimSpace(*f.systemEvent)
	if message != "" && messageArg != "" && message != messageArg {
		return nil, usageErrorf("pass the message either as an argument or with --message, not both")
	}
	message = cmp.Or(message, messageArg)
	if (message == "") == (event == "") {
		return nil, usageErrorf("choose one payload: --message or --system-event")
	}
	timeout, hasTimeout, err := f.timeout(fs)
	if err != nil {
		return nil, err
	}
	var payload map[string]any
	if event != "" {
		if hasTimeout {
			return nil, usageErrorf("--timeout-seconds is not supported for --system-event jobs")
		}
		payload = map[string]any{"kind": "systemEvent", "text": event}
	} else {
		payload = map[string]any{"kind": "agentTurn", "message": message}
		f.agentFields(payload)
		if hasTimeout {
			payload["timeoutSeconds"] = timeout
		}
		if *f.lightContext {
			payload["lightContext"] = true
		}
	}
	p["payload"] = payload

	target := "main"
	if event == "" {
		target = "isolated"
	}
	if fs.isSet("session") {
		if target, err = cronSessionTarget(*f.session); err != nil {
			return nil, err
		}
	}
	p["sessionTarget"] = target
	switch {
	case target == "main" && event == "":
		return nil, usageErrorf("--session main needs --system-event; an agent --message runs in --session isolated")
	case isolatedLike(target) && event != "":
		return nil, usageErrorf("--session %s needs --message; a --system-event runs in --session main", target)
	case target == "main" && (*f.announce || *f.deliver || *f.noDeliver):
		return nil, usageErrorf("--announce and --no-deliver need an isolated --message job")
	case target == "main" && (fs.isSet("channel") || fs.isSet("to") || fs.isSet("account")):
		return nil, usageErrorf("--channel, --to and --account need an isolated --message job")
	}
	if isolatedLike(target) {
		mode := "announce"
		if *f.noDeliver {
			mode = "none"
		}
		d := map[string]any{"mode": mode, "channel": cmp.Or(strings.TrimSpace(*f.channel), "last")}
		setTrimmed(d, "to", *f.to)
		setTrimmed(d, "accountId", *f.account)
		if *f.bestEffort {
			d["bestEffort"] = true
		}
		p["delivery"] = d
	}

	name := strings.TrimSpace(*f.name)
	positionalName := ""
	if hasScheduleFlag {
		positionalName = nameArg
	}
	if name != "" && positionalName != "" && name != positionalName {
		return nil, usageErrorf("pass the name either as an argument or with --name, not both")
	}
	if name = cmp.Or(name, positionalName); name == "" {
		return nil, usageErrorf("a job name is required: pass it as the first argument or with --name")
	}
	p["name"] = name
	setTrimmed(p, "description", *f.description)
	return p, nil
}

// agentFields puts --model and --thinking into an agentTurn payload.
func (f *cronJobFlags) agentFields(payload map[string]any) {
	setTrimmed(payload, "model", *f.model)
	setTrimmed(payload, "thinking", *f.thinking)
}

// setTrimmed sets m[key] to v trimmed, unless that is empty.
func setTrimmed(m map[string]any, key, v string) {
	if v = strings.TrimSpace(v); v != "" {
		m[key] = v
	}
}
