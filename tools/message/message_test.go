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

type fakeMessenger struct {
	routes map[string]Conversation
	acts   []string
	files  map[string]string // sent file base name -> content
}

func (f *fakeMessenger) Conversation(ctx context.Context, key, runID string) (Conversation, bool, error) {
	c, ok := f.routes[key]
	return c, ok, nil
}

func (f *fakeMessenger) Act(ctx context.Context, to Conversation, action string, params map[string]any, key string) (any, error) {
	b, _ := json.Marshal(params)
	f.acts = append(f.acts, to.Channel+"/"+to.AccountID+"/"+to.ChatID+"/"+to.ThreadID+" "+action+" "+string(b))
	return map[string]any{"ok": true}, nil
}

func (f *fakeMessenger) SendFile(ctx context.Context, to Conversation, file, caption, key string) (any, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	f.files[filepath.Base(file)] = string(b)
	return map[string]any{"ok": true}, nil
}

func TestMessageTool(t *testing.T) {
	fm := &fakeMessenger{routes: map[string]Conversation{"agent:main:main": {Channel: "telegram", AccountID: "default", ChatID: "42"}}, files: map[string]string{}}
	ws := t.TempDir()
	msg := Tools(fm, func(tools.Who) (string, error) { return ws, nil })[0]
	tests := []struct {
		name, session, args, want, err string
		owner                          bool
	}{
		{"bound session defaults to its chat", "agent:main:main", `{"action":"send","message":"hi"}`, `telegram/default/42/ send {"message":"hi"}`, "", false},
		{"bound session may name its own chat", "agent:main:main", `{"action":"react","target":"42","messageId":"7","emoji":"👍"}`, `telegram/default/42/ react {"emoji":"👍","messageId":"7"}`, "", false},
		{"bound session may not message others", "agent:main:main", `{"action":"send","target":"43","message":"x"}`, "", "may only go to that chat", false},
		{"bound session may not switch channel", "agent:main:main", `{"action":"send","channel":"discord","message":"x"}`, "", "may only go to that chat", false},
		{"unbound session must name a target", "agent:main:other", `{"action":"send","message":"x"}`, "", "name a channel and a target", false},
		{"unbound session with a target", "agent:main:other", `{"action":"poll","channel":"telegram","target":"9","question":"Q","options":["a","b"]}`, `telegram//9/ poll {"options":["a","b"],"question":"Q"}`, "", false},
		{"read passes its bounds", "agent:main:main", `{"action":"read","limit":20,"before":"99"}`, `telegram/default/42/ read {"before":"99","limit":20}`, "", false},
		{"thread-create names the thread", "agent:main:main", `{"action":"thread-create","threadName":"Plans","messageId":"5","autoArchiveMinutes":60}`, `telegram/default/42/ thread-create {"autoArchiveMinutes":60,"messageId":"5","threadName":"Plans"}`, "", false},
		{"a stranger cannot ban", "agent:main:main", `{"action":"ban","userId":"7","reason":"spam"}`, "", "only the owner", false},
		{"a stranger cannot time out", "agent:main:main", `{"action":"timeout","userId":"7","durationMinutes":10}`, "", "only the owner", false},
		{"a stranger cannot add a role", "agent:main:main", `{"action":"role-add","userId":"7","roleId":"admin"}`, "", "only the owner", false},
		{"a stranger cannot kick", "agent:main:main", `{"action":"kick","userId":"7"}`, "", "only the owner", false},
		{"a stranger cannot create events", "agent:main:main", `{"action":"event-create","eventName":"x","startTime":"2027-01-01T10:00:00Z"}`, "", "only the owner", false},
		{"the owner may ban", "agent:main:main", `{"action":"ban","userId":"7","reason":"spam","deleteDays":1}`, `telegram/default/42/ ban {"deleteDays":1,"reason":"spam","userId":"7"}`, "", true},
		{"the owner still may not ban in another chat", "agent:main:main", `{"action":"ban","target":"43","userId":"7"}`, "", "may only go to that chat", true},
		{"the owner may time out until a time", "agent:main:main", `{"action":"timeout","userId":"7","until":"2027-01-01T10:00:00Z"}`, `telegram/default/42/ timeout {"until":"2027-01-01T10:00:00Z","userId":"7"}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm.acts = nil
			res, err := msg.Call(context.Background(), tools.Call{ID: "c1", Args: json.RawMessage(tt.args), Who: tools.Who{SessionKey: tt.session, RunID: "r", Owner: tt.owner}})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				if len(fm.acts) != 0 {
					t.Errorf("a refused call reached the channel: %q", fm.acts)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(fm.acts) != 1 || fm.acts[0] != tt.want {
				t.Errorf("acts %q, want %q (result %q)", fm.acts, tt.want, res.Text)
			}
		})
	}
}

func TestSendFile(t *testing.T) {
	fm := &fakeMessenger{routes: map[string]Conversation{"s": {Channel: "telegram", AccountID: "default", ChatID: "42"}}, files: map[string]string{}}
	ws := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(ws, "report.txt"), []byte("quarterly"), 0o600)
	os.Mkdir(filepath.Join(ws, "dir"), 0o700)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("nope"), 0o600)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, "link"))
	big, _ := os.Create(filepath.Join(ws, "big.bin"))
	big.Truncate(MaxFileBytes + 1)
	big.Close()
	sf := Tools(fm, func(tools.Who) (string, error) { return ws, nil })[1]
	tests := []struct{ name, session, path, err string }{
		{"sends a copy", "s", "report.txt", ""},
		{"missing", "s", "nope.txt", "does not exist"},
		{"directory", "s", "dir", "is a directory"},
		{"too big", "s", "big.bin", "the limit is 20 MB"},
		{"traversal", "s", "../x", "outside"},
		{"symlink out of the workspace", "s", "link", "escape"},
		{"not a chat session", "other", "report.txt", "not a chat conversation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(SendFileArgs{Path: tt.path})
			_, err := sf.Call(context.Background(), tools.Call{ID: "c", Args: args, Who: tools.Who{SessionKey: tt.session}})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fm.files["report.txt"] != "quarterly" {
				t.Errorf("sent %v", fm.files)
			}
		})
	}
}

// send with media attaches a workspace file, confined as send_file's.
func TestSendMedia(t *testing.T) {
	fm := &fakeMessenger{routes: map[string]Conversation{"s": {Channel: "telegram", AccountID: "default", ChatID: "42"}}, files: map[string]string{}}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "chart.png"), []byte("png"), 0o600)
	msg := Tools(fm, func(tools.Who) (string, error) { return ws, nil })[0]
	tests := []struct{ name, args, err string }{
		{"sends the file with its caption", `{"action":"send","media":"chart.png","message":"this week"}`, ""},
		{"not out of the workspace", `{"action":"send","media":"../../etc/passwd"}`, "outside"},
		{"not with react", `{"action":"react","media":"chart.png","messageId":"1","emoji":"x"}`, "media goes with send"},
		{"not to another chat", `{"action":"send","target":"43","media":"chart.png"}`, "may only go to that chat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(fm.files)
			_, err := msg.Call(context.Background(), tools.Call{ID: "c", Args: json.RawMessage(tt.args), Who: tools.Who{SessionKey: "s", RunID: "r"}})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				if len(fm.files) != 0 {
					t.Errorf("sent %v", fm.files)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fm.files["chart.png"] != "png" {
				t.Errorf("sent %v", fm.files)
			}
		})
	}
}

// emoji-upload hands the channel a private copy of the workspace image,
// for the owner only.
func TestEmojiUploadMedia(t *testing.T) {
	fm := &fakeMessenger{routes: map[string]Conversation{"s": {Channel: "discord", AccountID: "default", ChatID: "42"}}, files: map[string]string{}}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "party.png"), []byte("png"), 0o600)
	msg := Tools(fm, func(tools.Who) (string, error) { return ws, nil })[0]
	args := json.RawMessage(`{"action":"emoji-upload","emojiName":"party","media":"party.png"}`)
	if _, err := msg.Call(context.Background(), tools.Call{ID: "c", Args: args, Who: tools.Who{SessionKey: "s", RunID: "r"}}); err == nil || !strings.Contains(err.Error(), "only the owner") {
		t.Fatalf("a stranger's upload: %v", err)
	}
	if _, err := msg.Call(context.Background(), tools.Call{ID: "c", Args: args, Who: tools.Who{SessionKey: "s", RunID: "r", Owner: true}}); err != nil {
		t.Fatal(err)
	}
	if len(fm.acts) != 1 || !strings.Contains(fm.acts[0], `emoji-upload {"emojiName":"party","media":"`) {
		t.Fatalf("acts %q", fm.acts)
	}
	var p struct{ Media string }
	json.Unmarshal([]byte(fm.acts[0][strings.Index(fm.acts[0], "{"):]), &p)
	if b, err := os.ReadFile(p.Media); err != nil || string(b) != "png" || strings.HasPrefix(p.Media, ws) {
		t.Errorf("media %s: %q, %v (want a copy outside the workspace)", p.Media, b, err)
	}
	if _, err := msg.Call(context.Background(), tools.Call{ID: "c", Args: json.RawMessage(`{"action":"emoji-upload","emojiName":"x","media":"../x"}`), Who: tools.Who{SessionKey: "s", RunID: "r", Owner: true}}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("upload from outside the workspace: %v", err)
	}
}
