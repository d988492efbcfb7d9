package contentstudio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	wsfs "github.com/openclaw-go/openclaw/tools/fs"
)

// WeChatAPI is the Official Account platform's API.
const WeChatAPI = "https://api.weixin.qq.com"

// WeChat credentials are read from the environment, like the search
// providers' keys: the AppID and AppSecret of the account's developer
// settings.
const (
	EnvWeChatAppID     = "WECHAT_APP_ID"
	EnvWeChatAppSecret = "WECHAT_APP_SECRET"
)

const maxAPIAnswer = 1 << 20

// wechat is a client of the Official Account API. It gets its token with
// stable_token (credentials in the POST body, not in a URL); the API takes
// the access token as a query parameter, so no URL is ever logged or put
// in an error.
type wechat struct {
	base   string
	client *http.Client
	env    func(string) string
}

// apiError is the platform's {errcode, errmsg} answer.
type apiError struct {
	Code    int    `json:"errcode"`
	Message string `json:"errmsg"`
}

func (e apiError) err(what string) error {
	if e.Code == 0 {
		return nil
	}
	hint := ""
	switch e.Code {
	case 40001, 40125, 40164, 42001:
		hint = " (check WECHAT_APP_ID, WECHAT_APP_SECRET and the account's IP whitelist)"
	case 45009, 45011:
		hint = " (the account's daily API quota is used up)"
	case 48001:
		hint = " (the account has no permission for this API; draft and publish need a verified account)"
	}
	return fmt.Errorf("%s: WeChat error %d: %s%s", what, e.Code, e.Message, hint)
}

func (w *wechat) do(ctx context.Context, what, method, p string, q url.Values, body io.Reader, ctype string, out any) error {
	u := strings.TrimRight(w.base, "/") + p
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, err := w.client.Do(req)
	if err != nil {
		// url.Error carries the URL, and so the token: keep only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAPIAnswer))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", what, res.StatusCode)
	}
	var e apiError
	if json.Unmarshal(raw, &e) == nil {
		if err := e.err(what); err != nil {
			return err
		}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: the answer is not JSON: %w", what, err)
	}
	return nil
}

func (w *wechat) token(ctx context.Context) (string, error) {
	id, secret := strings.TrimSpace(w.env(EnvWeChatAppID)), strings.TrimSpace(w.env(EnvWeChatAppSecret))
	if id == "" || secret == "" {
		return "", fmt.Errorf("gzh_publish needs %s and %s in the gateway's environment", EnvWeChatAppID, EnvWeChatAppSecret)
	}
	body, _ := json.Marshal(map[string]any{"grant_type": "client_credential", "appid": id, "secret": secret})
	var out struct {
		Token string `json:"access_token"`
	}
	if err := w.do(ctx, "get an access token", http.MethodPost, "/cgi-bin/stable_token", nil, bytes.NewReader(body), "application/json", &out); err != nil {
		return "", err
	}
	if out.Token == "" {
		return "", errors.New("get an access token: the answer has none")
	}
	return out.Token, nil
}

func (w *wechat) uploadCover(ctx context.Context, token, name string, data []byte) (string, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile("media", name)
	if err != nil {
		return "", err
	}
	fw.Write(data)
	mw.Close()
	var out struct {
		MediaID string `json:"media_id"`
	}
	q := url.Values{"access_token": {token}, "type": {"image"}}
	if err := w.do(ctx, "upload the cover", http.MethodPost, "/cgi-bin/material/add_material", q, &b, mw.FormDataContentType(), &out); err != nil {
		return "", err
	}
	return out.MediaID, nil
}

func (w *wechat) postJSON(ctx context.Context, what, p, token string, in, out any) error {
	body, _ := json.Marshal(in)
	return w.do(ctx, what, http.MethodPost, p, url.Values{"access_token": {token}}, bytes.NewReader(body), "application/json", out)
}

// PublishArgs are gzh_publish's arguments.
type PublishArgs struct {
	Package string `json:"package" jsonschema:"description=A folder gzh_package made (exports/gzh/…)"`
	Publish bool   `json:"publish,omitempty" jsonschema:"description=Also publish the draft; a person must approve it"`
}

// publisher pushes gzh packages to the account's draft box.
type publisher struct {
	api       *wechat
	workspace func(tools.Who) (string, error)
	approver  tools.Approver
	cal       *Calendar
}

// gzhMeta is the part of meta.json publishing reads.
type gzhMeta struct {
	Platform      string `json:"platform"`
	Title         string `json:"title"`
	Author        string `json:"author"`
	Digest        string `json:"digest"`
	Cover         string `json:"cover"`
	Content       string `json:"content"`
	ContentItemID string `json:"contentItemId"`
}

func (p *publisher) call(ctx context.Context, c tools.Call, a PublishArgs) (tools.Result, error) {
	dir, err := p.workspace(c.Who)
	if err != nil {
		return tools.Result{}, err
	}
	ws, err := wsfs.OpenWorkspace(dir)
	if err != nil {
		return tools.Result{}, err
	}
	defer ws.Close()
	rel, err := ws.Rel(a.Package)
	if err != nil {
		return tools.Result{}, err
	}
	if !strings.HasPrefix(rel+"/", exportsDir+"/gzh/") {
		return tools.Result{}, fmt.Errorf("%s is not a gzh_package folder (exports/gzh/…)", a.Package)
	}
	raw, err := ws.ReadFile(path.Join(rel, "meta.json"))
	if err != nil {
		return tools.Result{}, fmt.Errorf("read the package: %w", err)
	}
	var m gzhMeta
	if err := json.Unmarshal(raw, &m); err != nil || m.Platform != "gzh" || m.Title == "" {
		return tools.Result{}, fmt.Errorf("%s/meta.json is not a gzh package's", a.Package)
	}
	// The names come from the package file, which the model can edit:
	// they must be plain names inside the folder.
	for _, n := range []string{m.Cover, m.Content} {
		if n == "" || strings.ContainsAny(n, `/\`) || n == "." || n == ".." {
			return tools.Result{}, fmt.Errorf("%s/meta.json names a file outside the package", a.Package)
		}
	}
	html, err := ws.ReadFile(path.Join(rel, m.Content))
	if err != nil {
		return tools.Result{}, fmt.Errorf("read the article: %w", err)
	}
	// Re-scan what goes out: the files may have been edited since.
	if scan := Scan(m.Title+"\n"+m.Digest+"\n"+string(html), nil); !scan.Passed && a.Publish {
		return tools.Result{}, flagged(scan, false)
	}
	cover, _, _, err := readImage(ws, path.Join(rel, m.Cover))
	if err != nil {
		return tools.Result{}, fmt.Errorf("cover: %w", err)
	}
	if a.Publish {
		// Ask before anything leaves: a published article is public and
		// cannot be taken back quietly.
		if p.approver == nil {
			return tools.Result{}, errors.New("publish needs a person's approval, and this gateway has no approver")
		}
		args, _ := json.Marshal(map[string]any{"package": rel, "title": m.Title, "publish": true})
		ok, _, err := p.approver.Approve(ctx, tools.ApprovalRequest{Tool: "gzh_publish", Args: args, Who: c.Who, Reason: "publish the WeChat article " + m.Title})
		if err != nil || !ok {
			return tools.Result{}, errors.New("publishing was not approved; the article was not sent")
		}
	}
	token, err := p.api.token(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	thumb, err := p.api.uploadCover(ctx, token, m.Cover, cover)
	if err != nil {
		return tools.Result{}, err
	}
	var draft struct {
		MediaID string `json:"media_id"`
	}
	article := map[string]any{"title": m.Title, "author": m.Author, "digest": m.Digest, "content": string(html), "thumb_media_id": thumb, "need_open_comment": 0}
	if err := p.api.postJSON(ctx, "add the draft", "/cgi-bin/draft/add", token, map[string]any{"articles": []any{article}}, &draft); err != nil {
		return tools.Result{}, err
	}
	out := map[string]any{"draftMediaId": draft.MediaID, "published": false}
	if a.Publish {
		var pub struct {
			PublishID string `json:"publish_id"`
		}
		if err := p.api.postJSON(ctx, "publish the draft", "/cgi-bin/freepublish/submit", token, map[string]any{"media_id": draft.MediaID}, &pub); err != nil {
			return tools.Result{}, err
		}
		out["published"], out["publishId"] = true, pub.PublishID
		if m.ContentItemID != "" {
			if err := p.cal.MarkPublished(ctx, c.Who.AgentID, m.ContentItemID, "wechat:publish:"+pub.PublishID); err != nil {
				out["calendar"] = err.Error()
			}
		}
	}
	return tools.Result{Text: tools.EncodeJSON(out)}, nil
}

func publishTool(p *publisher) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "gzh_publish", Label: "Publish a WeChat article",
		Description: "Push a gzh_package folder to the WeChat Official Account's draft box; with publish, also publish it once a person approves.",
		Source:      tools.SourceCore, Groups: []string{"group:mateclaw"}, Dangerous: true, OwnerOnly: true, Timeout: 2 * time.Minute,
	}, p.call)
}
