package mateclaw

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/openclaw-go/openclaw/tools"
)

var testDocs = fstest.MapFS{
	"README.md":             {Data: []byte("# openclaw-go\nIntro text.\n\n## Install\nRun scripts/gateway.sh to start.\n\n```sh\n# not a heading inside a fence\n```\n\n## Channels\nTelegram needs a bot token.\n")},
	"docs/ARCHITECTURE.md":  {Data: []byte("# Architecture\n## Policy\nThe policy chain: profile, byProvider, allow/deny. Telegram adapters live in channels.\n")},
	"openclaw.json.example": {Data: []byte("{ gateway: { port: 18789 } }\n")},
}

func callDoc(t *testing.T, args string) (tools.Result, error) {
	t.Helper()
	return DocTool(testDocs).Call(context.Background(), tools.Call{Name: "MateClawDocTool", Args: json.RawMessage(args)})
}

func TestDocTool(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    []string // substrings of the answer
		notWant []string
		err     string
	}{
		{name: "list names every document and its headings", args: `{}`,
			want: []string{"- README.md: openclaw-go · Install · Channels", "- docs/ARCHITECTURE.md: Architecture · Policy", "- openclaw.json.example"}},
		{name: "read a document", args: `{"path":"docs/ARCHITECTURE.md"}`, want: []string{"The policy chain"}},
		{name: "read a section", args: `{"path":"README.md","section":"install"}`,
			want: []string{"## Install", "scripts/gateway.sh", "# not a heading inside a fence"}, notWant: []string{"Telegram"}},
		{name: "a heading in a code fence is not a section", args: `{"path":"README.md","section":"not a heading inside a fence"}`, err: "no section"},
		{name: "search ranks a heading match first", args: `{"query":"telegram channels"}`,
			want: []string{"## README.md — Channels\n## Channels\nTelegram needs a bot token.", "[2 sections matched"}},
		{name: "search with no match says so", args: `{"query":"kubernetes"}`, want: []string{"nothing in the documentation matches"}},
		{name: "page with offset", args: `{"path":"openclaw.json.example","offset":2}`, want: []string{"gateway: { port"}, notWant: []string{"{ gateway"}},
		{name: "offset past the end", args: `{"path":"README.md","offset":100000}`, err: "outside README.md"},
		// A prompt-injected model may try to read the host through it:
		// the names are the embedded documents', never paths on disk.
		{name: "no host file by absolute path", args: `{"path":"/etc/passwd"}`, err: `no document "etc/passwd"`},
		{name: "no escape by dot-dot", args: `{"path":"docs/../../../etc/passwd"}`, err: "no document"},
		{name: "no gateway config", args: `{"path":"~/.openclaw/openclaw.json"}`, err: "no document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := callDoc(t, tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q (answer %q)", err, tt.err, res.Text)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("answer lacks %q:\n%s", w, res.Text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(res.Text, w) {
					t.Errorf("answer holds %q:\n%s", w, res.Text)
				}
			}
		})
	}
}

func TestDocToolPagesALongDocument(t *testing.T) {
	long := strings.Repeat("é", docReadChars+10)
	docs := fstest.MapFS{"big.md": {Data: []byte(long)}}
	res, err := DocTool(docs).Call(context.Background(), tools.Call{Args: json.RawMessage(`{"path":"big.md"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "read on with offset 12000") {
		t.Fatalf("no paging hint: %q", res.Text[len(res.Text)-80:])
	}
	res, err = DocTool(docs).Call(context.Background(), tools.Call{Args: json.RawMessage(`{"path":"big.md","offset":12000}`)})
	if err != nil || res.Text != strings.Repeat("é", 10) {
		t.Fatalf("%q %v", res.Text, err)
	}
}
