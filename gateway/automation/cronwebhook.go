package automation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// webhookTimeout bounds one delivery POST.
const webhookTimeout = 30 * time.Second

// webhookEvent is the body a job with delivery.mode "webhook" posts: the
// finished run, in the shape of the scheduler's finished event.
type webhookEvent struct {
	Action     string      `json:"action"`
	JobID      string      `json:"jobId"`
	JobName    string      `json:"jobName,omitempty"`
	RunID      string      `json:"runId"`
	Status     string      `json:"status"`
	Error      string      `json:"error,omitempty"`
	Summary    string      `json:"summary,omitempty"`
	RunAtMs    int64       `json:"runAtMs"`
	TS         int64       `json:"ts"`
	SessionKey string      `json:"sessionKey,omitempty"`
	SessionID  string      `json:"sessionId,omitempty"`
	Provider   string      `json:"provider,omitempty"`
	Model      string      `json:"model,omitempty"`
	Usage      *cron.Usage `json:"usage,omitempty"`
}

// postWebhook posts a run's result to delivery.to behind the SSRF guard
// (cron.webhookSsrfPolicy names the only private hosts it may reach),
// with cron.webhookToken as its bearer token. Only a 2xx answer counts
// as delivered; a request whose answer was lost is "unknown", and not
// sent again.
func (x executor) postWebhook(ctx context.Context, job cron.Job, info cron.RunInfo, out *cron.Outcome) {
	if job.Owner != nil {
		// Only an operator's job (cron.add) posts: one a conversation made
		// must not send its results, and the webhook token, elsewhere.
		x.webhookFailed(job, out, "not-delivered", errors.New("a job made in a conversation cannot deliver to a webhook"))
		return
	}
	if out.Status == cron.StatusOK && out.Summary == "" {
		out.DeliveryStatus = "not-delivered" // nothing to report, as announce
		return
	}
	cfg := x.w.cfg().Cron
	ev := webhookEvent{
		Action: "finished", JobID: job.ID, JobName: job.Name, RunID: info.RunID, Status: out.Status, Error: out.Error,
		Summary: out.Summary, RunAtMs: info.ScheduledAt.UnixMilli(), TS: time.Now().UnixMilli(), SessionKey: out.SessionKey,
		SessionID: out.SessionID, Provider: out.Provider, Model: out.Model, Usage: out.Usage,
	}
	body, _ := json.Marshal(ev)
	ctx, cancel := context.WithTimeout(ctx, webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.Delivery.To, bytes.NewReader(body))
	if err != nil {
		x.webhookFailed(job, out, "not-delivered", fmt.Errorf("delivery.to: %w", err))
		return
	}
	req.Header.Set("Content-Type", "application/json")
	if cfg.WebhookToken != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.WebhookToken)
	}
	client := x.w.webhookClient
	if client == nil {
		client = netguard.NewClient(netguard.Options{Policy: netguard.Policy{AllowHosts: cfg.WebhookSsrfPolicy.AllowedHostnames}, MaxRedirects: -1})
	}
	res, err := client.Do(req)
	if err != nil {
		status := "unknown" // it may have arrived
		if netguard.IsBlocked(err) {
			status = "not-delivered"
		}
		x.webhookFailed(job, out, status, err)
		return
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		x.webhookFailed(job, out, "not-delivered", fmt.Errorf("the webhook answered %s", res.Status))
		return
	}
	out.DeliveryStatus = "delivered"
}

func (x executor) webhookFailed(job cron.Job, out *cron.Outcome, status string, err error) {
	out.DeliveryStatus, out.DeliveryError = status, err.Error()
	if !job.Delivery.BestEffort && out.Status == cron.StatusOK {
		out.Status, out.Error = cron.StatusError, "delivery failed: "+err.Error()
	}
}
