package browser

import (
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

func callJSON(t *testing.T, m *Manager, args string) (string, error) {
	t.Helper()
	res, err := m.Tool().Call(context.Background(), tools.Call{Name: "browser", Args: json.RawMessage(args)})
	if err == nil && res.IsError {
		err = errString(res.Text)
	}
	return res.Text, err
}

func TestProfiles(t *testing.T) {
	state := t.TempDir()
	lan := func() netguard.Policy {
		return netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	}
	m := NewManager(Config{StateDir: state, Policy: lan})
	defer m.Close()

	for _, c := range []struct {
		name, args string
		ok         bool
	}{
		{"local", `{"action":"create-profile","name":"work"}`, true},
		{"remote", `{"action":"create-profile","name":"remote-1","cdpUrl":"http://10.0.0.5:9222"}`, true},
		{"duplicate", `{"action":"create-profile","name":"work"}`, false},
		{"upper case", `{"action":"create-profile","name":"Work"}`, false},
		{"path", `{"action":"create-profile","name":"../x"}`, false},
		{"too long", `{"action":"create-profile","name":"` + strings.Repeat("a", 65) + `"}`, false},
		{"bad cdpUrl", `{"action":"create-profile","name":"r2","cdpUrl":"file:///x"}`, false},
		{"blocked cdpUrl", `{"action":"create-profile","name":"r3","cdpUrl":"http://169.254.169.254:9222"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := callJSON(t, m, c.args)
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want ok=%v", err, c.ok)
			}
		})
	}

	// A new Manager over the same state sees what the first one saved.
	m2 := NewManager(Config{StateDir: state})
	defer m2.Close()
	out, err := callJSON(t, m2, `{"action":"profiles"}`)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Profiles []struct {
			Name    string `json:"name"`
			CDPPort int    `json:"cdpPort"`
			CDPURL  string `json:"cdpUrl"`
			Default bool   `json:"default"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, p := range got.Profiles {
		byName[p.Name] = i
	}
	if i, ok := byName[DefaultProfileName]; !ok || !got.Profiles[i].Default {
		t.Errorf("default profile not listed: %s", out)
	}
	if i, ok := byName["work"]; !ok || got.Profiles[i].CDPPort < firstCDPPort || got.Profiles[i].CDPPort > lastCDPPort {
		t.Errorf("work profile missing or without a port: %s", out)
	}
	if i, ok := byName["remote-1"]; !ok || got.Profiles[i].CDPURL == "" {
		t.Errorf("remote profile missing: %s", out)
	}

	for _, c := range []struct {
		name, args string
		ok         bool
	}{
		{"remote refused", `{"action":"delete-profile","name":"remote-1"}`, false},
		{"default refused", `{"action":"delete-profile","name":"openclaw"}`, false},
		{"unknown", `{"action":"delete-profile","name":"nope"}`, false},
		{"reset remote refused", `{"action":"reset-profile","name":"remote-1"}`, false},
		{"local", `{"action":"delete-profile","name":"work"}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := callJSON(t, m2, c.args)
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want ok=%v", err, c.ok)
			}
		})
	}
	if out, _ := callJSON(t, m2, `{"action":"profiles"}`); strings.Contains(out, `"work"`) {
		t.Errorf("deleted profile still listed: %s", out)
	}
}

func TestSpec(t *testing.T) {
	s := NewManager(Config{}).Tool().Spec()
	// Dangerous: the profiles hold the owner's logins, so anyone else's
	// call waits for a person.
	if s.Name != "browser" || s.Tier != tools.TierExtension || s.Source != tools.SourceCore || len(s.Groups) != 1 || s.Groups[0] != "group:ui" || s.Timeout == 0 || !s.Dangerous {
		t.Fatalf("spec: %+v", s)
	}
}

func TestKeyFor(t *testing.T) {
	for _, c := range []struct {
		key  string
		want string
		ok   bool
	}{
		{"Enter", "\r", true},
		{"enter", "\r", true},
		{"Tab", "\t", true},
		{"a", "a", true},
		{"Escape", "\u001b", true},
		{"ArrowDown", "\u0301", true},
		{"", "", false},
		{"NotAKey", "", false},
	} {
		got, err := keyFor(c.key)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("keyFor(%q) = %q, %v; want %q ok=%v", c.key, got, err, c.want, c.ok)
		}
	}
}

// Reconfigure (a config reload) changes the configured profiles and the
// default for the calls that follow.
func TestReconfigureProfiles(t *testing.T) {
	m := NewManager(Config{StateDir: t.TempDir(), Profiles: map[string]Profile{"old": {CDPPort: 18801}}})
	defer m.Close()
	m.Reconfigure(Settings{DefaultProfile: "main", Profiles: map[string]Profile{"new": {CDPPort: 18802}}})
	out, err := callJSON(t, m, `{"action":"profiles"}`)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Profiles []struct {
			Name    string `json:"name"`
			Default bool   `json:"default"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	names := map[string]bool{}
	for _, p := range got.Profiles {
		names[p.Name] = p.Default
	}
	if _, ok := names["old"]; ok {
		t.Errorf("profile removed from the config still listed: %s", out)
	}
	if _, ok := names["new"]; !ok || !names["main"] {
		t.Errorf("profiles after Reconfigure = %s, want new and the default main", out)
	}
}
