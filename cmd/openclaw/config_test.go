package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleConfig = `// my gateway
{
  gateway: {
    port: 18800, // chosen by hand
    auth: { token: 'hunter2' },
  },
}
`

// TestConfigEdit walks a JSON5 file through set, get and unset.
func TestConfigEdit(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	writeConfig(t, path, sampleConfig)

	steps := []struct {
		name       string
		args       []string
		wantOut    string // exact stdout
		wantErr    string // substring of stderr; the run must fail
		fileHas    []string
		fileHasNot []string
	}{
		{name: "get all is redacted", args: []string{"config", "get"},
			wantOut: "{\n  \"gateway\": {\n    \"auth\": {\n      \"token\": \"__OPENCLAW_REDACTED__\"\n    },\n    \"port\": 18800\n  }\n}\n"},
		{name: "get scalar", args: []string{"config", "get", "gateway.port"}, wantOut: "18800\n"},
		{name: "get secret", args: []string{"config", "get", "gateway.auth.token"}, wantOut: "__OPENCLAW_REDACTED__\n"},
		{name: "get missing", args: []string{"config", "get", "gateway.nope"}, wantErr: "no value at gateway.nope"},
		{name: "set keeps comments", args: []string{"config", "set", "gateway.port", "18900"},
			wantOut: "Set gateway.port in " + path + "\n",
			fileHas: []string{"// my gateway", "port: 18900, // chosen by hand", "token: 'hunter2'"}},
		{name: "set json5 string", args: []string{"config", "set", "gateway.bind", "'lan'"},
			fileHas: []string{`"lan"`}},
		{name: "set plain text", args: []string{"config", "set", "gateway.controlUi.basePath", "/ui"},
			fileHas: []string{`"/ui"`}},
		{name: "strict json refuses json5", args: []string{"config", "set", "gateway.bind", "'auto'", "--strict-json"},
			wantErr: "value is not valid JSON", fileHasNot: []string{"auto"}},
		{name: "invalid value refused", args: []string{"config", "set", "gateway.port", "99999999"},
			wantErr: "gateway.port", fileHas: []string{"port: 18900"}},
		// The object the key emptied goes with it; the others stay.
		{name: "unset", args: []string{"config", "unset", "gateway.controlUi.basePath"},
			fileHas: []string{"// my gateway", "port: 18900"}, fileHasNot: []string{"/ui", "controlUi"}},
		// As OpenClaw: an absent key is an error that says nothing changed.
		{name: "unset missing", args: []string{"config", "unset", "gateway.controlUi.basePath"},
			wantErr: "Config path not found: gateway.controlUi.basePath. Nothing was changed."},
		{name: "bad path", args: []string{"config", "get", "gateway..port"}, wantErr: "parse key path"},
	}
	for _, st := range steps {
		stdout, stderr, err := runCLI(t, st.args...)
		if st.wantErr != "" {
			if err == nil || !strings.Contains(stderr, st.wantErr) {
				t.Errorf("%s: err %v stderr %q, want %q", st.name, err, stderr, st.wantErr)
			}
		} else if err != nil {
			t.Errorf("%s: %v\n%s", st.name, err, stderr)
		}
		if st.wantOut != "" && stdout != st.wantOut {
			t.Errorf("%s: stdout\n%s\nwant\n%s", st.name, stdout, st.wantOut)
		}
		data, _ := os.ReadFile(path)
		for _, s := range st.fileHas {
			if !strings.Contains(string(data), s) {
				t.Errorf("%s: file lacks %q:\n%s", st.name, s, data)
			}
		}
		for _, s := range st.fileHasNot {
			if strings.Contains(string(data), s) {
				t.Errorf("%s: file still has %q:\n%s", st.name, s, data)
			}
		}
		if strings.Contains(stdout+stderr, "hunter2") {
			t.Errorf("%s: output shows the token", st.name)
		}
	}
}

func TestConfigSetCreatesFile(t *testing.T) {
	home := isolate(t)
	if _, stderr, err := runCLI(t, "config", "set", "gateway.auth.token", "tok", "--dev"); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	path := filepath.Join(home, ".openclaw-dev", "openclaw.json")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	stdout, _, _ := runCLI(t, "config", "file", "--dev")
	if stdout != path+"\n" {
		t.Errorf("config file = %q, want %s", stdout, path)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantFail bool
		wantOut  []string
	}{
		{name: "missing file", wantOut: []string{"No config file at", "the defaults apply"}},
		{name: "valid", content: sampleConfig, wantOut: []string{"is valid (0 warnings)"}},
		{name: "errors with positions", wantFail: true,
			content: "{\n  gateway: {\n    port: 'x',\n    bogus: 1,\n  },\n}\n",
			wantOut: []string{"openclaw.json:3:11: gateway.port:", "openclaw.json:4:5: gateway.bogus:", "is invalid: 2 errors"}},
		{name: "syntax error", content: "{ gateway: ", wantFail: true, wantOut: []string{"error: ", "openclaw.json:1:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			writeConfig(t, filepath.Join(home, ".openclaw", "openclaw.json"), tc.content)
			stdout, stderr, err := runCLI(t, "config", "validate")
			if (err != nil) != tc.wantFail {
				t.Errorf("err = %v, want failure %v", err, tc.wantFail)
			}
			if stderr != "" {
				t.Errorf("stderr = %q", stderr)
			}
			for _, want := range tc.wantOut {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout = %q, want %q", stdout, want)
				}
			}

			stdout, _, err = runCLI(t, "config", "validate", "--json")
			var res struct {
				OK     bool
				Issues []struct{ Severity, Path string }
			}
			if jerr := json.Unmarshal([]byte(stdout), &res); jerr != nil {
				t.Fatalf("--json output %q: %v", stdout, jerr)
			}
			if res.OK == tc.wantFail || (err != nil) != tc.wantFail {
				t.Errorf("--json ok = %v, err = %v", res.OK, err)
			}
		})
	}
}

func TestParseConfigValue(t *testing.T) {
	for _, tc := range []struct {
		in     string
		strict bool
		want   string // JSON of the result
	}{
		{"18789", false, `18789`},
		{"true", false, `true`},
		{`"quoted"`, false, `"quoted"`},
		{"'single'", false, `"single"`},
		{"{a: 1, b: [1, 2,]}", false, `{"a":1,"b":[1,2]}`},
		{"plain text", false, `"plain text"`},
		{"1, w: 2", false, `"1, w: 2"`},
		{"// note", false, `"// note"`},
		{`{"a":1}`, true, `{"a":1}`},
	} {
		v, err := parseConfigValue(tc.in, tc.strict)
		got, _ := json.Marshal(v)
		if err != nil || string(got) != tc.want {
			t.Errorf("parseConfigValue(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := parseConfigValue("'x'", true); err == nil {
		t.Error("strict accepted JSON5")
	}
}

func TestConfigSchema(t *testing.T) {
	isolate(t)
	stdout, _, err := runCLI(t, "config", "schema")
	var s map[string]any
	if err != nil || json.Unmarshal([]byte(stdout), &s) != nil || s["properties"] == nil {
		t.Errorf("schema: %v %.200s", err, stdout)
	}
}
