package host

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
)

// plans holds the plans system.run.prepare issued, until they are used
// or expire.
type plans struct {
	mu  sync.Mutex
	m   map[string]runPlan
	now func() time.Time
}

func newPlans(now func() time.Time) *plans { return &plans{m: map[string]runPlan{}, now: now} }

// add stores a plan for r and returns it.
func (ps *plans) add(r checkedRun, resolved []string) runPlan {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	now := ps.now()
	ps.expireLocked(now)
	for len(ps.m) >= maxPlans { // drop the oldest
		var oldest string
		for id, p := range ps.m {
			if oldest == "" || p.CreatedAtMs < ps.m[oldest].CreatedAtMs {
				oldest = id
			}
		}
		delete(ps.m, oldest)
	}
	p := runPlan{
		PlanID: uuid.NewString(), Argv: slices.Clone(r.argv), Cwd: r.cwd, Env: maps.Clone(r.env),
		CommandText: planCommandText(r.argv), AgentID: r.agentID, SessionKey: r.session, Resolved: resolved,
		CreatedAtMs: now.UnixMilli(), ExpiresAtMs: now.Add(PlanTTL).UnixMilli(),
	}
	ps.m[p.PlanID] = p
	return p
}

func (ps *plans) expireLocked(now time.Time) {
	for id, p := range ps.m {
		if now.UnixMilli() >= p.ExpiresAtMs {
			delete(ps.m, id)
		}
	}
}

// take finds the plan an approved run claims and checks that the run and
// the plan the gateway forwarded are exactly what this node prepared. A
// matching plan is used up.
func (ps *plans) take(r checkedRun, claimed *runPlan) (runPlan, string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.expireLocked(ps.now())
	var p runPlan
	var ok bool
	if claimed != nil && claimed.PlanID != "" {
		p, ok = ps.m[claimed.PlanID]
	} else {
		for _, cand := range ps.m {
			if matches(cand, r) {
				p, ok = cand, true
				break
			}
		}
	}
	switch {
	case !ok:
		return p, "no approved plan of this node covers the command (prepare it with system.run.prepare first)"
	case !matches(p, r):
		return p, "the command differs from the approved plan"
	case claimed != nil && !samePlan(p, *claimed):
		return p, "the forwarded plan differs from the one this node prepared"
	}
	delete(ps.m, p.PlanID)
	return p, ""
}

// matches reports whether run r is exactly what plan p describes.
func matches(p runPlan, r checkedRun) bool {
	return slices.Equal(p.Argv, r.argv) && p.Cwd == r.cwd && maps.Equal(p.Env, r.env) &&
		p.AgentID == r.agentID && p.SessionKey == r.session
}

// samePlan compares the fields of a forwarded plan that the approver saw.
// Fields the gateway left out are not compared, but none may differ.
func samePlan(p, claimed runPlan) bool {
	if claimed.Argv != nil && !slices.Equal(p.Argv, claimed.Argv) {
		return false
	}
	if claimed.Env != nil && !maps.Equal(p.Env, claimed.Env) {
		return false
	}
	return claimed.Cwd == p.Cwd && (claimed.CommandText == "" || claimed.CommandText == p.CommandText) &&
		(claimed.AgentID == "" || claimed.AgentID == p.AgentID) &&
		(claimed.SessionKey == "" || claimed.SessionKey == p.SessionKey)
}

// approvedDecision reports whether the gateway forwarded the run as
// approved by a person.
func (p runParams) approvedDecision() bool {
	switch p.ApprovalDecision {
	case "allow-once", "allow-always":
		return true
	case "":
		return p.Approved
	}
	return false
}
