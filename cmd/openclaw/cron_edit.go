package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// cronEditFlags are the flags only edit has.
type cronEditFlags struct {
	enable, disable                                 *bool
	clearAgent, clearSessionKey, clearModel         *bool
	clearThinking, clearChannel, clearTo, clearAcct *bool
}

func runCronEdit(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw cron edit ID [job flags as for add] [--enable|--disable] [--clear-...] [gateway flags]")
	g := fs.gatewayFlags()
	f := fs.cronJobFlags(true)
	e := &cronEditFlags{
		enable:          fs.Bool("enable", false, "enable the job"),
		disable:         fs.Bool("disable", false, "disable the job"),
		clearAgent:      fs.Bool("clear-agent", false, "run with the default agent"),
		clearSessionKey: fs.Bool("clear-session-key", false, "unset the session key"),
		clearModel:      fs.Bool("clear-model", false, "unset the model override"),
		clearThinking:   fs.Bool("clear-thinking", false, "unset the thinking override"),
		clearChannel:    fs.Bool("clear-channel", false, "unset the delivery channel"),
		clearTo:         fs.Bool("clear-to", false, "unset the delivery destination"),
		clearAcct:       fs.Bool("clear-account", false, "unset the delivery account"),
	}
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	id := pos[0]
	// Catch bad flags before connecting; the patch is built again below
	// once the current job is known, if it is needed.
	if _, err := cronEditPatch(fs, f, e, nil, cronNow()); err != nil && !errors.Is(err, errNeedJob) {
		return err
	}
	scopes := adminScope
	needJob := cronEditNeedsJob(fs, f)
	if needJob {
		scopes = append(slices.Clone(adminScope), readScope...)
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(ctx, g, scopes)
	if err != nil {
		return err
	}
	defer s.Close()
	var current *cronJob
	if needJob {
		current = new(cronJob)
		if err := s.call(ctx, "cron.get", map[string]any{"id": id}, current, false); err != nil {
			return err
		}
	}
	patch, err := cronEditPatch(fs, f, e, current, cronNow())
	if err != nil {
		return err
	}
	params := map[string]any{"id": id, "patch": patch}
	if current != nil && current.ConfigRevision != "" {
		// Refuse the edit if someone changed the job since it was read.
		params["expectedConfigRevision"] = current.ConfigRevision
	}
	var out json.RawMessage
	if err := s.call(ctx, "cron.update", params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return printCronSaved(a.stdout, "Updated", out, id)
}

// errNeedJob means the patch depends on the job as it is now.
var errNeedJob = errors.New("the current job is needed")

// cronEditNeedsJob reports whether the patch depends on the current job:
// a new --cron keeps the job's time zone, --tz/--stagger/--exact alone
// change the job's cron schedule, and --timeout-seconds alone goes into
// the job's payload kind.
func cronEditNeedsJob(fs *flagSet, f *cronJobFlags) bool {
	direct := fs.isSet("at") || fs.isSet("every") || fs.isSet("cron")
	switch {
	case fs.isSet("cron") && !fs.isSet("tz"):
		return true
	case !direct && (fs.isSet("tz") || fs.isSet("stagger") || *f.exact):
		return true
	}
	return fs.isSet("timeout-seconds") && !f.agentTurnEdit(fs) && !fs.isSet("system-event")
}

// agentTurnEdit reports whether an agentTurn-only field is edited.
func (f *cronJobFlags) agentTurnEdit(fs *flagSet) bool {
	for _, n := range []string{"message", "light-context", "no-light-context", "clear-model", "clear-thinking"} {
		if fs.isSet(n) {
			return true
		}
	}
	return strings.TrimSpace(*f.model) != "" || strings.TrimSpace(*f.thinking) != ""
}

// cronEditPatch builds the cron.update patch from the flags given: only
// what they set. current is the job as it is, when cronEditNeedsJob; nil
// makes such a patch fail with errNeedJob.
func cronEditPatch(fs *flagSet, f *cronJobFlags, e *cronEditFlags, current *cronJob, now time.Time) (map[string]any, error) {
	p := map[string]any{}
	if fs.isSet("name") {
		p["name"] = *f.name
	}
	if fs.isSet("description") {
		p["description"] = *f.description
	}
	if *e.enable && *e.disable {
		return nil, usageErrorf("choose --enable or --disable, not both")
	}
	if *e.enable || *e.disable {
		p["enabled"] = *e.enable
	}
	if err := f.common(fs, p); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		set, clear bool
		flag, key  string
	}{
		{fs.isSet("agent"), *e.clearAgent, "agent", "agentId"},
		{fs.isSet("session-key"), *e.clearSessionKey, "session-key", "sessionKey"},
	} {
		if c.set && c.clear {
			return nil, usageErrorf("use --%s or --clear-%s, not both", c.flag, c.flag)
		}
		if c.clear {
			p[c.key] = nil
		}
	}
	var target string
	if fs.isSet("session") {
		var err error
		if target, err = cronSessionTarget(*f.session); err != nil {
			return nil, err
		}
		p["sessionTarget"] = target
	}
	if target == "main" && fs.isSet("message") {
		return nil, usageErrorf("--session main cannot take --message; use --system-event or --session isolated")
	}
	if target != "" && isolatedLike(target) && fs.isSet("system-event") {
		return nil, usageErrorf("--session %s cannot take --system-event; use --message or --session main", target)
	}

	schedule, err := f.schedule(fs, "", now)
	if err != nil {
		return nil, err
	}
	var staggerMs *int64
	if *f.exact {
		staggerMs = new(int64)
	} else if fs.isSet("stagger") {
		d, _ := parseCronDuration("--stagger", *f.stagger) // checked by schedule
		ms := d.Milliseconds()
		staggerMs = &ms
	}
	tz := strings.TrimSpace(*f.tz)
	switch {
	case schedule != nil && schedule["kind"] == "cron" && !fs.isSet("tz"):
		if current == nil {
			return nil, errNeedJob
		}
		if current.Schedule.Kind == "cron" && current.Schedule.Tz != "" {
			schedule["tz"] = current.Schedule.Tz
		}
	case schedule == nil && (fs.isSet("tz") || staggerMs != nil):
		if current == nil {
			return nil, errNeedJob
		}
		cur := current.Schedule
		if cur.Kind != "cron" {
			return nil, usageErrorf("--tz, --stagger and --exact alone change a cron schedule, and job %s is not one; give --cron", current.ID)
		}
		schedule = map[string]any{"kind": "cron", "expr": cur.Expr}
		if tz = cmp.Or(tz, cur.Tz); tz != "" {
			schedule["tz"] = tz
		}
		if staggerMs == nil {
			staggerMs = cur.StaggerMs
		}
		if staggerMs != nil {
			schedule["staggerMs"] = *staggerMs
		}
	}
	if schedule != nil {
		p["schedule"] = schedule
	}

	payload, err := f.payloadPatch(fs, e, current)
	if err != nil {
		return nil, err
	}
	if payload != nil {
		p["payload"] = payload
	}
	delivery, err := f.deliveryPatch(fs, e)
	if err != nil {
		return nil, err
	}
	if delivery != nil {
		p["delivery"] = delivery
	}
	if len(p) == 0 {
		return nil, usageErrorf("nothing to change: give at least one flag (usage: %s)", fs.usage)
	}
	return p, nil
}

// payloadPatch is the payload part of an edit: fields of one payload kind.
func (f *cronJobFlags) payloadPatch(fs *flagSet, e *cronEditFlags, current *cronJob) (map[string]any, error) {
	timeout, hasTimeout, err := f.timeout(fs)
	if err != nil {
		return nil, err
	}
	if fs.isSet("model") && *e.clearModel {
		return nil, usageErrorf("use --model or --clear-model, not both")
	}
	if fs.isSet("thinking") && *e.clearThinking {
		return nil, usageErrorf("use --thinking or --clear-thinking, not both")
	}
	if *f.lightContext && *f.noLightContext {
		return nil, usageErrorf("choose --light-context or --no-light-context, not both")
	}
	event, agent := fs.isSet("system-event"), f.agentTurnEdit(fs)
	switch {
	case event && agent:
		return nil, usageErrorf("choose at most one payload change: --system-event or the agent turn flags")
	case event && hasTimeout:
		return nil, usageErrorf("--timeout-seconds is not supported for --system-event jobs")
	case event:
		return map[string]any{"kind": "systemEvent", "text": *f.systemEvent}, nil
	case !agent && !hasTimeout:
		return nil, nil
	case !agent:
		if current == nil {
			return nil, errNeedJob
		}
		if k := current.Payload.Kind; k != "agentTurn" {
			return nil, usageErrorf("--timeout-seconds is not supported for %s jobs", orDash(k))
		}
	}
	payload := map[string]any{"kind": "agentTurn"}
	if fs.isSet("message") {
		payload["message"] = *f.message
	}
	f.agentFields(payload)
	if *e.clearModel {
		payload["model"] = nil
	}
	if *e.clearThinking {
		payload["thinking"] = nil
	}
	if hasTimeout {
		payload["timeoutSeconds"] = timeout
	}
	if *f.lightContext || *f.noLightContext {
		payload["lightContext"] = *f.lightContext
	}
	return payload, nil
}

// deliveryPatch is the delivery part of an edit; nil when no delivery
// flag is given.
func (f *cronJobFlags) deliveryPatch(fs *flagSet, e *cronEditFlags) (map[string]any, error) {
	if *f.bestEffort && *f.noBestEffort {
		return nil, usageErrorf("choose --best-effort-deliver or --no-best-effort-deliver, not both")
	}
	d := map[string]any{}
	switch {
	case *f.announce || *f.deliver:
		d["mode"] = "announce"
	case *f.noDeliver:
		d["mode"] = "none"
	case *f.bestEffort:
		// Best effort alone means delivering, as in the real CLI.
		d["mode"] = "announce"
	}
	for _, c := range []struct {
		flag, key string
		clear     bool
	}{
		{"channel", "channel", *e.clearChannel},
		{"to", "to", *e.clearTo},
		{"account", "accountId", *e.clearAcct},
	} {
		set := fs.isSet(c.flag)
		if set && c.clear {
			return nil, usageErrorf("use --%s or --clear-%s, not both", c.flag, c.flag)
		}
		if c.clear {
			d[c.key] = nil
		} else if set {
			setTrimmed(d, c.key, fs.Lookup(c.flag).Value.String())
		}
	}
	if *f.bestEffort || *f.noBestEffort {
		d["bestEffort"] = *f.bestEffort
	}
	if len(d) == 0 {
		return nil, nil
	}
	return d, nil
}
