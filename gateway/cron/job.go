package cron

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Job is one scheduled job, in the shape OpenClaw's cron.* methods carry
// (CronJob in its protocol schema). CatchUp is ours.
type Job struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Description    string    `json:"description,omitempty"`
	Enabled        bool      `json:"enabled"`
	DeleteAfterRun bool      `json:"deleteAfterRun,omitempty"`
	CreatedAtMs    int64     `json:"createdAtMs"`
	UpdatedAtMs    int64     `json:"updatedAtMs"`
	AgentID        string    `json:"agentId,omitempty"`
	SessionKey     string    `json:"sessionKey,omitempty"`
	Owner          *Owner    `json:"owner,omitempty"`
	Schedule       Schedule  `json:"schedule"`
	SessionTarget  string    `json:"sessionTarget"`
	WakeMode       string    `json:"wakeMode"`
	Payload        Payload   `json:"payload"`
	Delivery       *Delivery `json:"delivery,omitempty"`
	// CatchUp decides what a run missed while the gateway was down does
	// at the next start: "once" runs it once (the default), "skip" records
	// it as skipped and waits for the next time.
	CatchUp string `json:"catchUp,omitempty"`
	// FailureAlert is false (never alert) or when and where to say that
	// the job keeps failing; nil means cron.failureAlert's defaults.
	FailureAlert *FailureAlert `json:"failureAlert,omitempty"`
	// System jobs (heartbeats) are made from the config and cannot be
	// edited over the bus.
	System bool  `json:"system,omitempty"`
	State  State `json:"state"`
	// NextRunAtMs mirrors state.nextRunAtMs at the top level, where
	// OpenClaw's clients also read it.
	NextRunAtMs *int64 `json:"nextRunAtMs,omitempty"`
}

// Owner is who made a job from inside a conversation. A job never runs
// with more rights than its owner: its runs use the owner's agent and
// sub-agent depth, and deliver only to the owner's chat.
type Owner struct {
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	AccountID  string `json:"accountId,omitempty"`
	// Depth is the owner session's sub-agent depth (ours).
	Depth int `json:"depth,omitempty"`
}

// Schedule says when a job runs.
type Schedule struct {
	Kind      string `json:"kind"`                // at | every | cron
	At        string `json:"at,omitempty"`        // at: a timestamp
	EveryMs   int64  `json:"everyMs,omitempty"`   // every: the interval
	AnchorMs  *int64 `json:"anchorMs,omitempty"`  // every: a time the intervals count from
	Expr      string `json:"expr,omitempty"`      // cron: 5 or 6 fields
	TZ        string `json:"tz,omitempty"`        // cron: IANA zone; default the gateway's
	StaggerMs *int64 `json:"staggerMs,omitempty"` // cron: spread; nil = automatic
}

// Payload is what a run does.
type Payload struct {
	Kind           string   `json:"kind"` // systemEvent | agentTurn | heartbeat
	Text           string   `json:"text,omitempty"`
	Message        string   `json:"message,omitempty"`
	Model          string   `json:"model,omitempty"`
	Fallbacks      []string `json:"fallbacks,omitempty"`
	Thinking       string   `json:"thinking,omitempty"`
	TimeoutSeconds float64  `json:"timeoutSeconds,omitempty"`
	LightContext   bool     `json:"lightContext,omitempty"`
	ToolsAllow     []string `json:"toolsAllow,omitempty"`
}

// FailureAlert is a job's failureAlert: the JSON false, or an object.
type FailureAlert struct {
	Off            bool   `json:"-"`
	After          int    `json:"after,omitempty"`
	Channel        string `json:"channel,omitempty"`
	To             string `json:"to,omitempty"`
	CooldownMs     *int64 `json:"cooldownMs,omitempty"`
	IncludeSkipped bool   `json:"includeSkipped,omitempty"`
	Mode           string `json:"mode,omitempty"`
	AccountID      string `json:"accountId,omitempty"`
}

type failureAlertFields FailureAlert

// UnmarshalJSON reads false or an object (true is refused: OpenClaw's
// schema allows only false).
func (f *FailureAlert) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "false" {
		*f = FailureAlert{Off: true}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var v failureAlertFields
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("failureAlert must be false or {after, channel, to, cooldownMs, accountId, mode, includeSkipped}: %w", rpc.DecodeError(err))
	}
	*f = FailureAlert(v)
	return nil
}

// MarshalJSON writes false for an alert turned off.
func (f FailureAlert) MarshalJSON() ([]byte, error) {
	if f.Off {
		return []byte("false"), nil
	}
	return json.Marshal(failureAlertFields(f))
}

// Delivery says where a run's result goes.
type Delivery struct {
	Mode       string          `json:"mode"` // announce | webhook (to is the URL) | none
	Channel    string          `json:"channel,omitempty"`
	To         string          `json:"to,omitempty"`
	AccountID  string          `json:"accountId,omitempty"`
	ThreadID   json.RawMessage `json:"threadId,omitempty"`
	BestEffort bool            `json:"bestEffort,omitempty"`
}

// Thread returns threadId as text (the wire allows a string or a number).
func (d *Delivery) Thread() string {
	if d == nil || len(d.ThreadID) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(d.ThreadID, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(d.ThreadID))
}

// State is what the scheduler knows about a job.
type State struct {
	NextRunAtMs        *int64 `json:"nextRunAtMs,omitempty"`
	RunningAtMs        *int64 `json:"runningAtMs,omitempty"`
	LastRunAtMs        *int64 `json:"lastRunAtMs,omitempty"`
	LastRunStatus      string `json:"lastRunStatus,omitempty"`
	LastStatus         string `json:"lastStatus,omitempty"` // the old name, still read by older clients
	LastError          string `json:"lastError,omitempty"`
	LastDurationMs     *int64 `json:"lastDurationMs,omitempty"`
	ConsecutiveErrors  int    `json:"consecutiveErrors"`
	ConsecutiveSkipped int    `json:"consecutiveSkipped,omitempty"`
	LastDelivered      *bool  `json:"lastDelivered,omitempty"`
	LastDeliveryStatus string `json:"lastDeliveryStatus,omitempty"`
	LastDeliveryError  string `json:"lastDeliveryError,omitempty"`
}

// Values of the enumerations.
const (
	KindAt    = "at"
	KindEvery = "every"
	KindCron  = "cron"

	PayloadSystemEvent = "systemEvent"
	PayloadAgentTurn   = "agentTurn"
	PayloadHeartbeat   = "heartbeat"

	TargetMain     = "main"
	TargetIsolated = "isolated"
	TargetCurrent  = "current"

	WakeNow           = "now"
	WakeNextHeartbeat = "next-heartbeat"

	CatchUpOnce = "once"
	CatchUpSkip = "skip"

	StatusOK      = "ok"
	StatusError   = "error"
	StatusSkipped = "skipped"
)

// MinEvery is the shortest interval an every job may have: anything
// shorter would keep a model busy without pause.
const MinEvery = time.Second

// jobInput is cron.add's params and the cron tool's job object.
type jobInput struct {
	Name           string        `json:"name"`
	Description    string        `json:"description"`
	DisplayName    string        `json:"displayName"`
	Enabled        *bool         `json:"enabled"`
	DeleteAfterRun *bool         `json:"deleteAfterRun"`
	AgentID        string        `json:"agentId"`
	SessionKey     string        `json:"sessionKey"`
	Owner          *Owner        `json:"owner"`
	Schedule       *Schedule     `json:"schedule"`
	SessionTarget  string        `json:"sessionTarget"`
	WakeMode       string        `json:"wakeMode"`
	Payload        *Payload      `json:"payload"`
	Delivery       *Delivery     `json:"delivery"`
	CatchUp        string        `json:"catchUp"`
	FailureAlert   *FailureAlert `json:"failureAlert"`
	DeclarationKey string        `json:"declarationKey"`
}

// newJob validates an add request and fills in the defaults the way
// OpenClaw does: enabled, systemEvent → main, agentTurn → isolated,
// wake now, one-shots deleted after a successful run.
func newJob(in jobInput, id string, now time.Time) (Job, error) {
	j := Job{
		ID: id, Name: strings.TrimSpace(in.Name), Description: in.Description, Enabled: true,
		CreatedAtMs: now.UnixMilli(), UpdatedAtMs: now.UnixMilli(),
		AgentID: in.AgentID, SessionKey: in.SessionKey, Owner: in.Owner,
		SessionTarget: in.SessionTarget, WakeMode: in.WakeMode, Delivery: in.Delivery, CatchUp: in.CatchUp,
		FailureAlert: in.FailureAlert,
	}
	if j.Name == "" {
		j.Name = strings.TrimSpace(in.DisplayName)
	}
	if in.Enabled != nil {
		j.Enabled = *in.Enabled
	}
	if in.Schedule == nil {
		return j, errors.New("schedule is required")
	}
	if in.Payload == nil {
		return j, errors.New("payload is required")
	}
	j.Schedule, j.Payload = *in.Schedule, *in.Payload
	if j.SessionTarget == "" {
		j.SessionTarget = TargetIsolated
		if j.Payload.Kind == PayloadSystemEvent {
			j.SessionTarget = TargetMain
		}
	}
	if j.WakeMode == "" {
		j.WakeMode = WakeNow
	}
	if in.DeleteAfterRun != nil {
		j.DeleteAfterRun = *in.DeleteAfterRun
	} else if j.Schedule.Kind == KindAt {
		j.DeleteAfterRun = true
	}
	if j.Name == "" {
		j.Name = defaultName(j)
	}
	return j, j.validate(now)
}

func defaultName(j Job) string {
	text := j.Payload.Message
	if text == "" {
		text = j.Payload.Text
	}
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > 40 {
		text = string(r[:40]) + "…"
	}
	if text == "" {
		text = j.Payload.Kind
	}
	return text
}

// validate checks a whole job; every message names the field.
func (j Job) validate(now time.Time) error {
	if j.Name == "" {
		return errors.New("name is required")
	}
	if err := j.Schedule.validate(now); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	switch j.Payload.Kind {
	case PayloadSystemEvent:
		if strings.TrimSpace(j.Payload.Text) == "" {
			return errors.New("payload.text is required for a systemEvent payload")
		}
	case PayloadAgentTurn:
		if strings.TrimSpace(j.Payload.Message) == "" {
			return errors.New("payload.message is required for an agentTurn payload")
		}
		if j.Payload.TimeoutSeconds < 0 {
			return errors.New("payload.timeoutSeconds must not be negative")
		}
	case PayloadHeartbeat:
		if !j.System {
			return errors.New("payload kind heartbeat is owned by the gateway: set agents.defaults.heartbeat instead")
		}
	case "command", "script":
		return fmt.Errorf("payload.kind %q is not supported by this gateway: use an agentTurn whose agent may run exec", j.Payload.Kind)
	case "":
		return errors.New("payload.kind is required (systemEvent or agentTurn)")
	default:
		return fmt.Errorf("payload.kind %q is unknown (systemEvent or agentTurn)", j.Payload.Kind)
	}
	switch t := j.SessionTarget; {
	case t == TargetMain, t == TargetIsolated, t == TargetCurrent:
	case strings.HasPrefix(t, "session:") && len(t) > len("session:"):
	default:
		return fmt.Errorf("sessionTarget %q is unknown (main, isolated, current or session:<key>)", t)
	}
	if j.SessionTarget == TargetCurrent && j.SessionKey == "" && (j.Owner == nil || j.Owner.SessionKey == "") {
		return errors.New(`sessionTarget "current" needs the session the job was made in (sessionKey)`)
	}
	if j.SessionTarget == TargetIsolated && j.Payload.Kind == PayloadSystemEvent {
		return errors.New(`a systemEvent payload goes to an existing session: use sessionTarget "main" (or an agentTurn payload for an isolated run)`)
	}
	if j.SessionTarget == TargetMain && j.Payload.Kind == PayloadAgentTurn {
		return errors.New(`an agentTurn payload runs in its own session: use sessionTarget "isolated", "current" or "session:<key>" (systemEvent goes to "main")`)
	}
	if j.WakeMode != WakeNow && j.WakeMode != WakeNextHeartbeat {
		return fmt.Errorf("wakeMode %q is unknown (now or next-heartbeat)", j.WakeMode)
	}
	if j.CatchUp != "" && j.CatchUp != CatchUpOnce && j.CatchUp != CatchUpSkip {
		return fmt.Errorf("catchUp %q is unknown (once or skip)", j.CatchUp)
	}
	if fa := j.FailureAlert; fa != nil && !fa.Off {
		if fa.After < 0 || fa.CooldownMs != nil && *fa.CooldownMs < 0 {
			return errors.New("failureAlert.after and failureAlert.cooldownMs must not be negative")
		}
		if fa.Mode != "" && fa.Mode != "announce" {
			return fmt.Errorf("failureAlert.mode %q is not supported by this gateway (announce)", fa.Mode)
		}
	}
	if d := j.Delivery; d != nil {
		switch d.Mode {
		case "announce", "none":
		case "webhook":
			if u, err := url.Parse(d.To); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return errors.New(`delivery.mode "webhook" needs delivery.to set to an http(s) URL`)
			}
		default:
			return fmt.Errorf("delivery.mode %q is unknown (announce, webhook or none)", d.Mode)
		}
		if d.Mode == "announce" && d.To == "" && d.Channel != "" && d.Channel != "last" {
			return errors.New("delivery.to is required when delivery.channel names a channel")
		}
	}
	return nil
}

// catchUp is the effective catch-up policy.
func (j Job) catchUp() string {
	if j.CatchUp == "" {
		if j.Payload.Kind == PayloadHeartbeat {
			return CatchUpSkip
		}
		return CatchUpOnce
	}
	return j.CatchUp
}

// patch applies cron.update's patch: top-level keys replace, payload and
// delivery merge field by field, schedule is replaced whole.
func (j Job) patch(raw json.RawMessage, now time.Time) (Job, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return j, errors.New("patch must be a JSON object")
	}
	for k := range keys {
		switch k {
		case "id", "createdAtMs", "updatedAtMs", "state", "system", "owner":
			return j, fmt.Errorf("patch.%s cannot be changed", k)
		}
	}
	var in jobInput
	if err := rpc.DecodeStrict(raw, &in); err != nil {
		return j, fmt.Errorf("patch: %w", err)
	}
	out := j
	set := func(k string) bool { _, ok := keys[k]; return ok }
	if set("name") {
		out.Name = strings.TrimSpace(in.Name)
	}
	if set("description") {
		out.Description = in.Description
	}
	if set("enabled") && in.Enabled != nil {
		out.Enabled = *in.Enabled
	}
	if set("deleteAfterRun") && in.DeleteAfterRun != nil {
		out.DeleteAfterRun = *in.DeleteAfterRun
	}
	if set("agentId") {
		out.AgentID = in.AgentID
	}
	if set("sessionKey") {
		out.SessionKey = in.SessionKey
	}
	if set("sessionTarget") {
		out.SessionTarget = in.SessionTarget
	}
	if set("wakeMode") {
		out.WakeMode = in.WakeMode
	}
	if set("catchUp") {
		out.CatchUp = in.CatchUp
	}
	if set("failureAlert") {
		out.FailureAlert = in.FailureAlert
	}
	if set("schedule") {
		if in.Schedule == nil {
			return j, errors.New("patch.schedule cannot be null")
		}
		out.Schedule = *in.Schedule
	}
	if set("payload") && in.Payload != nil {
		if err := mergeInto(&out.Payload, keys["payload"]); err != nil {
			return j, fmt.Errorf("patch.payload: %w", err)
		}
		if in.Payload.Kind != "" && in.Payload.Kind != j.Payload.Kind {
			out.Payload = *in.Payload // a new kind starts from scratch
		}
	}
	if set("delivery") {
		if in.Delivery == nil {
			out.Delivery = nil
		} else if out.Delivery == nil {
			out.Delivery = in.Delivery
		} else {
			d := *out.Delivery
			if err := mergeInto(&d, keys["delivery"]); err != nil {
				return j, fmt.Errorf("patch.delivery: %w", err)
			}
			out.Delivery = &d
		}
	}
	out.UpdatedAtMs = now.UnixMilli()
	return out, out.validate(now)
}

// mergeInto decodes raw over v, so keys raw lacks keep their values.
func mergeInto(v any, raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return rpc.DecodeError(err)
	}
	return nil
}
