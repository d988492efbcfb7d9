package contentstudio

import (
	"database/sql"
	"log/slog"
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
	// Browser opens the tab xhs_publish fills; nil makes xhs_publish
	// answer that there is no browser.
	Browser XhsBrowser
	// XhsCreatorURL is the creator publish page (default XhsCreatorURL)
	// and XhsProfile the browser profile logged in to it (default: the
	// browser's default profile), read at each call so a config reload
	// applies. Only the operator's config sets them, never a model.
	XhsCreatorURL func() string
	XhsProfile    func() string
	// Log receives what xhs_publish did; nil discards.
	Log *slog.Logger
}

// Tools returns compliance_scan, content_item, gzh_package, xhs_package,
// wechat_article_extract, gzh_publish and xhs_publish.
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
	xp := &xhsPublisher{browser: cfg.Browser, workspace: cfg.Workspace, approver: cfg.Approver, cal: cal,
		url: func() string { return XhsCreatorURL }, profile: func() string { return "" }, log: cfg.Log}
	if cfg.XhsCreatorURL != nil {
		xp.url = func() string { return cmpOr(cfg.XhsCreatorURL(), XhsCreatorURL) }
	}
	if cfg.XhsProfile != nil {
		xp.profile = cfg.XhsProfile
	}
	if xp.log == nil {
		xp.log = slog.New(slog.DiscardHandler)
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
		xhsPublishTool(xp),
	}
}
