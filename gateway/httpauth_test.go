package gateway

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// throttledConfig is a gateway whose failed-auth limit is 3 and whose
// loopback exemption is off, so that the tests, on loopback, are counted
// as a remote guesser would be.
const throttledConfig = `{
  gateway: { mode: "local", auth: { token: "right-t0ken", rateLimit: { maxAttempts: 3, windowMs: 60000, lockoutMs: 600000, exemptLoopback: false } } },
  %s
}`

func startThrottled(t *testing.T, extra string, env map[string]string) (*running, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(fmt.Sprintf(throttledConfig, extra)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, env)
	return r, "http" + strings.TrimPrefix(r.url, "ws")
}

func request(t *testing.T, method, url string, hdr http.Header, body []byte) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	for k, v := range hdr {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func wantLockedOut(t *testing.T, what string, res *http.Response) {
	t.Helper()
	secs, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if res.StatusCode != http.StatusTooManyRequests || err != nil || secs < 1 {
		t.Fatalf("%s: status %d, Retry-After %q; want 429 with a positive Retry-After", what, res.StatusCode, res.Header.Get("Retry-After"))
	}
}

// TestToolsRESTBearerThrottled: someone who can reach the gateway's port
// guesses the gateway token as a bearer token on /api/v1/tools, where no
// handshake limit stood in the way. After maxAttempts wrong tokens the
// client is locked out: 429 with Retry-After, even for the right token,
// and the socket's handshake refuses it too (one secret, one budget).
func TestToolsRESTBearerThrottled(t *testing.T) {
	r, base := startThrottled(t, "", nil)
	for i, auth := range []string{"Bearer guess-1", "", "Bearer guess-3"} {
		hdr := http.Header{}
		if auth != "" {
			hdr.Set("Authorization", auth)
		}
		if res := request(t, "GET", base+"/api/v1/tools", hdr, nil); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i, res.StatusCode)
		}
	}
	right := http.Header{"Authorization": {"Bearer right-t0ken"}}
	wantLockedOut(t, "right bearer token", request(t, "GET", base+"/api/v1/tools", right, nil))
	wantLockedOut(t, "toggle with the right token", request(t, "PUT", base+"/api/v1/tools/read/toggle?enabled=false", right, nil))
	if _, err := r.dial(t, "right-t0ken", "operator.read"); err == nil || !strings.Contains(err.Error(), "too many failed authentication attempts") {
		t.Fatalf("socket connect after bad bearer tokens: %v", err)
	}
}

// TestTelegramWebhookSecretThrottled: someone who found the Telegram
// webhook URL guesses its secret token. After maxAttempts wrong ones the
// client gets 429 with Retry-After, even with the right secret.
func TestTelegramWebhookSecretThrottled(t *testing.T) {
	const token, secret = "777:TEST-webhook", "s3cret_webhook-token"
	tg := telegramtest.New(t, token)
	_, base := startThrottled(t, fmt.Sprintf(`channels: { telegram: { botToken: %q, apiRoot: %q,
    webhookUrl: "https://bot.example.org/telegram/webhook/default", webhookSecret: %q } },`, token, tg.URL(), secret), nil)
	hook := base + "/telegram/webhook/default"
	update := []byte(`{"update_id": 9001, "message": {"message_id": 77, "date": 1764500000, "chat": {"id": 3001, "type": "private"}, "from": {"id": 3001, "is_bot": false, "first_name": "Wes"}, "text": "hi"}}`)
	guess := http.Header{"X-Telegram-Bot-Api-Secret-Token": {"guess"}}
	// The webhook is mounted once the adapter started; until then the
	// path is 404 and nothing is counted.
	deadline := time.Now().Add(30 * time.Second)
	for res := request(t, "POST", hook, guess, update); res.StatusCode != http.StatusUnauthorized; res = request(t, "POST", hook, guess, update) {
		if res.StatusCode != http.StatusNotFound || time.Now().After(deadline) {
			t.Fatalf("first guess: %d", res.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := 0; i < 2; i++ {
		if res := request(t, "POST", hook, guess, update); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i+2, res.StatusCode)
		}
	}
	wantLockedOut(t, "right webhook secret", request(t, "POST", hook, http.Header{"X-Telegram-Bot-Api-Secret-Token": {secret}}, update))
}

// TestSlackSigningSecretThrottled: someone who found the Slack Request
// URL forges signatures. After maxAttempts bad ones the client gets 429
// with Retry-After, even for a rightly signed request.
func TestSlackSigningSecretThrottled(t *testing.T) {
	const bot, signing = "xoxb-test-bot", "signing-SECRET-value"
	fake := slacktest.New(t, bot, "")
	_, base := startThrottled(t, fmt.Sprintf(`channels: { slack: { mode: "http", botToken: %q, signingSecret: %q } },`, bot, signing),
		map[string]string{"OPENCLAW_SLACK_API_URL": fake.APIURL()})
	hook := base + "/slack/events/default"
	body := fake.MessagePayload(&slacktest.Msg{Channel: "D1", User: "U1", Text: "hi"})
	signed := func(secret string) http.Header {
		ts, sig := slacktest.Sign(secret, time.Now(), body)
		return http.Header{"Content-Type": {"application/json"}, "X-Slack-Request-Timestamp": {ts}, "X-Slack-Signature": {sig}}
	}
	deadline := time.Now().Add(30 * time.Second)
	for res := request(t, "POST", hook, signed("guess"), body); res.StatusCode != http.StatusUnauthorized; res = request(t, "POST", hook, signed("guess"), body) {
		if res.StatusCode != http.StatusNotFound || time.Now().After(deadline) {
			t.Fatalf("first forgery: %d", res.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := 0; i < 2; i++ {
		if res := request(t, "POST", hook, signed("guess"), body); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("forgery %d: %d", i+2, res.StatusCode)
		}
	}
	wantLockedOut(t, "rightly signed request", request(t, "POST", hook, signed(signing), body))
}

// TestParsePrefixesUnmaps: client addresses are unmapped before they are
// compared with gateway.trustedProxies, so a proxy listed in its
// IPv4-mapped form must still be trusted.
func TestParsePrefixesUnmaps(t *testing.T) {
	got := parsePrefixes(nil, "gateway.trustedProxies", []string{"::ffff:10.0.0.0/104", "::ffff:192.0.2.1", "2001:db8::/32", "10.1.2.3", "nonsense"})
	want := []string{"10.0.0.0/8", "192.0.2.1/32", "2001:db8::/32", "10.1.2.3/32"}
	if len(got) != len(want) {
		t.Fatalf("parsePrefixes = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Fatalf("parsePrefixes = %v, want %v", got, want)
		}
	}
}
