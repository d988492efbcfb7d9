package telegramtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

const token = "42:test-token"

type answer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  map[string]int  `json:"parameters"`
	raw         string
}

func post(t *testing.T, s *Server, tok, method string, form url.Values) (int, answer) {
	t.Helper()
	resp, err := http.PostForm(s.URL()+"/bot"+tok+"/"+method, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	b, _ := io.ReadAll(resp.Body)
	a.raw = string(b)
	_ = json.Unmarshal([]byte(a.raw), &a)
	return resp.StatusCode, a
}

func updateIDs(t *testing.T, a answer) []int64 {
	t.Helper()
	var us []struct {
		UpdateID int64 `json:"update_id"`
	}
	if err := json.Unmarshal(a.Result, &us); err != nil {
		t.Fatalf("getUpdates result %s: %v", a.raw, err)
	}
	var ids []int64
	for _, u := range us {
		ids = append(ids, u.UpdateID)
	}
	return ids
}

func TestOffsetsConfirmForever(t *testing.T) {
	s := New(t, token)
	u := User{ID: 1, FirstName: "A"}
	a, b, c := s.AddPrivateText(u, "1"), s.AddPrivateText(u, "2"), s.AddPrivateText(u, "3")

	steps := []struct {
		name   string
		form   url.Values
		want   []int64
		remain []int64
	}{
		{"all", url.Values{"timeout": {"0"}}, []int64{a, b, c}, []int64{a, b, c}},
		{"limit", url.Values{"timeout": {"0"}, "limit": {"1"}}, []int64{a}, []int64{a, b, c}},
		{"confirm first", url.Values{"timeout": {"0"}, "offset": {itoa64(b)}}, []int64{b, c}, []int64{b, c}},
		{"old offset", url.Values{"timeout": {"0"}, "offset": {itoa64(a)}}, []int64{b, c}, []int64{b, c}},
		{"confirm all", url.Values{"timeout": {"0"}, "offset": {itoa64(c + 1)}}, nil, nil},
	}
	for _, st := range steps {
		code, ans := post(t, s, token, "getUpdates", st.form)
		if code != 200 || !ans.OK {
			t.Fatalf("%s: %d %s", st.name, code, ans.raw)
		}
		if got := updateIDs(t, ans); !slices.Equal(got, st.want) {
			t.Errorf("%s: got %v, want %v", st.name, got, st.want)
		}
		if got := s.Pending(); !slices.Equal(got, st.remain) && !(len(got) == 0 && len(st.remain) == 0) {
			t.Errorf("%s: pending %v, want %v", st.name, got, st.remain)
		}
	}
}

func TestLongPollWakesOnUpdate(t *testing.T) {
	s := New(t, token)
	done := make(chan []int64, 1)
	go func() {
		resp, err := http.PostForm(s.URL()+"/bot"+token+"/getUpdates", url.Values{"timeout": {"30"}})
		if err != nil {
			done <- nil
			return
		}
		defer resp.Body.Close()
		var a answer
		_ = json.NewDecoder(resp.Body).Decode(&a)
		var us []struct {
			UpdateID int64 `json:"update_id"`
		}
		_ = json.Unmarshal(a.Result, &us)
		var ids []int64
		for _, u := range us {
			ids = append(ids, u.UpdateID)
		}
		done <- ids
	}()
	s.WaitCalls("getUpdates", 1, 5*time.Second)
	id := s.AddGroupText(-1001234567890, User{ID: 2}, "hi @"+BotUsername)
	select {
	case ids := <-done:
		if !slices.Equal(ids, []int64{id}) {
			t.Errorf("long poll returned %v, want [%d]", ids, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("long poll did not wake up")
	}
}

func TestErrorsAndFaults(t *testing.T) {
	s := New(t, token)
	form := url.Values{"chat_id": {"5"}, "text": {"hi"}}
	if code, a := post(t, s, "1:wrong", "sendMessage", form); code != 401 || a.Description != "Unauthorized" {
		t.Errorf("wrong token: %d %s", code, a.raw)
	}
	if code, _ := post(t, s, token, "noSuchMethod", nil); code != 404 {
		t.Errorf("unknown method: %d", code)
	}
	s.Fail("sendMessage", 1, TooManyRequests(3))
	s.Fail("sendMessage", 1, ServerError())
	s.Fail("sendMessage", 1, Malformed())
	if code, a := post(t, s, token, "sendMessage", form); code != 429 || a.Parameters["retry_after"] != 3 || a.ErrorCode != 429 {
		t.Errorf("429: %d %s", code, a.raw)
	}
	if code, _ := post(t, s, token, "sendMessage", form); code != 500 {
		t.Errorf("500: %d", code)
	}
	if _, a := post(t, s, token, "sendMessage", form); json.Valid([]byte(a.raw)) {
		t.Errorf("malformed answer is valid JSON: %s", a.raw)
	}
	if code, a := post(t, s, token, "sendMessage", form); code != 200 || !a.OK {
		t.Errorf("after the faults: %d %s", code, a.raw)
	}

	s.Fail("sendMessage", 1, Hang())
	got := make(chan int, 1)
	go func() {
		resp, err := http.PostForm(s.URL()+"/bot"+token+"/sendMessage", form)
		if err != nil {
			got <- 0
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	s.WaitCalls("sendMessage", 6, 5*time.Second)
	s.Release()
	if code := <-got; code != 200 {
		t.Errorf("released call answered %d", code)
	}
	if n := len(s.WaitSent(2, 5*time.Second)); n != 2 {
		t.Errorf("%d sent", n)
	}

	s.RejectHTMLContaining("<b>oops")
	code, a := post(t, s, token, "sendMessage", url.Values{"chat_id": {"5"}, "text": {"x <b>oops"}, "parse_mode": {"HTML"}})
	if code != 400 || !strings.HasPrefix(a.Description, "Bad Request: can't parse entities") {
		t.Errorf("rejected HTML: %d %s", code, a.raw)
	}
}

// TestLibraryWireFormat drives the fake with the real client library:
// form-encoded sends and multipart uploads.
func TestLibraryWireFormat(t *testing.T) {
	s := New(t, token)
	bot, err := tgbotapi.NewBotAPIWithClient(token, s.URL()+"/bot%s/%s", &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if bot.Self.UserName != BotUsername {
		t.Errorf("getMe: %+v", bot.Self)
	}
	msg := tgbotapi.NewMessage(77, "<b>hi</b>")
	msg.ParseMode = "HTML"
	msg.ReplyToMessageID = 3
	if _, err := bot.Send(msg); err != nil {
		t.Fatal(err)
	}
	doc := tgbotapi.NewDocument(77, tgbotapi.FileBytes{Name: "notes.txt", Bytes: []byte("file body")})
	doc.Caption = "notes"
	sent, err := bot.Send(doc)
	if err != nil {
		t.Fatal(err)
	}
	got := s.WaitSent(2, 5*time.Second)
	if m := got[0]; m.ChatID != "77" || m.Text != "<b>hi</b>" || m.ParseMode != "HTML" || m.ReplyTo != 3 {
		t.Errorf("sendMessage recorded %+v", m)
	}
	if m := got[1]; m.Method != "sendDocument" || m.FileName != "notes.txt" || string(m.FileBytes) != "file body" || m.Text != "notes" {
		t.Errorf("sendDocument recorded %+v", m)
	}
	if int64(sent.MessageID) != got[1].MessageID {
		t.Errorf("result message_id %d, recorded %d", sent.MessageID, got[1].MessageID)
	}
}

func TestEntitiesInUTF16(t *testing.T) {
	ents := entities("😀 hi @" + BotUsername + " /x")
	if len(ents) != 1 || ents[0]["offset"] != 6 || ents[0]["length"] != 1+len(BotUsername) {
		t.Errorf("entities %v", ents)
	}
	cmd := entities("/start@" + BotUsername + " now")
	if len(cmd) != 1 || cmd[0]["type"] != "bot_command" || cmd[0]["length"] != 7+len(BotUsername) {
		t.Errorf("command entities %v", cmd)
	}
}

// Edits change the message in place, as a chat shows it: Sent reports
// each message's current text, Edits keeps the history, and an edit that
// changes nothing, or of a message that is gone, fails as Telegram fails
// it.
func TestEditsChangeTheSentMessage(t *testing.T) {
	s := New(t, token)
	send := func(text, markup string) int64 {
		t.Helper()
		code, a := post(t, s, token, "sendMessage", url.Values{"chat_id": {"9"}, "text": {text}, "reply_markup": {markup}})
		var m struct {
			MessageID int64 `json:"message_id"`
		}
		if code != 200 || json.Unmarshal(a.Result, &m) != nil {
			t.Fatalf("sendMessage: %d %s", code, a.raw)
		}
		return m.MessageID
	}
	draft, other := send("Hel", ""), send("keep", `{"inline_keyboard":[[{"text":"a","callback_data":"a"}]]}`)
	edit := func(id int64, text, extra string) (int, string) {
		form := url.Values{"chat_id": {"9"}, "message_id": {strconv.FormatInt(id, 10)}, "text": {text}}
		if extra != "" {
			form.Set("parse_mode", extra)
		}
		code, a := post(t, s, token, "editMessageText", form)
		return code, a.Description
	}
	steps := []struct {
		id       int64
		text, pm string
		code     int
		desc     string
	}{
		{draft, "Hello", "", 200, ""},
		{draft, "Hello, world", "HTML", 200, ""},
		{draft, "Hello, world", "HTML", 400, "message is not modified"},
		{draft, "  ", "", 400, "message text is empty"},
		{other, "keep", "", 200, ""}, // drops the keyboard: a change
		{9999, "x", "", 400, "message to edit not found"},
	}
	for _, st := range steps {
		code, desc := edit(st.id, st.text, st.pm)
		if code != st.code || !strings.Contains(desc, st.desc) {
			t.Errorf("edit %d to %q: %d %q, want %d %q", st.id, st.text, code, desc, st.code, st.desc)
		}
	}
	sent := s.Sent()
	if len(sent) != 2 {
		t.Fatalf("edits must not add messages: %+v", sent)
	}
	if m := sent[0]; m.Text != "Hello, world" || m.ParseMode != "HTML" || m.Edits != 2 {
		t.Errorf("draft = %q %q %d edits, want its final text", m.Text, m.ParseMode, m.Edits)
	}
	if m := sent[1]; m.Text != "keep" || m.ReplyMarkup != "" || m.Edits != 1 {
		t.Errorf("edit without reply_markup kept keyboard %q", m.ReplyMarkup)
	}
	var log []string
	for _, e := range s.Edits() {
		log = append(log, e.Old+"->"+e.Text)
	}
	if want := []string{"Hel->Hello", "Hello->Hello, world", "keep->keep"}; !slices.Equal(log, want) {
		t.Errorf("edit log %q, want %q", log, want)
	}

	if code, a := post(t, s, token, "deleteMessage", url.Values{"chat_id": {"9"}, "message_id": {strconv.FormatInt(draft, 10)}}); code != 200 {
		t.Fatalf("deleteMessage: %d %s", code, a.raw)
	}
	if code, desc := edit(draft, "again", ""); code != 400 || !strings.Contains(desc, "not found") {
		t.Errorf("edit of a deleted message: %d %q", code, desc)
	}
	if sent := s.Sent(); !sent[0].Deleted || sent[1].Deleted {
		t.Errorf("Deleted marks = %v %v", sent[0].Deleted, sent[1].Deleted)
	}
	if shown := s.Shown(); len(shown) != 1 || shown[0].MessageID != other {
		t.Errorf("Shown = %+v, want only the kept message", shown)
	}
}
