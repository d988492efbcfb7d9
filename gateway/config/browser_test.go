package config

import (
	"strings"
	"testing"
)

func TestBrowserConfig(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		errs      []string
		warnMatch string
	}{
		{"fine", `{browser: {defaultProfile: "work", profiles: {work: {cdpPort: 18801}, remote: {cdpUrl: "ws://10.0.0.5:9222/devtools/browser/x"}}}}`, nil, ""},
		{"bad default name", `{browser: {defaultProfile: "Work"}}`, []string{`browser.defaultProfile: profile name "Work"`}, ""},
		{"bad profile name", `{browser: {profiles: {"my_profile": {}}}}`, []string{`profile name "my_profile"`}, ""},
		{"port out of range", `{browser: {profiles: {a: {cdpPort: 9222}}}}`, []string{"browser.profiles.a.cdpPort: cdpPort 9222 is outside 18800–18899"}, ""},
		{"port twice", `{browser: {profiles: {a: {cdpPort: 18810}, b: {cdpPort: 18810}}}}`, []string{"cdpPort 18810 is also profile a's"}, ""},
		{"bad cdpUrl", `{browser: {profiles: {r: {cdpUrl: "10.0.0.5:9222"}}}}`, []string{`cdpUrl "10.0.0.5:9222" is not`}, ""},
		{"content studio fine", `{tools: {contentStudio: {xhsCreatorUrl: "https://creator.xiaohongshu.com/publish/publish", xhsProfile: "xhs"}}}`, nil, ""},
		{"creator page over http", `{tools: {contentStudio: {xhsCreatorUrl: "http://creator.xiaohongshu.com/publish/publish"}}}`, []string{`tools.contentStudio.xhsCreatorUrl: xhsCreatorUrl "http://creator.xiaohongshu.com/publish/publish" is not an https URL`}, ""},
		{"creator page not a URL", `{tools: {contentStudio: {xhsCreatorUrl: "creator.xiaohongshu.com"}}}`, []string{"is not an https URL"}, ""},
		{"bad xhs profile", `{tools: {contentStudio: {xhsProfile: "My Profile"}}}`, []string{`tools.contentStudio.xhsProfile: profile name "My Profile"`}, ""},
		{"private network warns", `{browser: {ssrfPolicy: {dangerouslyAllowPrivateNetwork: true}}}`, nil, "may reach this machine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, warns := parseTest(t, tt.src, nil)
			got := strings.Join(errs, "\n")
			if len(tt.errs) == 0 && len(errs) > 0 {
				t.Fatalf("errors: %q", errs)
			}
			for _, want := range tt.errs {
				if !strings.Contains(got, want) {
					t.Errorf("errors %q, want one containing %q", errs, want)
				}
			}
			if tt.warnMatch != "" && !strings.Contains(strings.Join(warns, "\n"), tt.warnMatch) {
				t.Errorf("warnings %q, want %q", warns, tt.warnMatch)
			}
		})
	}
}
