package cron

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Register adds the cron.* methods to the bus. Scopes come from the
// method catalog (add, update, remove and run need admin). Their params
// are decoded strictly: OpenClaw's cron schemas refuse unknown keys.
func (s *Service) Register(srv *rpc.Server) {
	srv.HandleFunc("cron.status", rpc.Typed(func(ctx context.Context, req *rpc.Request, _ rpc.Empty) (any, error) {
		return s.Status(), nil
	}))
	srv.HandleFunc("cron.list", rpc.TypedStrict(s.handleList))
	srv.HandleFunc("cron.get", rpc.TypedStrict(func(ctx context.Context, req *rpc.Request, p jobIDParams) (Job, error) {
		id, err := jobID(req.Method, p)
		if err != nil {
			return Job{}, err
		}
		j, err := s.Get(id)
		return j, rpcError(req.Method, err)
	}))
	srv.HandleFunc("cron.add", func(ctx context.Context, req *rpc.Request) (any, error) {
		j, err := s.AddJSON(ctx, req.Params, nil)
		return j, rpcError(req.Method, err)
	})
	srv.HandleFunc("cron.update", rpc.TypedStrict(func(ctx context.Context, req *rpc.Request, p updateParams) (Job, error) {
		id := cmp.Or(p.ID, p.JobID)
		if id == "" || len(p.Patch) == 0 {
			return Job{}, protocol.InvalidParams(req.Method, errors.New("id and patch are required"))
		}
		j, err := s.Update(ctx, id, p.Patch)
		return j, rpcError(req.Method, err)
	}))
	srv.HandleFunc("cron.remove", rpc.TypedStrict(func(ctx context.Context, req *rpc.Request, p jobIDParams) (removeResult, error) {
		id, err := jobID(req.Method, p)
		if err != nil {
			return removeResult{}, err
		}
		if err := s.Remove(ctx, id); err != nil {
			return removeResult{}, rpcError(req.Method, err)
		}
		return removeResult{OK: true, Removed: true, ID: id}, nil
	}))
	srv.HandleFunc("cron.run", rpc.TypedStrict(func(ctx context.Context, req *rpc.Request, p runParams) (any, error) {
		id := cmp.Or(p.ID, p.JobID)
		if id == "" {
			return nil, protocol.InvalidParams(req.Method, errors.New("id is required"))
		}
		runID, ran, reason, err := s.RunNow(ctx, id, p.Mode)
		if err != nil {
			return nil, rpcError(req.Method, err)
		}
		if !ran {
			return map[string]any{"ok": true, "ran": false, "reason": reason}, nil
		}
		return map[string]any{"ok": true, "ran": true, "enqueued": true, "runId": runID}, nil
	}))
	srv.HandleFunc("cron.runs", rpc.TypedStrict(s.handleRuns))
}

// The params types are aliases of struct literals, not defined types: a
// strict decode of params that are not an object names the type, and the
// texts clients have seen name the struct's fields, not a Go type name.
// Their checks stay in the handlers, as an alias cannot have Validate.
type (
	jobIDParams = struct {
		ID    string `json:"id"`
		JobID string `json:"jobId"`
	}
	updateParams = struct {
		ID                     string          `json:"id"`
		JobID                  string          `json:"jobId"`
		Patch                  json.RawMessage `json:"patch"`
		ExpectedConfigRevision string          `json:"expectedConfigRevision"`
	}
	runParams = struct {
		ID                        string `json:"id"`
		JobID                     string `json:"jobId"`
		Mode                      string `json:"mode"`
		ExpectedProcessInstanceID string `json:"expectedProcessInstanceId"`
	}
	listParams = struct {
		IncludeDisabled         bool   `json:"includeDisabled"`
		Limit                   int    `json:"limit"`
		Offset                  int    `json:"offset"`
		Query                   string `json:"query"`
		Enabled                 string `json:"enabled"`
		ScheduleKind            string `json:"scheduleKind"`
		LastRunStatus           string `json:"lastRunStatus"`
		Trigger                 string `json:"trigger"`
		SortBy                  string `json:"sortBy"`
		SortDir                 string `json:"sortDir"`
		AgentID                 string `json:"agentId"`
		Compact                 bool   `json:"compact"`
		IncludeDeliveryPreviews bool   `json:"includeDeliveryPreviews"`
	}
	runsParams = struct {
		AgentID          string   `json:"agentId"`
		Scope            string   `json:"scope"`
		ID               string   `json:"id"`
		JobID            string   `json:"jobId"`
		RunID            string   `json:"runId"`
		Limit            int      `json:"limit"`
		Offset           int      `json:"offset"`
		Statuses         []string `json:"statuses"`
		Status           string   `json:"status"`
		DeliveryStatuses []string `json:"deliveryStatuses"`
		DeliveryStatus   string   `json:"deliveryStatus"`
		Query            string   `json:"query"`
		SortDir          string   `json:"sortDir"`
	}
)

// removeResult is the cron.remove answer.
type removeResult struct {
	OK      bool   `json:"ok"`
	Removed bool   `json:"removed"`
	ID      string `json:"id"`
}

// AddJSON adds a job from cron.add's params. owner, when set, is the
// conversation that made it (the cron tool): the job is bound to its
// agent whatever the params say.
func (s *Service) AddJSON(ctx context.Context, raw []byte, owner *Owner) (Job, error) {
	if err := checkKinds(raw); err != nil {
		return Job{}, err
	}
	var in jobInput
	if err := rpc.DecodeStrict(raw, &in); err != nil {
		return Job{}, err
	}
	if owner != nil {
		if in.AgentID != "" && !strings.EqualFold(in.AgentID, owner.AgentID) {
			return Job{}, fmt.Errorf("agentId %q: a job made in a conversation runs as that conversation's agent (%s)", in.AgentID, owner.AgentID)
		}
		in.Owner, in.AgentID = owner, owner.AgentID
		if in.SessionTarget == TargetCurrent && in.SessionKey == "" {
			in.SessionKey = owner.SessionKey
		}
	} else if in.Owner != nil {
		return Job{}, errors.New("owner is set by the gateway, not by the caller")
	}
	return s.Add(ctx, in)
}

// checkKinds names an unsupported schedule or payload kind before the
// strict decode would only call its fields unknown.
func checkKinds(raw []byte) error {
	var k struct {
		Schedule struct{ Kind string } `json:"schedule"`
		Payload  struct{ Kind string } `json:"payload"`
	}
	if json.Unmarshal(raw, &k) != nil {
		return nil // the strict decode says what is wrong
	}
	switch k.Schedule.Kind {
	case "on-exit", "stream":
		return fmt.Errorf("schedule.kind %q is not supported by this gateway (at, every or cron)", k.Schedule.Kind)
	}
	switch k.Payload.Kind {
	case "command", "script":
		return fmt.Errorf("payload.kind %q is not supported by this gateway: use an agentTurn whose agent may run exec", k.Payload.Kind)
	}
	return nil
}

// jobID is the job a get or remove names, by id or jobId.
func jobID(method string, p jobIDParams) (string, error) {
	id := cmp.Or(p.ID, p.JobID)
	if id == "" {
		return "", protocol.InvalidParams(method, errors.New("id is required"))
	}
	return id, nil
}

// rpcError maps the service's errors onto protocol errors: an unknown
// id carries CRON_JOB_NOT_FOUND, bad input is INVALID_REQUEST, a store
// failure UNAVAILABLE.
func rpcError(method string, err error) error {
	if err == nil {
		return nil
	}
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return protocol.Errorf(protocol.CodeInvalidRequest, "%s", nf.Error()).
			WithDetails(map[string]any{"code": protocol.DetailCronJobNotFound, "jobId": nf.ID})
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe
	}
	if strings.HasPrefix(err.Error(), "store ") || strings.HasPrefix(err.Error(), "remove cron job") {
		return protocol.Errorf(protocol.CodeUnavailable, "%s: %v", method, err)
	}
	return protocol.InvalidParams(method, err)
}

func (s *Service) handleList(ctx context.Context, req *rpc.Request, p listParams) (map[string]any, error) {
	limit, err := pageLimit(req.Method, p.Limit, p.Offset, 200)
	if err != nil {
		return nil, err
	}
	jobs, total, rev := s.list(ListQuery{IncludeDisabled: p.IncludeDisabled, Enabled: p.Enabled, Query: p.Query,
		AgentID: p.AgentID, ScheduleKind: p.ScheduleKind, LastRunStatus: p.LastRunStatus, SortBy: p.SortBy,
		Desc: p.SortDir == "desc", Limit: limit, Offset: p.Offset})
	if jobs == nil {
		jobs = []Job{}
	}
	out := page("jobs", jobs, total, p.Offset, limit)
	out["snapshotRevision"] = rev
	return out, nil
}

// pageLimit checks a page request (limit 1..200, 0 for def) and
// returns the limit to use.
func pageLimit(method string, limit, offset, def int) (int, error) {
	if limit < 0 || limit > 200 || offset < 0 {
		return 0, protocol.InvalidParams(method, errors.New("limit must be 1..200 and offset ≥ 0"))
	}
	if limit == 0 {
		return def, nil
	}
	return limit, nil
}

// page is the paging envelope cron.list and cron.runs share.
func page(key string, items any, total, offset, limit int) map[string]any {
	n := 0
	switch v := items.(type) {
	case []Job:
		n = len(v)
	case []RunEntry:
		n = len(v)
	}
	out := map[string]any{key: items, "total": total, "offset": offset, "limit": limit, "hasMore": offset+n < total}
	if offset+n < total {
		out["nextOffset"] = offset + n
	} else {
		out["nextOffset"] = nil
	}
	return out
}

func (s *Service) handleRuns(ctx context.Context, req *rpc.Request, p runsParams) (map[string]any, error) {
	limit, err := pageLimit(req.Method, p.Limit, p.Offset, 50)
	if err != nil {
		return nil, err
	}
	q := RunsQuery{JobID: cmp.Or(p.ID, p.JobID), RunID: p.RunID, Statuses: p.Statuses, Delivery: p.DeliveryStatuses,
		Query: p.Query, Asc: p.SortDir == "asc", Limit: limit, Offset: p.Offset}
	if p.Status != "" && p.Status != "all" {
		q.Statuses = append(q.Statuses, p.Status)
	}
	if p.DeliveryStatus != "" {
		q.Delivery = append(q.Delivery, p.DeliveryStatus)
	}
	for _, st := range q.Statuses {
		if st != StatusOK && st != StatusError && st != StatusSkipped {
			return nil, protocol.InvalidParams(req.Method, fmt.Errorf("status %q is unknown (ok, error or skipped)", st))
		}
	}
	entries, total, err := s.db.runs(ctx, q)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeUnavailable, "cron.runs: %v", err)
	}
	return page("entries", entries, total, p.Offset, limit), nil
}
