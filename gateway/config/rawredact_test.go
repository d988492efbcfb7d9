package config

import (
	"bytes"
	"testing"
)

// tools.web.fetch.headers values are secrets whatever their names: the
// raw text config.get shows hides them, and writing that text back
// restores them instead of sending the placeholder as a header.
func TestRawConfigHidesWebFetchHeaders(t *testing.T) {
	raw := []byte(`{tools: {web: {fetch: {userAgent: "ua/1", headers: {"X-Gw-Auth": "hunter2-secret", Plain: "staging-route"}}}}}`)
	tree, err := ParseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	shown, err := RedactRaw(raw, tree)
	if err != nil {
		t.Fatalf("RedactRaw: %v", err)
	}
	for _, secret := range []string{"hunter2-secret", "staging-route"} {
		if bytes.Contains(shown, []byte(secret)) {
			t.Errorf("redacted text still holds %q: %s", secret, shown)
		}
	}
	if !bytes.Contains(shown, []byte("ua/1")) {
		t.Errorf("redacted text lost a plain value: %s", shown)
	}
	back, unrestored := RestoreRedacted(shown, raw, tree)
	if len(unrestored) > 0 {
		t.Fatalf("unrestored %v", unrestored)
	}
	got, err := ParseObject(back)
	if err != nil {
		t.Fatal(err)
	}
	h := got["tools"].(map[string]any)["web"].(map[string]any)["fetch"].(map[string]any)["headers"].(map[string]any)
	if h["X-Gw-Auth"] != "hunter2-secret" || h["Plain"] != "staging-route" {
		t.Errorf("restored headers = %v", h)
	}
}
