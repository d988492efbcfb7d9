// Package telegram is the Telegram channel adapter. Its formatting half is
// pure: it turns an agent's Markdown into Telegram's HTML parse mode, or into
// plain text when Telegram refuses that HTML.
package telegram
