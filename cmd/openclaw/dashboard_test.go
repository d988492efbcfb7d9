package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeOpener puts an xdg-open (and open) on PATH that records its argv
// and environment, and returns the file it writes.
func fakeOpener(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rec := filepath.Join(dir, "argv")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + rec + "\nenv >> " + rec + "\n"
	for _, name := range []string{"xdg-open", "open"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	t.Setenv("DISPLAY", ":99")
	return rec
}

func TestDashboardOpensWithoutToken(t *testing.T) {
	home := isolate(t)
	state := filepath.Join(home, ".openclaw")
	os.MkdirAll(state, 0o700)
	os.WriteFile(filepath.Join(state, "openclaw.json"), []byte(`{gateway: {port: 18999, auth: {token: "`+testToken+`"}}}`), 0o600)
	t.Setenv(envGatewayToken, testToken)
	rec := fakeOpener(t)
	stdout, stderr, err := runCLI(t, "dashboard")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if strings.TrimSpace(stdout) != "http://127.0.0.1:18999/" {
		t.Errorf("stdout %q", stdout)
	}
	got, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("the browser launcher did not run: %v (stderr %q)", err, stderr)
	}
	if !strings.HasPrefix(string(got), "http://127.0.0.1:18999/\n") {
		t.Errorf("launcher argv/env:\n%s", got)
	}
	for _, out := range []string{stdout, stderr, string(got)} {
		if strings.Contains(out, testToken) {
			t.Errorf("the token leaked into %q", out)
		}
	}
}

func TestDashboardNoOpenAndJSON(t *testing.T) {
	isolate(t)
	cases := []struct {
		name string
		args []string
	}{
		{"no-open", []string{"dashboard", "--no-open", "--url", "wss://gw.example.com:8443/?token=" + testToken}},
		{"json", []string{"dashboard", "--json", "--url", "wss://gw.example.com:8443/#token=" + testToken}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := fakeOpener(t)
			stdout, stderr, err := runCLI(t, c.args...)
			if err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			if _, err := os.Stat(rec); err == nil {
				t.Error("a browser was launched")
			}
			if strings.Contains(stdout+stderr, testToken) {
				t.Errorf("token printed: %q %q", stdout, stderr)
			}
			if c.name == "json" {
				var info dashboardInfo
				if err := json.Unmarshal([]byte(stdout), &info); err != nil {
					t.Fatal(err)
				}
				if info.URL != "https://gw.example.com:8443/" || info.WSURL != "wss://gw.example.com:8443/" || info.Port != 8443 || info.TokenIncluded {
					t.Errorf("json %+v", info)
				}
			} else if strings.TrimSpace(stdout) != "https://gw.example.com:8443/" {
				t.Errorf("stdout %q", stdout)
			}
		})
	}
}

func TestBrowserEnvDropsSecrets(t *testing.T) {
	got := browserEnv([]string{"PATH=/bin", envGatewayToken + "=t", envGatewayPassword + "=p", "DISPLAY=:0"})
	if strings.Join(got, " ") != "PATH=/bin DISPLAY=:0" {
		t.Errorf("browserEnv = %v", got)
	}
}
