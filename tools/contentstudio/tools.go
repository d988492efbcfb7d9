package contentstudio

import (
	"database/sql"
	"net/http"
	"os"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// Config is what the Content Studio tools need.
type Config struct {
	// Workspace maps a caller to its workspace, where packages go.
	Workspace func(tools.Who) (string, error)
	// DB holds the content calendar (Migrations).
	DB *sql.DB
	// Transport fetches articles; nil is a client that refuses internal
	// addresses (netguard). Tests point it at a fake.
	Transport http.RoundTripper
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Approver asks a person before gzh_publish publishes.
	Approver tools.Approver
	// WeChatAPI is the Official Account API's base URL (default
	// WeChatAPI); WeChatClient reaches it (default: the guarded client).
	WeChatAPI    string
	WeChatClient *http.Client
	// Getenv reads the WeChat credentials; nil is os.Getenv.
	Getenv func(string) string
}

// Tools returns compliance_scan, content_item, gzh_package, xhs_package,
// wechat_article_extract and gzh_publish.
func Tools(cfg Config) []tools.Tool {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	rt := cfg.Transport
	if rt == nil {
		rt = netguard.NewClient(netguard.Options{Timeout: 30 * time.Second, MaxRedirects: -1}).Transport
	}
	cal := &Calendar{DB: cfg.DB, Now: now}
	api := &wechat{base: cmpOr(cfg.WeChatAPI, WeChatAPI), client: cfg.WeChatClient, env: cfg.Getenv}
	if api.client == nil {
		api.client = netguard.NewClient(netguard.Options{Timeout: 60 * time.Second, MaxRedirects: -1})
	}
	if api.env == nil {
		api.env = os.Getenv
	}
	p := &packer{workspace: cfg.Workspace, cal: cal, now: now}
	return []tools.Tool{
		scanTool(),
		itemTool(cal),
		tools.NewTyped(tools.Spec{
			Name: "gzh_package", Label: "Package a WeChat article",
			Description: "Package a WeChat Official Account article in your workspace (exports/gzh/…): Markdown to inline-styled HTML, the cover, meta.json; runs compliance_scan first and records it in the content calendar.",
			Source:      tools.SourceCore, Groups: []string{"group:mateclaw"}, Timeout: tools.TimeoutFast,
		}, p.gzh),
		tools.NewTyped(tools.Spec{
			Name: "xhs_package", Label: "Package a Xiaohongshu note",
			Description: "Package a Xiaohongshu note in your workspace (exports/xhs/…): at least 3 vertical image cards, title, body and tags; runs compliance_scan first and records it in the content calendar.",
			Source:      tools.SourceCore, Groups: []string{"group:mateclaw"}, Timeout: tools.TimeoutFast,
		}, p.xhs),
		extractTool(newExtractor(rt)),
		publishTool(&publisher{api: api, workspace: cfg.Workspace, approver: cfg.Approver, cal: cal}),
	}
}
