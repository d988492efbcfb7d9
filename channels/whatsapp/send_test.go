package whatsapp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/whatsapp/whatsapptest"
)

func TestSendText(t *testing.T) {
	tests := []struct {
		name  string
		setup func(fake *whatsapptest.Fake) // inbound messages seen before
		msg   channels.Outbound
		check func(t *testing.T, s whatsapptest.Sent)
	}{
		{"plain to a JID", nil, channels.Outbound{To: channels.Target{ChatID: ada.String()}, Text: "hello **world**"},
			func(t *testing.T, s whatsapptest.Sent) {
				if s.To != ada || s.Text() != "hello *world*" || s.Message.GetExtendedTextMessage().GetContextInfo() != nil {
					t.Errorf("sent %v %q", s.To, s.Text())
				}
			}},
		{"to a phone number", nil, channels.Outbound{To: channels.Target{ChatID: "+49 152 00000002"}, Text: "hi"},
			func(t *testing.T, s whatsapptest.Sent) {
				if s.To != ada {
					t.Errorf("sent to %v, want %v", s.To, ada)
				}
			}},
		{"reply in a direct chat", func(f *whatsapptest.Fake) { f.Emit(whatsapptest.DM(ada, "IN1", "question?")) },
			channels.Outbound{To: channels.Target{ChatID: ada.String()}, Text: "answer", ReplyToID: "IN1"},
			func(t *testing.T, s whatsapptest.Sent) {
				ci := s.Message.GetExtendedTextMessage().GetContextInfo()
				if ci.GetStanzaID() != "IN1" || ci.GetParticipant() != ada.String() || ci.GetQuotedMessage().GetConversation() != "question?" {
					t.Errorf("context %v", ci)
				}
			}},
		{"reply in a group names the author", func(f *whatsapptest.Fake) { f.Emit(whatsapptest.GroupText(team, ada, "G1", "@bot?", ownPN)) },
			channels.Outbound{To: channels.Target{ChatID: team.String()}, Text: "yes", ReplyToID: "G1"},
			func(t *testing.T, s whatsapptest.Sent) {
				ci := s.Message.GetExtendedTextMessage().GetContextInfo()
				if s.To != team || ci.GetStanzaID() != "G1" || ci.GetParticipant() != ada.String() {
					t.Errorf("to %v context %v", s.To, ci)
				}
			}},
		{"buttons become numbered choices", nil, channels.Outbound{To: channels.Target{ChatID: ada.String()}, Text: "Run `rm -rf build`?",
			Buttons: [][]channels.Button{{{Text: "Allow", Data: "a:1"}, {Text: "Deny", Data: "d:1"}}}},
			func(t *testing.T, s whatsapptest.Sent) {
				want := "Run `rm -rf build`?\n\n1. Allow\n2. Deny\n_Reply with the number of your choice._"
				if s.Text() != want {
					t.Errorf("text %q, want %q", s.Text(), want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, fake, _ := connected(t, nil)
			if tt.setup != nil {
				tt.setup(fake)
			}
			sent, err := a.Send(context.Background(), tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			msgs := fake.Sent()
			if len(msgs) != 1 {
				t.Fatalf("%d messages sent, want 1", len(msgs))
			}
			if sent.MessageID != msgs[0].ID {
				t.Errorf("Sent.MessageID %q, want %q", sent.MessageID, msgs[0].ID)
			}
			tt.check(t, msgs[0])
		})
	}
}

func TestSendChunksInOrder(t *testing.T) {
	a, fake, _ := connected(t, func(o *Options) { o.TextLimit = 200 })
	var paras []string
	for i := range 12 {
		paras = append(paras, strings.Repeat(string(rune('a'+i)), 60))
	}
	chunks := channels.Chunk(strings.Join(paras, "\n\n"), a.TextLimit(), a.ChunkMode())
	if len(chunks) < 3 {
		t.Fatalf("only %d chunks", len(chunks))
	}
	for i, c := range chunks {
		if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: ada.String()}, Text: c,
			IdempotencyKey: "reply-1/" + string(rune('0'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	msgs := fake.Sent()
	if len(msgs) != len(chunks) {
		t.Fatalf("%d sent, want %d", len(msgs), len(chunks))
	}
	var got []string
	for i, m := range msgs {
		if channels.UTF16Len(m.Text()) > a.TextLimit() {
			t.Errorf("message %d is %d units", i, channels.UTF16Len(m.Text()))
		}
		got = append(got, m.Text())
	}
	if strings.Join(got, "\n\n") != strings.Join(paras, "\n\n") {
		t.Errorf("chunks arrived as\n%q", got)
	}
}

func TestSendIdempotentIDs(t *testing.T) {
	a, fake, _ := connected(t, nil)
	msg := channels.Outbound{To: channels.Target{ChatID: ada.String()}, Text: "once", IdempotencyKey: "k1"}
	fake.FailSend(whatsapptest.ErrNetwork)
	_, err := a.Send(context.Background(), msg)
	var re *channels.RetryableError
	if !errors.As(err, &re) {
		t.Fatalf("network failure: %v, want retryable", err)
	}
	first, err := a.Send(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.Send(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if first.MessageID != again.MessageID || !strings.HasPrefix(first.MessageID, whatsmeow.WebMessageIDPrefix) {
		t.Errorf("retries got ids %q and %q, want one WhatsApp-shaped id", first.MessageID, again.MessageID)
	}
	other, _ := a.Send(context.Background(), channels.Outbound{To: msg.To, Text: "x", IdempotencyKey: "k2"})
	if other.MessageID == first.MessageID {
		t.Error("two keys share an id")
	}
}

func TestSendErrors(t *testing.T) {
	tests := []struct {
		name      string
		prepare   func(fake *whatsapptest.Fake)
		to        string
		retryable bool
		is        error
	}{
		{name: "network", prepare: func(f *whatsapptest.Fake) { f.FailSend(&netErr{}) }, retryable: true},
		{name: "send timeout", prepare: func(f *whatsapptest.Fake) { f.FailSend(whatsmeow.ErrMessageTimedOut) }, retryable: true},
		{name: "not connected", prepare: func(f *whatsapptest.Fake) { f.FailSend(whatsmeow.ErrNotConnected) }, retryable: true},
		{name: "connection down", prepare: func(f *whatsapptest.Fake) { f.HoldConnected(true); f.Drop() }, retryable: true},
		{name: "not logged in", prepare: func(f *whatsapptest.Fake) { f.FailSend(whatsmeow.ErrNotLoggedIn) }, is: ErrNotLinked},
		{name: "refused", prepare: func(f *whatsapptest.Fake) { f.FailSend(errors.New("server returned error 406")) }},
		{name: "bad chat id", to: "not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, fake, _ := connected(t, nil)
			if tt.prepare != nil {
				tt.prepare(fake)
			}
			to := tt.to
			if to == "" {
				to = ada.String()
			}
			_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: to}, Text: "hi"})
			if err == nil {
				t.Fatal("no error")
			}
			var re *channels.RetryableError
			if got := errors.As(err, &re); got != tt.retryable {
				t.Errorf("retryable = %v, want %v: %v", got, tt.retryable, err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%v is not %v", err, tt.is)
			}
			if len(fake.Sent()) != 0 {
				t.Error("a message was recorded as sent")
			}
		})
	}
}

type netErr struct{}

func (*netErr) Error() string   { return "read tcp: connection reset by peer" }
func (*netErr) Timeout() bool   { return false }
func (*netErr) Temporary() bool { return true }

func writeFile(t *testing.T, name string, size int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), size), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSendAttachments(t *testing.T) {
	long := strings.Repeat("word ", 300)
	tests := []struct {
		name, file, text string
		kinds            []string // what was sent, in order
		caption          bool
	}{
		{"image with caption", "chart.png", "a **chart**", []string{"image"}, true},
		{"document keeps its name", "report.pdf", "the report", []string{"document"}, true},
		{"no text", "data.csv", "", []string{"document"}, false},
		{"long text follows the file", "report.pdf", long, []string{"document", "text"}, false},
		{"audio takes no caption", "note.mp3", "listen", []string{"audio", "text"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, fake, _ := connected(t, nil)
			path := writeFile(t, tt.file, 2048)
			sent, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: ada.String()},
				Text: tt.text, Attachments: []channels.Attachment{{Path: path}}})
			if err != nil {
				t.Fatal(err)
			}
			msgs := fake.Sent()
			var kinds []string
			for _, m := range msgs {
				switch {
				case m.Message.GetImageMessage() != nil:
					kinds = append(kinds, "image")
				case m.Message.GetDocumentMessage() != nil:
					kinds = append(kinds, "document")
					if d := m.Message.GetDocumentMessage(); d.GetFileName() != tt.file || d.GetFileLength() != 2048 {
						t.Errorf("document %q of %d bytes", d.GetFileName(), d.GetFileLength())
					}
				case m.Message.GetAudioMessage() != nil:
					kinds = append(kinds, "audio")
				case m.Message.GetExtendedTextMessage() != nil:
					kinds = append(kinds, "text")
				}
			}
			if strings.Join(kinds, ",") != strings.Join(tt.kinds, ",") {
				t.Fatalf("sent %v, want %v", kinds, tt.kinds)
			}
			if tt.caption && msgs[0].Text() != ToWhatsApp(tt.text) {
				t.Errorf("caption %q, want %q", msgs[0].Text(), ToWhatsApp(tt.text))
			}
			wantID := msgs[0].ID
			if tt.text != "" && !tt.caption {
				wantID = msgs[len(msgs)-1].ID
			}
			if sent.MessageID != wantID {
				t.Errorf("Sent.MessageID %q, want %q", sent.MessageID, wantID)
			}
		})
	}
}

func TestSendMediaOverCap(t *testing.T) {
	a, fake, _ := connected(t, func(o *Options) { o.MediaMaxMb = 1 })
	small := writeFile(t, "ok.png", 10)
	big := writeFile(t, "big.pdf", 1<<20+1)
	_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: ada.String()}, Text: "files",
		Attachments: []channels.Attachment{{Path: small}, {Path: big}}})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "mediaMaxMb") {
		t.Fatalf("err = %v, want ErrTooLarge naming mediaMaxMb", err)
	}
	if len(fake.Sent()) != 0 {
		t.Error("part of the message was sent")
	}
}

func TestActions(t *testing.T) {
	a, fake, _ := connected(t, nil)
	ctx := context.Background()
	fake.Emit(whatsapptest.GroupText(team, ada, "G1", "deploy?", ownPN))
	groupTo := channels.Target{ChatID: team.String()}
	dmTo := channels.Target{ChatID: ada.String()}

	if err := a.Typing(ctx, dmTo); err != nil {
		t.Fatal(err)
	}
	if p := fake.Presences(); len(p) != 1 || p[0].Chat != ada || p[0].State != types.ChatPresenceComposing {
		t.Errorf("presences %+v", p)
	}

	if err := a.React(ctx, groupTo, "G1", "👀"); err != nil {
		t.Fatal(err)
	}
	r := fake.Sent()[0].Message.GetReactionMessage()
	if r.GetText() != "👀" || r.GetKey().GetID() != "G1" || r.GetKey().GetFromMe() || r.GetKey().GetParticipant() != ada.String() {
		t.Errorf("reaction %v", r)
	}
	if err := a.React(ctx, groupTo, "UNKNOWN", "👀"); err == nil {
		t.Error("reaction to an unknown group message: no error")
	}

	sent, err := a.Send(ctx, channels.Outbound{To: dmTo, Text: "draft"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(ctx, dmTo, sent.MessageID, "**final**"); err != nil {
		t.Fatal(err)
	}
	msgs := fake.Sent()
	pm := msgs[len(msgs)-1].Message.GetEditedMessage().GetMessage().GetProtocolMessage()
	if pm.GetKey().GetID() != sent.MessageID || !pm.GetKey().GetFromMe() || pm.GetEditedMessage().GetExtendedTextMessage().GetText() != "*final*" {
		t.Errorf("edit %v", pm)
	}

	if err := a.Delete(ctx, dmTo, sent.MessageID); err != nil {
		t.Fatal(err)
	}
	msgs = fake.Sent()
	rv := msgs[len(msgs)-1].Message.GetProtocolMessage()
	if rv.GetType().String() != "REVOKE" || rv.GetKey().GetID() != sent.MessageID || !rv.GetKey().GetFromMe() {
		t.Errorf("revoke %v", rv)
	}
}

func TestFetchMedia(t *testing.T) {
	a, fake, sink := connected(t, nil)
	fake.AddFile("/v/t62/img", []byte("jpeg bytes"))
	evt := whatsapptest.DM(ada, "I1", "")
	evt.Message = &waE2E.Message{ImageMessage: &waE2E.ImageMessage{
		Mimetype: proto.String("image/jpeg"), FileLength: proto.Uint64(10), DirectPath: proto.String("/v/t62/img"),
		MediaKey: []byte("key"), FileSHA256: []byte("sha"), FileEncSHA256: []byte("enc"),
	}}
	fake.Emit(evt)
	stored := sink.Stored()
	if len(stored) != 1 || len(stored[0].Media) != 1 {
		t.Fatalf("stored %+v", stored)
	}
	m := stored[0].Media[0]
	rc, err := a.FetchMedia(context.Background(), m, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	rc.Close()
	if string(data) != "jpeg bytes" {
		t.Errorf("downloaded %q", data)
	}
	if _, err := a.FetchMedia(context.Background(), m, 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the cap: %v, want ErrTooLarge", err)
	}
	if _, err := a.FetchMedia(context.Background(), channels.Media{FileID: "AgAD123"}, 1<<20); err == nil {
		t.Error("a foreign file id was accepted")
	}
}

// TestSendVoiceNote: a voice attachment goes as a push-to-talk audio
// message in Ogg/Opus, the form WhatsApp plays as a voice note.
func TestSendVoiceNote(t *testing.T) {
	a, fake, _ := connected(t, nil)
	path := writeFile(t, "voice.ogg", 2048)
	if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: ada.String()},
		Attachments: []channels.Attachment{{Path: path, MIME: "audio/ogg", Voice: true}}}); err != nil {
		t.Fatal(err)
	}
	msgs := fake.Sent()
	if len(msgs) != 1 {
		t.Fatalf("sent %d messages", len(msgs))
	}
	am := msgs[0].Message.GetAudioMessage()
	if am == nil || !am.GetPTT() || am.GetMimetype() != "audio/ogg; codecs=opus" || am.GetFileLength() != 2048 {
		t.Fatalf("sent %+v, want a PTT Ogg/Opus audio message", msgs[0].Message)
	}
}
