// Package whatsapp is the WhatsApp channel adapter, a linked device of a
// person's WhatsApp account over go.mau.fi/whatsmeow.
//
// The device's keys live in whatsmeow's own tables (whatsmeow_*) in the
// gateway's one SQLite database, opened through modernc.org/sqlite; the
// whatsapp_accounts table maps each configured account to its device.
// Linking is interactive (LoginFlow: a QR code, or a pairing code typed on
// the phone); an account that is not linked reports logged-out and waits.
//
// Everything the adapter uses of *whatsmeow.Client goes through the small
// Client interface, so tests run against whatsapptest.Fake instead of
// WhatsApp's servers. The Markdown to WhatsApp conversion (ToWhatsApp) is
// pure and golden-tested.
//
// Concurrency: the adapter's run goroutine owns connecting and
// reconnecting; whatsmeow calls the event handler from its own goroutines,
// and an inbound message is stored (Sink.Receive) inside that call, before
// whatsmeow acknowledges it. Send and the other actions may be called from
// any goroutine.
package whatsapp
