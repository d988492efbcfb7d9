package whatsapptest

import (
	"time"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/proto"
)

// Phone is the phone-number JID of digits.
func Phone(digits string) types.JID { return types.NewJID(digits, types.DefaultUserServer) }

// Group is the JID of a group id.
func Group(id string) types.JID { return types.NewJID(id, types.GroupServer) }

// Epoch is the timestamp of the messages built here.
var Epoch = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// DM is a direct text message from a person.
func DM(from types.JID, id, text string) *events.Message {
	return &events.Message{
		Info: types.MessageInfo{
			MessageSource: types.MessageSource{Chat: from, Sender: from},
			ID:            id, PushName: "Ada", Timestamp: Epoch, Type: "text",
		},
		Message: &waE2E.Message{Conversation: proto.String(text)},
	}
}

// GroupText is a text message in a group that mentions the given JIDs.
func GroupText(group, from types.JID, id, text string, mentions ...types.JID) *events.Message {
	m := &waE2E.Message{Conversation: proto.String(text)}
	if len(mentions) > 0 {
		var ids []string
		for _, j := range mentions {
			ids = append(ids, j.String())
		}
		m = &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{
			Text: proto.String(text), ContextInfo: &waE2E.ContextInfo{MentionedJID: ids},
		}}
	}
	return &events.Message{
		Info: types.MessageInfo{
			MessageSource: types.MessageSource{Chat: group, Sender: from, IsGroup: true},
			ID:            id, PushName: "Grace", Timestamp: Epoch, Type: "text",
		},
		Message: m,
	}
}
