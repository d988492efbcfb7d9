package soak

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// A marker names one message the driver sent: "m" and a number unique in
// the run. Answers carry it back (the fake model echoes the message).
var markerRE = regexp.MustCompile(`\bm[0-9]{6}\b`)

var nextMarker atomic.Int64

func newMarker() string { return fmt.Sprintf("m%06d", nextMarker.Add(1)) }

// ledger records each message sent (marker -> stream) and how many
// distinct answers carried its marker.
type ledger struct {
	mu       sync.Mutex
	stream   map[string]string
	answered map[string]int
}

func newLedger() *ledger { return &ledger{stream: map[string]string{}, answered: map[string]int{}} }

func (l *ledger) sent(marker, stream string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stream[marker] = stream
}

func (l *ledger) setAnswers(marker string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.answered[marker] = n
}

// countChannel recounts every channel message's answers from what the
// fakes recorded over the whole run: a (chat, message id) pair is one
// answer, however often it was edited.
func (l *ledger) countChannel(tg *telegramtest.Server, sl *slacktest.Server) {
	seen := map[string]map[string]bool{} // marker -> distinct answer ids
	note := func(text, id string) {
		if !strings.Contains(text, "echo:") && !strings.Contains(text, "tool ok:") {
			return
		}
		for _, m := range markerRE.FindAllString(text, -1) {
			if seen[m] == nil {
				seen[m] = map[string]bool{}
			}
			seen[m][id] = true
		}
	}
	for _, m := range tg.Sent() {
		note(m.Text, fmt.Sprintf("tg:%s:%d", m.ChatID, m.MessageID))
	}
	for _, m := range sl.Messages() {
		note(m.Text, "sl:"+m.Channel+":"+m.TS)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for marker, stream := range l.stream {
		if strings.HasPrefix(stream, "telegram") || strings.HasPrefix(stream, "slack") {
			l.answered[marker] = len(seen[marker])
		}
	}
}

// ledgerSummary is, per stream, messages sent, answered once, lost and
// answered more than once (with the first few markers of each problem).
type ledgerSummary struct {
	Streams           []string
	Sent, Once        map[string]int
	Lost, Dup         map[string][]string
	TotalSent, Missed int
	Duplicated        int
}

func (l *ledger) summary() ledgerSummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := ledgerSummary{Sent: map[string]int{}, Once: map[string]int{}, Lost: map[string][]string{}, Dup: map[string][]string{}}
	for marker, stream := range l.stream {
		if _, ok := s.Sent[stream]; !ok {
			s.Streams = append(s.Streams, stream)
		}
		s.Sent[stream]++
		s.TotalSent++
		switch n := l.answered[marker]; {
		case n == 1:
			s.Once[stream]++
		case n == 0:
			s.Lost[stream] = append(s.Lost[stream], marker)
			s.Missed++
		default:
			s.Dup[stream] = append(s.Dup[stream], fmt.Sprintf("%s×%d", marker, n))
			s.Duplicated++
		}
	}
	sort.Strings(s.Streams)
	for _, v := range s.Lost {
		sort.Strings(v)
	}
	for _, v := range s.Dup {
		sort.Strings(v)
	}
	return s
}

// busWorker chats over the bus as `openclaw agent` does: turnsPerSession
// turns in one session, every toolEvery-th asking for a tool call; then
// it reads the session's history, counts each message's answers there,
// and deletes the session with its transcript (OpenClaw's default keeps
// the transcript as an archive), so the state stays the size of a few
// live conversations however long the soak runs.
func busWorker(ctx context.Context, c *client.Client, id int, led *ledger, n *counters, errs *errorLog) error {
	stream := fmt.Sprintf("bus:%d", id)
	for s := 1; ctx.Err() == nil; s++ {
		key := fmt.Sprintf("agent:main:soak-%d-%d", id, s)
		var markers []string
		for turn := 1; turn <= turnsPerSession && ctx.Err() == nil; turn++ {
			m := newMarker()
			text := fmt.Sprintf("hello %s from worker %d", m, id)
			if turn%toolEvery == 0 {
				text += " [tool]"
				n.toolTurns.Add(1)
			}
			led.sent(m, stream)
			markers = append(markers, m)
			var res struct {
				Status  string `json:"status"`
				Summary string `json:"summary"`
			}
			err := (func() error {
				cctx, cancel := context.WithTimeout(context.Background(), answerWithin)
				defer cancel()
				return c.CallFinal(cctx, "agent", map[string]any{
					"message": text, "agentId": "main", "sessionKey": key, "idempotencyKey": uuid.NewString(),
				}, &res)
			})()
			if err != nil {
				return fmt.Errorf("agent turn %s: %w", m, err)
			}
			if res.Status != "ok" {
				errs.add(fmt.Errorf("%s: turn %s ended %q: %s", stream, m, res.Status, res.Summary))
			}
			n.busTurns.Add(1)
			sleep(ctx, busPause)
		}
		if err := countHistory(c, key, markers, led); err != nil {
			return err
		}
		if err := call(c, "sessions.delete", map[string]any{"key": key, "deleteTranscript": true}, nil); err != nil {
			return fmt.Errorf("sessions.delete %s: %w", key, err)
		}
		n.sessionsDeleted.Add(1)
	}
	return nil
}

// countHistory counts, for each marker, the assistant messages of the
// session's transcript that answer it.
func countHistory(c *client.Client, key string, markers []string, led *ledger) error {
	var h struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := call(c, "chat.history", map[string]any{"sessionKey": key, "limit": 1000}, &h); err != nil {
		return fmt.Errorf("chat.history %s: %w", key, err)
	}
	count := map[string]int{}
	for _, msg := range h.Messages {
		if msg["role"] != "assistant" {
			continue
		}
		text := messageText(msg["content"])
		if !strings.Contains(text, "echo:") && !strings.Contains(text, "tool ok:") {
			continue
		}
		for _, m := range markerRE.FindAllString(text, -1) {
			count[m]++
		}
	}
	for _, m := range markers {
		led.setAnswers(m, count[m])
	}
	return nil
}

// messageText is a transcript message's text: a string, or its text
// parts joined.
func messageText(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, part := range c {
			if p, ok := part.(map[string]any); ok {
				if s, ok := p["text"].(string); ok {
					b.WriteString(s)
					b.WriteByte('\n')
				}
			}
		}
		return b.String()
	}
	return ""
}

// person is one chat user on one channel's fake.
type person struct {
	stream  string
	send    func(text string)
	answers func(marker string) int // distinct answers carrying marker so far
	userID  string                  // for finding their session
	channel string
}

func telegramPerson(tg *telegramtest.Server, u telegramtest.User) person {
	return person{
		stream: fmt.Sprintf("telegram:%d", u.ID), channel: "telegram", userID: fmt.Sprint(u.ID),
		send: func(text string) { tg.AddPrivateText(u, text) },
		answers: func(marker string) int {
			ids := map[int64]bool{}
			for _, m := range tg.Sent() {
				if m.ChatID == fmt.Sprint(u.ID) && strings.Contains(m.Text, marker) {
					ids[m.MessageID] = true
				}
			}
			return len(ids)
		},
	}
}

func slackPerson(sl *slacktest.Server, user string) person {
	dm := "D" + user
	return person{
		stream: "slack:" + user, channel: "slack", userID: user,
		send: func(text string) {
			sl.PushMessage(slacktest.Msg{Channel: dm, ChannelType: "im", User: user, Text: text})
		},
		answers: func(marker string) int {
			ids := map[string]bool{}
			for _, m := range sl.Messages() {
				if m.Channel == dm && strings.Contains(m.Text, marker) {
					ids[m.TS] = true
				}
			}
			return len(ids)
		},
	}
}

// channelWorker is one person chatting through a channel fake: a message,
// then wait for its answer, channelTurns times; then their session is
// deleted and they start over.
func channelWorker(ctx context.Context, admin *client.Client, p person, led *ledger, n *counters, errs *errorLog) error {
	for turn := 1; ctx.Err() == nil; turn++ {
		m := newMarker()
		text := fmt.Sprintf("hi %s on %s", m, p.channel)
		if turn%toolEvery == 0 {
			text += " [tool]"
			n.toolTurns.Add(1)
		}
		led.sent(m, p.stream)
		p.send(text)
		n.channelMsgs.Add(1)
		// Waiting ignores the soak's end: a message sent is waited for.
		if !harness.Poll(answerWithin, func() bool { return p.answers(m) > 0 }) {
			errs.add(fmt.Errorf("%s: no answer to %s within %s", p.stream, m, answerWithin))
		}
		sleep(ctx, channelPause)
		if turn%channelTurns == 0 {
			if err := deleteSessionsOf(admin, p); err != nil {
				return err
			}
			n.sessionsDeleted.Add(1)
		}
	}
	return nil
}

// deleteSessionsOf deletes the sessions whose key names p's channel and
// user (per-channel-peer keys hold both).
func deleteSessionsOf(admin *client.Client, p person) error {
	var list struct {
		Sessions []struct {
			Key string `json:"key"`
		} `json:"sessions"`
	}
	if err := call(admin, "sessions.list", map[string]any{"limit": 500}, &list); err != nil {
		return fmt.Errorf("sessions.list: %w", err)
	}
	for _, s := range list.Sessions {
		k := strings.ToLower(s.Key)
		if strings.Contains(k, p.channel) && strings.Contains(k, strings.ToLower(p.userID)) {
			if err := call(admin, "sessions.delete", map[string]any{"key": s.Key, "deleteTranscript": true}, nil); err != nil {
				return fmt.Errorf("sessions.delete %s: %w", s.Key, err)
			}
		}
	}
	return nil
}

// churn connects and drops clients: a full connect with a health call and
// a clean close, a full connect dropped without a close frame, and a bare
// upgrade request cut off before the handshake.
func churn(ctx context.Context, g *harness.Gateway, n *counters) error {
	for i := 0; ctx.Err() == nil; i++ {
		switch i % 3 {
		case 0, 1:
			c, err := g.DialOpts(client.Options{Token: g.Token, Scopes: []string{"operator.read"}})
			if err != nil {
				return fmt.Errorf("connect: %w", err)
			}
			n.connects.Add(1)
			err = call(c, "health", nil, nil)
			c.Close()
			if err != nil {
				return fmt.Errorf("health: %w", err)
			}
		case 2:
			conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", g.Port))
			if err != nil {
				return fmt.Errorf("dial: %w", err)
			}
			fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
				"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", g.Port)
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			bufio.NewReader(conn).ReadString('\n') // the 101, then hang up mid-handshake
			conn.Close()
			n.drops.Add(1)
		}
		sleep(ctx, churnPause)
	}
	return nil
}

// reloader changes logging.level over config.patch every interval, so
// the gateway reloads its config while everything else runs.
func reloader(ctx context.Context, admin *client.Client, every time.Duration, n *counters) error {
	levels := []string{"warn", "info"}
	for i := 0; ; i++ {
		sleep(ctx, every)
		if ctx.Err() != nil {
			return nil
		}
		var cur struct {
			Hash string `json:"hash"`
		}
		err := call(admin, "config.get", nil, &cur)
		if err == nil {
			err = call(admin, "config.patch", map[string]any{
				"raw": fmt.Sprintf(`{ logging: { level: %q } }`, levels[i%2]), "baseHash": cur.Hash,
			}, nil)
		}
		if err != nil {
			n.reloadErrors.Add(1)
			continue
		}
		n.reloads.Add(1)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
