// Package slack is the Slack channel adapter, over slack-go.
//
// It receives in one of two modes. Socket Mode (the default, with an xapp
// app token) keeps a WebSocket to Slack through slack-go/socketmode and
// acknowledges each envelope only after the sink stored its event, so an
// envelope that was not stored is redelivered by Slack. HTTP Events mode
// (a signing secret and no app token) serves Slack's Request URL through
// the channels.Webhook capability: the X-Slack-Signature is checked before
// the body is parsed, and the answer is 200 only once the event is stored.
//
// Outbound text is the agent's Markdown converted to Slack mrkdwn by
// ToMrkdwn, which is pure and has golden tests; buttons become a Block Kit
// actions block and attachments go through Slack's external upload flow.
//
// An Adapter is safe for concurrent use: Send and the actions may run
// while the receive loop does. Start and Stop run once each.
package slack
