package message

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// TestSendFileHardLinkRefused performs the hard-link attack on send_file:
// a file outside the workspace, hard-linked in, must not be sent to a
// chat.
func TestSendFileHardLinkRefused(t *testing.T) {
	fm := &fakeMessenger{routes: map[string]Conversation{"s": {Channel: "telegram", AccountID: "default", ChatID: "42"}}, files: map[string]string{}}
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "id_ed25519"), []byte("private key"), 0o600)
	if err := os.Link(filepath.Join(outside, "id_ed25519"), filepath.Join(ws, "report.txt")); err != nil {
		t.Fatal(err)
	}
	sf := Tools(fm, func(tools.Who) (string, error) { return ws, nil })[1]
	args, _ := json.Marshal(SendFileArgs{Path: "report.txt"})
	_, err := sf.Call(context.Background(), tools.Call{ID: "c", Args: args, Who: tools.Who{SessionKey: "s"}})
	if err == nil || !strings.Contains(err.Error(), "more than one hard link") || len(fm.files) != 0 {
		t.Fatalf("err %v, sent %v; want the hard link refused", err, fm.files)
	}
}
