package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/toolhost"
	"github.com/openclaw-go/openclaw/tools/contentstudio"
	"github.com/openclaw-go/openclaw/tools/contentstudio/contentstudiotest"
)

// TestContentStudioInATurn: in agent turns the model packages a WeChat
// article and a Xiaohongshu note into the workspace, then publishes the
// article; nothing reaches the WeChat fake until a person approves on
// the bus, and then the draft is added and published and the content
// calendar says so.
func TestContentStudioInATurn(t *testing.T) {
	model := fakemodel.New(t)
	mp := contentstudiotest.NewWeChat(t)
	env := map[string]string{contentstudio.EnvWeChatAppID: "wx-turn", contentstudio.EnvWeChatAppSecret: "SECRET-turn"}
	r, c := startWithConfigEnv(t, model, "", env, func(o *Options) {
		o.toolhost = func(th *toolhost.Options) { th.WeChatAPI, th.WeChatClient = mp.URL, mp.Client() }
	})
	ws := filepath.Join(r.dir, "workspace")
	cover := contentstudiotest.PNG(t, 900, 383)
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cover.png", cover)
	card := contentstudiotest.PNG(t, 600, 800) // 3:4, vertical
	for i := 1; i <= 3; i++ {
		write(fmt.Sprintf("cards/%d.png", i), card)
	}

	model.Script(
		calls([3]string{"g1", "gzh_package", `{"title":"冬季护肤","digest":"三个小习惯","markdown":"## 少洗脸\n\n每天一次就够。","cover":"cover.png","topic":"冬季护肤"}`},
			[3]string{"x1", "xhs_package", `{"title":"护肤三步","body":"洗、润、防晒。","cards":["cards/1.png","cards/2.png","cards/3.png"],"tags":["护肤","冬季"]}`}),
		fakemodel.Reply{Text: "packaged"},
	)
	res := runTurn(t, c, model, "package my winter skincare post", "cs-1")
	var gzh struct {
		Package string   `json:"package"`
		Files   []string `json:"files"`
	}
	if err := json.Unmarshal([]byte(res["g1"]), &gzh); err != nil || !strings.HasPrefix(gzh.Package, "exports/gzh/") {
		t.Fatalf("gzh_package: %q %v", res["g1"], err)
	}
	html, err := os.ReadFile(filepath.Join(ws, gzh.Package, "article.html"))
	if err != nil {
		t.Fatal(err)
	}
	says(t, "article.html", string(html), `<h2 style="font-size:19px;`, "每天一次就够。")
	if got, _ := os.ReadFile(filepath.Join(ws, gzh.Package, "cover.png")); !bytes.Equal(got, cover) {
		t.Error("the package's cover is not the workspace's")
	}
	var xhs struct {
		Package string   `json:"package"`
		Cards   []string `json:"cards"`
	}
	if err := json.Unmarshal([]byte(res["x1"]), &xhs); err != nil || !strings.HasPrefix(xhs.Package, "exports/xhs/") || len(xhs.Cards) != 3 {
		t.Fatalf("xhs_package: %q %v", res["x1"], err)
	}
	for _, name := range xhs.Cards {
		if got, _ := os.ReadFile(filepath.Join(ws, xhs.Package, name)); !bytes.Equal(got, card) {
			t.Errorf("card %s is not in the package", name)
		}
	}
	note, _ := os.ReadFile(filepath.Join(ws, xhs.Package, "note.json"))
	says(t, "note.json", string(note), `"tags":["护肤","冬季"]`, `"card-03.png"`)

	// The publish turn: the call waits for a person.
	model.Script(
		calls([3]string{"p1", "gzh_publish", `{"package":"` + gzh.Package + `","publish":true}`}),
		calls([3]string{"k1", "content_item", `{"action":"check_recent","topic":"冬季护肤"}`}),
		fakemodel.Reply{Text: "published"},
	)
	// The turn's error comes back on a channel: the goroutine may outlive
	// a test that failed while it waited.
	turn := make(chan error, 1)
	go func() {
		var final map[string]any
		turn <- c.CallFinal(context.Background(), "agent", map[string]any{"message": "publish it", "idempotencyKey": "cs-2"}, &final)
	}()
	ask := nextEvent(t, c, "exec.approval.requested", nil)
	says(t, "the approval request", fmt.Sprint(ask), "gzh_publish", "冬季护肤")
	if got := mp.Calls(); len(got) != 0 {
		t.Fatalf("WeChat was called before the approval: %v", got)
	}
	call[map[string]any](t, c, "exec.approval.resolve", map[string]any{"id": ask["id"], "decision": "allow-once"})
	if err := <-turn; err != nil {
		t.Fatal(err)
	}
	res = lastToolResults(model)

	says(t, "gzh_publish", res["p1"], `"published":true`, `"publishId":"`+contentstudiotest.PublishID+`"`, `"draftMediaId":"`+contentstudiotest.DraftID+`"`)
	if !mp.Saw("/cgi-bin/draft/add") || !mp.Saw("/cgi-bin/freepublish/submit") {
		t.Fatalf("WeChat calls after the approval: %v", mp.Calls())
	}
	// The gateway's environment gave the credentials; the secret went in a
	// body, and the draft is the packaged article.
	bodies := strings.Join(mp.Bodies(), "\n")
	says(t, "WeChat request bodies", bodies, `"appid":"wx-turn"`, `"secret":"SECRET-turn"`, `"title":"冬季护肤"`, "每天一次就够。",
		`"media_id":"`+contentstudiotest.DraftID+`"`)
	says(t, "content_item after publishing", res["k1"], `"duplicate":true`, `"status":"published"`, "wechat:publish:"+contentstudiotest.PublishID)
}
