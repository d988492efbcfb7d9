package contentstudio

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/contentstudio/contentstudiotest"
)

type fixedApprover struct {
	ok    bool
	asked int
}

func (a *fixedApprover) Approve(context.Context, tools.ApprovalRequest) (bool, string, error) {
	a.asked++
	return a.ok, "ap-1", nil
}

func TestGzhPublish(t *testing.T) {
	setup := func(t *testing.T, ap *fixedApprover) (Config, *contentstudiotest.WeChat, string) {
		cfg, ws := env(t)
		mp := contentstudiotest.NewWeChat(t)
		cfg.WeChatAPI, cfg.WeChatClient = mp.URL, mp.Client()
		cfg.Getenv = func(k string) string {
			return map[string]string{EnvWeChatAppID: "wx-app", EnvWeChatAppSecret: "APP-SECRET-xyz"}[k]
		}
		if ap != nil {
			cfg.Approver = ap
		}
		os.WriteFile(filepath.Join(ws, "cover.png"), contentstudiotest.PNG(t, 900, 383), 0o644)
		res, err := call(t, cfg, "gzh_package", `{"title":"冬季护肤","markdown":"少洗脸。","cover":"cover.png"}`, alice)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Package string `json:"package"`
		}
		json.Unmarshal([]byte(res.Text), &out)
		return cfg, mp, out.Package
	}

	t.Run("draft", func(t *testing.T) {
		cfg, mp, pkg := setup(t, nil)
		res, err := call(t, cfg, "gzh_publish", `{"package":"`+pkg+`"}`, alice)
		if err != nil || res.Text != `{"draftMediaId":"DRAFT-1","published":false}` {
			t.Fatalf("%+v %v", res, err)
		}
		want := []string{"POST /cgi-bin/stable_token?", "POST /cgi-bin/material/add_material?access_token=ACCESS-TOKEN-123&type=image", "POST /cgi-bin/draft/add?access_token=ACCESS-TOKEN-123"}
		if strings.Join(mp.Calls(), "\n") != strings.Join(want, "\n") {
			t.Fatalf("calls:\n%s", strings.Join(mp.Calls(), "\n"))
		}
		// The app secret travels in a POST body, never a URL.
		if !strings.Contains(mp.Bodies()[0], `"secret":"APP-SECRET-xyz"`) || strings.Contains(strings.Join(mp.Calls(), ""), "APP-SECRET") {
			t.Fatalf("token request: %v %v", mp.Calls()[0], mp.Bodies()[0])
		}
		var draft struct {
			Articles []map[string]any `json:"articles"`
		}
		json.Unmarshal([]byte(mp.Bodies()[2]), &draft)
		if a := draft.Articles[0]; a["title"] != "冬季护肤" || a["thumb_media_id"] != "THUMB-1" || !strings.Contains(a["content"].(string), "少洗脸") {
			t.Fatalf("draft %v", a)
		}
	})
	t.Run("publish after approval marks the calendar", func(t *testing.T) {
		ap := &fixedApprover{ok: true}
		cfg, mp, pkg := setup(t, ap)
		res, err := call(t, cfg, "gzh_publish", `{"package":"`+pkg+`","publish":true}`, alice)
		if err != nil || !strings.Contains(res.Text, `"publishId":"PUB-9"`) || ap.asked != 1 {
			t.Fatalf("%+v %v asked %d", res, err, ap.asked)
		}
		if last := mp.Calls()[len(mp.Calls())-1]; last != "POST /cgi-bin/freepublish/submit?access_token=ACCESS-TOKEN-123" {
			t.Fatalf("last call %s", last)
		}
		var published string
		cfg.DB.QueryRow(`SELECT status FROM content_items WHERE agent_id = 'alice'`).Scan(&published)
		if published != "published" {
			t.Fatalf("calendar status %q", published)
		}
	})
	t.Run("publish denied sends nothing", func(t *testing.T) {
		ap := &fixedApprover{ok: false}
		cfg, mp, pkg := setup(t, ap)
		if _, err := call(t, cfg, "gzh_publish", `{"package":"`+pkg+`","publish":true}`, alice); err == nil || !strings.Contains(err.Error(), "not approved") {
			t.Fatalf("err %v", err)
		}
		if len(mp.Calls()) != 0 {
			t.Fatalf("calls after a denial: %v", mp.Calls())
		}
	})
	t.Run("no approver, no publish", func(t *testing.T) {
		cfg, mp, pkg := setup(t, nil)
		if _, err := call(t, cfg, "gzh_publish", `{"package":"`+pkg+`","publish":true}`, alice); err == nil || len(mp.Calls()) != 0 {
			t.Fatalf("err %v calls %v", err, mp.Calls())
		}
	})
	t.Run("quota error said plainly, no token in it", func(t *testing.T) {
		cfg, mp, pkg := setup(t, nil)
		mp.FailOn("/cgi-bin/draft/add", 45009)
		_, err := call(t, cfg, "gzh_publish", `{"package":"`+pkg+`"}`, alice)
		if err == nil || !strings.Contains(err.Error(), "WeChat error 45009") || !strings.Contains(err.Error(), "quota") || strings.Contains(err.Error(), "ACCESS-TOKEN") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		cfg, mp, pkg := setup(t, nil)
		cfg.Getenv = func(string) string { return "" }
		if _, err := call(t, cfg, "gzh_publish", `{"package":"`+pkg+`"}`, alice); err == nil || !strings.Contains(err.Error(), EnvWeChatAppID) || len(mp.Calls()) != 0 {
			t.Fatalf("err %v calls %v", err, mp.Calls())
		}
	})
	// A prompt-injected model tries to publish something else than a
	// package: files outside exports/gzh, or a meta.json edited to point
	// outside its folder.
	t.Run("only package folders", func(t *testing.T) {
		cfg, mp, pkg := setup(t, nil)
		ws, _ := cfg.Workspace(alice)
		for _, p := range []string{".", "exports", "exports/xhs/x", "../" + filepath.Base(ws), "/etc"} {
			if _, err := call(t, cfg, "gzh_publish", `{"package":"`+p+`"}`, alice); err == nil {
				t.Errorf("%s accepted", p)
			}
		}
		meta := filepath.Join(ws, pkg, "meta.json")
		b, _ := os.ReadFile(meta)
		os.WriteFile(meta, []byte(strings.Replace(string(b), `"content":"article.html"`, `"content":"../../../../etc/passwd"`, 1)), 0o644)
		if _, err := call(t, cfg, "gzh_publish", `{"package":"`+pkg+`"}`, alice); err == nil || !strings.Contains(err.Error(), "outside the package") {
			t.Fatalf("edited meta.json: %v", err)
		}
		if len(mp.Calls()) != 0 {
			t.Fatalf("calls %v", mp.Calls())
		}
	})
}
