package whatsapp

import (
	"encoding/json"
	"reflect"
	"testing"

	"go.mau.fi/whatsmeow/proto/waCommon"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/proto"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/whatsapp/whatsapptest"
)

func TestNormalise(t *testing.T) {
	me := self{pn: ownPN, lid: ownLID}
	at := whatsapptest.Epoch
	lidSender := types.NewJID("55544433322211", types.HiddenUserServer)
	quoteOurs := func(text string) *waE2E.Message {
		return &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{
			Text: proto.String(text),
			ContextInfo: &waE2E.ContextInfo{StanzaID: proto.String("OURS1"), Participant: proto.String(ownPN.String()),
				QuotedMessage: &waE2E.Message{Conversation: proto.String("earlier answer")}},
		}}
	}
	image := &waE2E.Message{ImageMessage: &waE2E.ImageMessage{
		Caption: proto.String("look at this"), Mimetype: proto.String("image/jpeg"), FileLength: proto.Uint64(1234),
		DirectPath: proto.String("/v/t62/img"), MediaKey: []byte("key"), FileSHA256: []byte("sha"), FileEncSHA256: []byte("enc"),
	}}
	withMsg := func(e *events.Message, m *waE2E.Message) *events.Message { e.Message = m; return e }
	fromMe := whatsapptest.DM(ada, "M9", "sent from my phone")
	fromMe.Info.IsFromMe = true
	status := whatsapptest.DM(ada, "S1", "my status")
	status.Info.Chat = types.StatusBroadcastJID
	lidGroup := whatsapptest.GroupText(team, lidSender, "G3", "hi @bot", ownLID)
	lidGroup.Info.SenderAlt = whatsapptest.Phone("4915300000003")
	deviceSender := whatsapptest.DM(ada, "D2", "from my laptop")
	deviceSender.Info.Sender = types.NewADJID(ada.User, 0, 3)

	tests := []struct {
		name string
		evt  *events.Message
		ok   bool
		want channels.Inbound
	}{
		{name: "direct message", evt: whatsapptest.DM(ada, "M1", "hello"), ok: true, want: channels.Inbound{
			EventID: "M1", Kind: channels.EventMessage, MessageID: "M1",
			Chat:   channels.Chat{ID: "4915200000002@s.whatsapp.net", Kind: channels.Direct, Title: "Ada"},
			Sender: channels.Sender{ID: "+4915200000002", Name: "Ada"}, Text: "hello", Time: at,
		}},
		{name: "sender device part dropped", evt: deviceSender, ok: true, want: channels.Inbound{
			EventID: "D2", Kind: channels.EventMessage, MessageID: "D2",
			Chat:   channels.Chat{ID: "4915200000002@s.whatsapp.net", Kind: channels.Direct, Title: "Ada"},
			Sender: channels.Sender{ID: "+4915200000002", Name: "Ada"}, Text: "from my laptop", Time: at,
		}},
		{name: "group mention by phone", evt: whatsapptest.GroupText(team, ada, "G1", "@4915100000001 status?", ownPN), ok: true, want: channels.Inbound{
			EventID: "G1", Kind: channels.EventMessage, MessageID: "G1",
			Chat:   channels.Chat{ID: "120363000000000001@g.us", Kind: channels.Group},
			Sender: channels.Sender{ID: "+4915200000002", Name: "Grace"}, Text: "@4915100000001 status?", Mentioned: true, Time: at,
		}},
		{name: "group mention by lid, sender number from SenderAlt", evt: lidGroup, ok: true, want: channels.Inbound{
			EventID: "G3", Kind: channels.EventMessage, MessageID: "G3",
			Chat:   channels.Chat{ID: "120363000000000001@g.us", Kind: channels.Group},
			Sender: channels.Sender{ID: "+4915300000003", Name: "Grace"}, Text: "hi @bot", Mentioned: true, Time: at,
		}},
		{name: "group without mention", evt: whatsapptest.GroupText(team, ada, "G2", "lunch?", ada), ok: true, want: channels.Inbound{
			EventID: "G2", Kind: channels.EventMessage, MessageID: "G2",
			Chat:   channels.Chat{ID: "120363000000000001@g.us", Kind: channels.Group},
			Sender: channels.Sender{ID: "+4915200000002", Name: "Grace"}, Text: "lunch?", Time: at,
		}},
		{name: "quoted reply to us", evt: withMsg(whatsapptest.GroupText(team, ada, "G4", ""), quoteOurs("and then?")), ok: true, want: channels.Inbound{
			EventID: "G4", Kind: channels.EventMessage, MessageID: "G4",
			Chat:   channels.Chat{ID: "120363000000000001@g.us", Kind: channels.Group},
			Sender: channels.Sender{ID: "+4915200000002", Name: "Grace"}, Text: "and then?", ReplyToID: "OURS1", Mentioned: true, Time: at,
		}},
		{name: "image with caption", evt: withMsg(whatsapptest.DM(ada, "I1", ""), image), ok: true, want: channels.Inbound{
			EventID: "I1", Kind: channels.EventMessage, MessageID: "I1",
			Chat:   channels.Chat{ID: "4915200000002@s.whatsapp.net", Kind: channels.Direct, Title: "Ada"},
			Sender: channels.Sender{ID: "+4915200000002", Name: "Ada"}, Text: "look at this", Time: at,
			Media: []channels.Media{{Kind: "photo", MIME: "image/jpeg", Size: 1234,
				FileID: `{"t":"image","p":"/v/t62/img","k":"a2V5","h":"c2hh","e":"ZW5j","n":1234,"m":"image/jpeg"}`}},
		}},
		{name: "reaction", evt: withMsg(whatsapptest.DM(ada, "R1", ""), &waE2E.Message{ReactionMessage: &waE2E.ReactionMessage{
			Key: &waCommon.MessageKey{ID: proto.String("OURS1")}, Text: proto.String("👍")}}), ok: true, want: channels.Inbound{
			EventID: "R1", Kind: channels.EventReaction, MessageID: "OURS1",
			Chat:   channels.Chat{ID: "4915200000002@s.whatsapp.net", Kind: channels.Direct, Title: "Ada"},
			Sender: channels.Sender{ID: "+4915200000002", Name: "Ada"}, Reaction: "👍", Time: at,
		}},
		{name: "edit", evt: withMsg(whatsapptest.DM(ada, "E1", ""), &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{
			Type: waE2E.ProtocolMessage_MESSAGE_EDIT.Enum(), Key: &waCommon.MessageKey{ID: proto.String("M1")},
			EditedMessage: &waE2E.Message{Conversation: proto.String("hello!")}}}), ok: true, want: channels.Inbound{
			EventID: "E1", Kind: channels.EventEdit, MessageID: "M1",
			Chat:   channels.Chat{ID: "4915200000002@s.whatsapp.net", Kind: channels.Direct, Title: "Ada"},
			Sender: channels.Sender{ID: "+4915200000002", Name: "Ada"}, Text: "hello!", Time: at,
		}},
		{name: "own message skipped", evt: fromMe},
		{name: "status broadcast skipped", evt: status},
		{name: "revoke skipped", evt: withMsg(whatsapptest.DM(ada, "X1", ""), &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{
			Type: waE2E.ProtocolMessage_REVOKE.Enum(), Key: &waCommon.MessageKey{ID: proto.String("M1")}}})},
		{name: "location skipped", evt: withMsg(whatsapptest.DM(ada, "L1", ""), &waE2E.Message{LocationMessage: &waE2E.LocationMessage{}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := normalise(tt.evt, me, "main")
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.ok, got)
			}
			if !ok {
				return
			}
			tt.want.Channel, tt.want.AccountID = Channel, "main"
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestMediaRefRoundTrip(t *testing.T) {
	m := &waE2E.Message{DocumentMessage: &waE2E.DocumentMessage{
		FileName: proto.String("report.pdf"), Mimetype: proto.String("application/pdf"), FileLength: proto.Uint64(99),
		DirectPath: proto.String("/v/doc"), MediaKey: []byte{1, 2, 3}, FileSHA256: []byte{4}, FileEncSHA256: []byte{5},
	}}
	media := mediaOf(m)
	if len(media) != 1 || media[0].Kind != "document" || media[0].Name != "report.pdf" {
		t.Fatalf("media %+v", media)
	}
	var ref mediaRef
	if err := json.Unmarshal([]byte(media[0].FileID), &ref); err != nil {
		t.Fatal(err)
	}
	d, err := ref.message()
	if err != nil {
		t.Fatal(err)
	}
	doc, ok := d.(*waE2E.DocumentMessage)
	if !ok || doc.GetDirectPath() != "/v/doc" || string(doc.GetMediaKey()) != "\x01\x02\x03" || doc.GetFileLength() != 99 {
		t.Errorf("rebuilt %T %v", d, d)
	}
}
