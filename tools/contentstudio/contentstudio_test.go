package contentstudio

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/contentstudio/contentstudiotest"
)

func TestScan(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		extra []string
		want  []string // term/category of each hit, in order
	}{
		{name: "clean", text: "今天分享三道家常菜的做法。"},
		{name: "extreme claim", text: "这是全网最低价，史上最好用！", want: []string{"全网最/extreme-claim", "最低价/extreme-claim", "史上最/extreme-claim", "最好/extreme-claim"}},
		{name: "guaranteed return, both terms", text: "稳赚不赔的理财", want: []string{"稳赚/guaranteed-return", "稳赚不赔/guaranteed-return"}},
		{name: "inducement, English, any case", text: "Share To Win a phone", want: []string{"share to win/inducement"}},
		{name: "extra words", text: "买它就对了", extra: []string{"买它", " "}, want: []string{"买它/extra"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Scan(tt.text, tt.extra)
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Term+"/"+h.Category)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || res.Passed != (len(tt.want) == 0) {
				t.Fatalf("hits %v passed %v, want %v", got, res.Passed, tt.want)
			}
		})
	}
	if h := Scan("保本，保本，保本", nil).Hits[0]; h.Count != 3 || h.Positions[1] != 3 {
		t.Fatalf("count and rune positions: %+v", h)
	}
}

// env is a workspace and a database with the calendar's table.
func env(t *testing.T) (Config, string) {
	t.Helper()
	st := storetest.Open(t, Migrations())
	ws := t.TempDir()
	clock := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	return Config{Workspace: func(tools.Who) (string, error) { return ws, nil }, DB: st.DB, Now: func() time.Time { return clock }}, ws
}

func call(t *testing.T, cfg Config, name, args string, who tools.Who) (tools.Result, error) {
	t.Helper()
	for _, tool := range Tools(cfg) {
		if tool.Spec().Name == name {
			return tool.Call(context.Background(), tools.Call{Name: name, Args: json.RawMessage(args), Who: who})
		}
	}
	t.Fatalf("no tool %s", name)
	return tools.Result{}, nil
}

var alice, bob = tools.Who{AgentID: "alice"}, tools.Who{AgentID: "bob"}

func TestContentCalendar(t *testing.T) {
	cfg, _ := env(t)
	res, err := call(t, cfg, "content_item", `{"action":"record","topic":"冬季护肤：三个误区","title":"护肤误区","platform":"xhs"}`, alice)
	if err != nil {
		t.Fatal(err)
	}
	var item Item
	json.Unmarshal([]byte(res.Text), &item)
	check := func(who tools.Who, topic string) (bool, string) {
		t.Helper()
		res, err := call(t, cfg, "content_item", `{"action":"check_recent","topic":"`+topic+`"}`, who)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Duplicate bool `json:"duplicate"`
		}
		json.Unmarshal([]byte(res.Text), &out)
		return out.Duplicate, res.Text
	}
	for _, tt := range []struct {
		who   tools.Who
		topic string
		dup   bool
	}{
		{alice, "冬季护肤 —— 三个误区!", true}, // punctuation does not make it new
		{alice, "冬季护肤的三个误区", true},     // close enough
		{alice, "夏天的防晒指南", false},
		{bob, "冬季护肤：三个误区", false}, // another agent's calendar
	} {
		if dup, text := check(tt.who, tt.topic); dup != tt.dup {
			t.Errorf("%s %q: duplicate %v, want %v (%s)", tt.who.AgentID, tt.topic, dup, tt.dup, text)
		}
	}
	if _, err := call(t, cfg, "content_item", `{"action":"mark_published","id":"`+item.ID+`"}`, bob); err == nil {
		t.Fatal("bob marked alice's item")
	}
	if _, err := call(t, cfg, "content_item", `{"action":"mark_published","id":"`+item.ID+`","ref":"https://example.com/p/1"}`, alice); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, cfg, "content_item", `{"action":"record","topic":"x","platform":"tiktok"}`, alice); err == nil {
		t.Fatal("unknown platform accepted")
	}
	if _, err := call(t, cfg, "content_item", `{"action":"check_recent","topic":"x","days":9999}`, alice); err == nil {
		t.Fatal("days out of range accepted")
	}
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPackages(t *testing.T) {
	cfg, ws := env(t)
	write := func(name string, data []byte) {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cover.png", contentstudiotest.PNG(t, 900, 383))
	for _, n := range []string{"c1.png", "c2.png", "c3.png"} {
		write(n, contentstudiotest.PNG(t, 30, 40))
	}
	write("wide.png", contentstudiotest.PNG(t, 40, 30))
	write("notimage.png", []byte("hello"))

	res, err := call(t, cfg, "gzh_package", `{"title":"冬季护肤","markdown":"# 误区\n\n少洗脸。<script>alert(1)</script>\n\n> 引用","cover":"cover.png"}`, alice)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Package string `json:"package"`
	}
	json.Unmarshal([]byte(res.Text), &out)
	if !strings.HasPrefix(out.Package, "exports/gzh/20261203-090000-") {
		t.Fatalf("package %q", out.Package)
	}
	html, err := os.ReadFile(filepath.Join(ws, out.Package, "article.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<h1 style="font-size:22px;`) || !strings.Contains(string(html), `<blockquote style=`) || strings.Contains(string(html), "<script>") {
		t.Fatalf("article.html: %s", html)
	}
	if _, err := os.Stat(filepath.Join(ws, out.Package, "cover.png")); err != nil {
		t.Fatal(err)
	}
	if dup, _ := call(t, cfg, "content_item", `{"action":"check_recent","topic":"冬季护肤"}`, alice); !strings.Contains(dup.Text, `"duplicate":true`) {
		t.Fatalf("the package was not recorded: %s", dup.Text)
	}

	for _, tt := range []struct{ name, tool, args, err string }{
		{"flagged copy is refused", "gzh_package", `{"title":"稳赚理财","markdown":"零风险","cover":"cover.png"}`, "compliance scan found 稳赚"},
		{"cover not an image", "gzh_package", `{"title":"t","markdown":"m","cover":"notimage.png"}`, "not a JPEG or PNG"},
		{"cover outside the workspace", "gzh_package", `{"title":"t","markdown":"m","cover":"../../etc/passwd"}`, "outside"},
		{"title too long", "gzh_package", `{"title":"` + strings.Repeat("长", 65) + `","markdown":"m","cover":"cover.png"}`, "longer than 64"},
		{"two cards", "xhs_package", `{"title":"t","body":"b","cards":["c1.png","c2.png"]}`, "at least 3 cards"},
		{"a wide card", "xhs_package", `{"title":"t","body":"b","cards":["c1.png","c2.png","wide.png"]}`, "card 3 (wide.png) is 40x30"},
		{"a card outside", "xhs_package", `{"title":"t","body":"b","cards":["c1.png","c2.png","/etc/hostname"]}`, "card 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := call(t, cfg, tt.tool, tt.args, alice); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err %v, want %q", err, tt.err)
			}
		})
	}
	res, err = call(t, cfg, "xhs_package", `{"title":"冬日早餐","body":"三种做法","cards":["c1.png","c2.png","c3.png"],"tags":["早餐"]}`, alice)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(res.Text), &out)
	note, err := os.ReadFile(filepath.Join(ws, out.Package, "note.json"))
	if err != nil || !strings.Contains(string(note), `"cards":["card-01.png","card-02.png","card-03.png"]`) {
		t.Fatalf("note.json %s %v", note, err)
	}
}

const articlePage = `<html><head><meta property="og:title" content="OG title"><meta name="author" content="Meta Author"></head><body>
<h1 id="activity-name">  冬季护肤指南 </h1><a id="js_name">护肤研究所</a>
<div id="js_content"><p>第一段&nbsp;文字。</p><section><img data-src="https://mmbiz.qpic.cn/a.jpg"><img src="data:image/png;base64,xx"></section>
<p>第二段<br>换行</p><script>var secret = 1;</script></div>
<script>var ct = "1764720000";</script></body></html>`

// fakeWeChat serves article pages whatever host the request names, as
// the transport of the tool under test.
type fakeWeChat struct{ srv *httptest.Server }

func (f fakeWeChat) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	r2.URL.Scheme, r2.URL.Host = "http", f.srv.Listener.Addr().String()
	return http.DefaultTransport.RoundTrip(r2)
}

func TestWeChatArticleExtract(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/s/ok":
			w.Write([]byte(articlePage))
		case "/s/away":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/s/big":
			w.Write(bytes.Repeat([]byte("a"), maxArticleBytes+10))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	cfg, _ := env(t)
	cfg.Transport = fakeWeChat{srv}

	res, err := call(t, cfg, "wechat_article_extract", `{"url":"https://mp.weixin.qq.com/s/ok"}`, alice)
	if err != nil {
		t.Fatal(err)
	}
	var a Article
	json.Unmarshal([]byte(res.Text), &a)
	if a.Title != "冬季护肤指南" || a.Author != "护肤研究所" || a.Time != "2025-12-03T00:00:00Z" ||
		a.Body != "第一段 文字。\n\n第二段\n换行" || len(a.Images) != 1 || a.Images[0] != "https://mmbiz.qpic.cn/a.jpg" {
		t.Fatalf("%+v", a)
	}
	// What a prompt-injected model could try.
	for _, tt := range []struct{ url, err string }{
		{"http://mp.weixin.qq.com/s/ok", "only https://mp.weixin.qq.com/"},
		{"https://mp.weixin.qq.com.evil.example/s/ok", "only https://"},
		{"https://evil.example/?u=mp.weixin.qq.com", "only https://"},
		{"https://mp.weixin.qq.com:8443/s/ok", "only https://"},
		{"https://user@mp.weixin.qq.com/s/ok", "only https://"},
		{"https://127.0.0.1/s/ok", "only https://"},
		{"https://mp.weixin.qq.com/s/away", "only https://"}, // the redirect off the host
		{"https://mp.weixin.qq.com/s/big", "over 8 MB"},
		{"https://mp.weixin.qq.com/s/missing", "HTTP 404"},
	} {
		if _, err := call(t, cfg, "wechat_article_extract", `{"url":"`+tt.url+`"}`, alice); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err %v, want %q", tt.url, err, tt.err)
		}
	}
}

func FuzzParseArticle(f *testing.F) {
	f.Add([]byte(articlePage))
	f.Add([]byte(`<div id="js_content">` + strings.Repeat("<div>", 2000) + `x`))
	f.Add([]byte(`<meta property="og:title"><div id=js_content><img data-src="https://a/b"></div><script>var ct = "99999999999"</script>`))
	f.Fuzz(func(t *testing.T, page []byte) {
		a, err := ParseArticle(page)
		if err != nil {
			return
		}
		if len([]rune(a.Body)) > maxArticleBody+40 || len(a.Images) > maxImages {
			t.Fatalf("limits: %d runes, %d images", len([]rune(a.Body)), len(a.Images))
		}
	})
}
