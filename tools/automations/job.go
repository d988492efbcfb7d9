package automations

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Job is add's job argument: the JSON the model sent, passed to the
// scheduler untouched. Its schema is jobShape's, so the model sees every
// field with its defaults; the scheduler does the validating.
type Job json.RawMessage

// Patch is update's patch argument, kept as sent like Job.
type Patch json.RawMessage

// UnmarshalJSON keeps the value as it was written.
func (j *Job) UnmarshalJSON(b []byte) error { *j = append((*j)[:0], b...); return nil }

// UnmarshalJSON keeps the value as it was written.
func (p *Patch) UnmarshalJSON(b []byte) error { *p = append((*p)[:0], b...); return nil }

// MarshalJSON writes the value back as it came.
func (j Job) MarshalJSON() ([]byte, error) { return rawOrNull(j), nil }

// MarshalJSON writes the value back as it came.
func (p Patch) MarshalJSON() ([]byte, error) { return rawOrNull(p), nil }

func rawOrNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

// JSONSchemaAlias makes the schema describe a job rather than raw bytes.
func (Job) JSONSchemaAlias() any { return jobShape{} }

// JSONSchemaAlias makes the schema describe a patch rather than raw bytes.
func (Patch) JSONSchemaAlias() any { return patchShape{} }

// jobShape documents a job for the schema only; it is never decoded into.
// It follows OpenClaw's CronAddParams minus what the gateway sets itself
// (agentId, owner, sessionKey) and the kinds this gateway does not run.
type jobShape struct {
	Name           string         `json:"name,omitempty" jsonschema:"description=Short label (default: the start of the text or message)"`
	Description    string         `json:"description,omitempty"`
	Schedule       scheduleShape  `json:"schedule" jsonschema:"description=When it runs"`
	SessionTarget  string         `json:"sessionTarget,omitempty" jsonschema:"description=Where it runs: main (your main session; for systemEvent) or isolated (a fresh session per run; the default for agentTurn) or current (this conversation) or session:<key>. Use current to run in this conversation."`
	WakeMode       string         `json:"wakeMode,omitempty" jsonschema:"enum=now,enum=next-heartbeat,description=now (default) wakes the agent at once; next-heartbeat waits for the next heartbeat"`
	Payload        payloadShape   `json:"payload" jsonschema:"description=What a run does"`
	Delivery       *deliveryShape `json:"delivery,omitempty" jsonschema:"description=Where an agentTurn's final answer goes"`
	DeleteAfterRun *bool          `json:"deleteAfterRun,omitempty" jsonschema:"description=Delete the job after a successful run (default: true for at and false otherwise)"`
	Enabled        *bool          `json:"enabled,omitempty" jsonschema:"description=Default true"`
	CatchUp        string         `json:"catchUp,omitempty" jsonschema:"enum=once,enum=skip,description=A run missed while the gateway was down: once (default) runs it once at start; skip waits for the next time"`
}

// patchShape is jobShape with every field optional.
type patchShape struct {
	Name           string         `json:"name,omitempty"`
	Description    string         `json:"description,omitempty"`
	Schedule       *scheduleShape `json:"schedule,omitempty" jsonschema:"description=Replaces the whole schedule"`
	SessionTarget  string         `json:"sessionTarget,omitempty"`
	WakeMode       string         `json:"wakeMode,omitempty" jsonschema:"enum=now,enum=next-heartbeat"`
	Payload        *patchPayload  `json:"payload,omitempty" jsonschema:"description=Merged field by field; a new kind starts from scratch"`
	Delivery       *patchDelivery `json:"delivery,omitempty" jsonschema:"description=Merged field by field; mode none stops announcing"`
	DeleteAfterRun *bool          `json:"deleteAfterRun,omitempty"`
	Enabled        *bool          `json:"enabled,omitempty" jsonschema:"description=false pauses the job and true resumes it"`
	CatchUp        string         `json:"catchUp,omitempty" jsonschema:"enum=once,enum=skip"`
}

type scheduleShape struct {
	Kind    string `json:"kind" jsonschema:"enum=at,enum=every,enum=cron,description=at (once) or every (fixed interval) or cron (calendar)"`
	At      string `json:"at,omitempty" jsonschema:"description=at: an ISO time such as 2026-12-01T09:00:00+01:00 (no offset means UTC) or a duration from now like 20m or 2h"`
	EveryMs int64  `json:"everyMs,omitempty" jsonschema:"description=every: the interval in milliseconds (3600000 is hourly)"`
	Expr    string `json:"expr,omitempty" jsonschema:"description=cron: five fields (minute hour day month weekday) such as 0 9 * * 1-5"`
	TZ      string `json:"tz,omitempty" jsonschema:"description=cron: IANA time zone such as Europe/Berlin (default: the gateway's)"`
}

type payloadShape struct {
	Kind string `json:"kind" jsonschema:"enum=systemEvent,enum=agentTurn,description=systemEvent puts text in the main session as a note (no model call by itself); agentTurn runs the agent with message"`
	payloadFields
}

// patchPayload is payloadShape with kind optional.
type patchPayload struct {
	Kind string `json:"kind,omitempty" jsonschema:"enum=systemEvent,enum=agentTurn"`
	payloadFields
}

type payloadFields struct {
	Text           string   `json:"text,omitempty" jsonschema:"description=systemEvent: the note"`
	Message        string   `json:"message,omitempty" jsonschema:"description=agentTurn: the prompt; write it so it makes sense without this conversation"`
	Model          string   `json:"model,omitempty" jsonschema:"description=agentTurn: provider/model to use instead of the agent's"`
	Thinking       string   `json:"thinking,omitempty" jsonschema:"description=agentTurn: thinking level"`
	TimeoutSeconds float64  `json:"timeoutSeconds,omitempty" jsonschema:"description=agentTurn: how long a run may take"`
	LightContext   bool     `json:"lightContext,omitempty" jsonschema:"description=agentTurn: start with a smaller system prompt"`
	ToolsAllow     []string `json:"toolsAllow,omitempty" jsonschema:"description=Only these tools in the run"`
}

type deliveryShape struct {
	Mode string `json:"mode" jsonschema:"enum=announce,enum=none,description=announce posts the final answer to a chat; none keeps it in the run history"`
	deliveryFields
}

// patchDelivery is deliveryShape with mode optional: a patch may change
// only where an existing delivery goes.
type patchDelivery struct {
	Mode string `json:"mode,omitempty" jsonschema:"enum=announce,enum=none"`
	deliveryFields
}

type deliveryFields struct {
	Channel    string `json:"channel,omitempty" jsonschema:"description=A channel id such as telegram or last for this conversation's chat"`
	To         string `json:"to,omitempty" jsonschema:"description=The chat id; required when channel names a channel"`
	AccountID  string `json:"accountId,omitempty"`
	ThreadID   string `json:"threadId,omitempty" jsonschema:"description=Thread or forum topic"`
	BestEffort bool   `json:"bestEffort,omitempty" jsonschema:"description=A failed delivery does not fail the run"`
}

// object returns field's value as a JSON object. A JSON string holding an
// object is accepted too: models often serialise nested objects into a
// string, and refusing that would only cost a round trip.
func object(action, field string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s: %s is not valid JSON: %v", action, field, err)
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("%s needs %s (a JSON object)", action, field)
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("%s: %s must be a JSON object (or a string holding one)", action, field)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("%s: %s is not valid JSON: %v", action, field, err)
	}
	return raw, nil
}
