package automations

import (
	"context"
	"encoding/json"

	"github.com/openclaw-go/openclaw/tools"
)

// remoteScheduler is the Scheduler of another gateway, reached over its
// RPC methods (cron.* and wake) with the token the call gave. The caller
// is whoever that token is on that gateway, so who is not used.
type remoteScheduler struct{ conn tools.GatewayConn }

func (r remoteScheduler) call(ctx context.Context, method string, params any) (any, error) {
	var out json.RawMessage
	if err := r.conn.Call(ctx, method, params, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func (r remoteScheduler) Status(ctx context.Context, _ tools.Who) (any, error) {
	return r.call(ctx, "cron.status", map[string]any{})
}

func (r remoteScheduler) List(ctx context.Context, _ tools.Who, includeDisabled bool) (any, error) {
	return r.call(ctx, "cron.list", map[string]any{"includeDisabled": includeDisabled})
}

func (r remoteScheduler) Add(ctx context.Context, _ tools.Who, job json.RawMessage) (any, error) {
	return r.call(ctx, "cron.add", job)
}

func (r remoteScheduler) Update(ctx context.Context, _ tools.Who, id string, patch json.RawMessage) (any, error) {
	return r.call(ctx, "cron.update", map[string]any{"id": id, "patch": patch})
}

func (r remoteScheduler) Remove(ctx context.Context, _ tools.Who, id string) (any, error) {
	return r.call(ctx, "cron.remove", map[string]any{"id": id})
}

func (r remoteScheduler) Run(ctx context.Context, _ tools.Who, id, mode string) (any, error) {
	return r.call(ctx, "cron.run", map[string]any{"id": id, "mode": mode})
}

func (r remoteScheduler) Runs(ctx context.Context, _ tools.Who, id string, limit int) (any, error) {
	p := map[string]any{"limit": limit}
	if id != "" {
		p["id"] = id
	}
	return r.call(ctx, "cron.runs", p)
}

func (r remoteScheduler) Wake(ctx context.Context, _ tools.Who, mode, text string) (any, error) {
	return r.call(ctx, "wake", map[string]any{"mode": mode, "text": text})
}
