package slacktest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const (
	bot = "xoxb-test"
	app = "xapp-test"
)

func call(t *testing.T, s *Server, method, token string, form url.Values) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.APIURL()+method, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		return map[string]any{"status": float64(res.StatusCode), "retry_after": res.Header.Get("Retry-After")}
	}
	return out
}

func TestWebAPI(t *testing.T) {
	s := New(t, bot, app)
	if got := call(t, s, "auth.test", bot, nil); got["ok"] != true || got["user_id"] != BotUserID {
		t.Errorf("auth.test = %v", got)
	}
	if got := call(t, s, "auth.test", "xoxb-wrong", nil); got["error"] != "invalid_auth" {
		t.Errorf("wrong token: %v", got)
	}
	if got := call(t, s, "apps.connections.open", bot, nil); got["error"] != "invalid_auth" {
		t.Errorf("connections.open with the bot token: %v", got)
	}
	if got := call(t, s, "apps.connections.open", app, nil); !strings.HasPrefix(got["url"].(string), "ws://") {
		t.Errorf("connections.open = %v", got)
	}
	got := call(t, s, "chat.postMessage", bot, url.Values{"channel": {"C1"}, "text": {"hi"}, "thread_ts": {"1.2"}})
	if got["ok"] != true || len(s.Messages()) != 1 || s.Messages()[0].ThreadTS != "1.2" {
		t.Errorf("postMessage = %v, %+v", got, s.Messages())
	}
	s.Fail("chat.postMessage", 1, TooManyRequests(4))
	s.Fail("chat.postMessage", 1, SlackError("channel_not_found"))
	if got := call(t, s, "chat.postMessage", bot, url.Values{"channel": {"C1"}, "text": {"x"}}); got["status"] != float64(429) || got["retry_after"] != "4" {
		t.Errorf("first fault: %v", got)
	}
	if got := call(t, s, "chat.postMessage", bot, url.Values{"channel": {"C1"}, "text": {"x"}}); got["error"] != "channel_not_found" {
		t.Errorf("second fault: %v", got)
	}
	s.RevokeTokens()
	if got := call(t, s, "auth.test", bot, nil); got["error"] != "invalid_auth" {
		t.Errorf("after revoke: %v", got)
	}
}

func dial(t *testing.T, s *Server) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(s.URL(), "http") + "/socket"
	c, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func read(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var m map[string]any
	if err := c.ReadJSON(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSocketRedelivery: an envelope not acknowledged on one connection is
// sent again on the next; an acknowledged one is not.
func TestSocketRedelivery(t *testing.T) {
	s := New(t, bot, app)
	c1 := dial(t, s)
	if m := read(t, c1); m["type"] != "hello" {
		t.Fatalf("first frame %v", m)
	}
	a, _ := s.PushMessage(Msg{Channel: "D1", User: "U1", Text: "a"})
	b, _ := s.PushMessage(Msg{Channel: "D1", User: "U1", Text: "b"})
	if m := read(t, c1); m["envelope_id"] != a || m["type"] != "events_api" {
		t.Fatalf("got %v, want envelope %s", m, a)
	}
	_ = read(t, c1)
	if err := c1.WriteJSON(map[string]string{"envelope_id": a}); err != nil {
		t.Fatal(err)
	}
	s.WaitAcked(5*time.Second, a)
	s.DropSocket()

	c2 := dial(t, s)
	_ = read(t, c2) // hello
	m := read(t, c2)
	if m["envelope_id"] != b || m["retry_attempt"] != float64(1) {
		t.Errorf("redelivered %v, want %s retry 1", m, b)
	}
	if s.Acked(b) || s.Deliveries(b) != 2 || s.Connections() != 2 {
		t.Errorf("acked %v deliveries %d connections %d", s.Acked(b), s.Deliveries(b), s.Connections())
	}
}
