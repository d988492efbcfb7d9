package config

import (
	"slices"
	"testing"
)

var envCases = []struct {
	name, in, want string
	missing        []string
}{
	{name: "no reference", in: "plain $ text", want: "plain $ text"},
	{name: "whole value", in: "${TOKEN}", want: "t0k"},
	{name: "inside text", in: "Bearer ${TOKEN}!", want: "Bearer t0k!"},
	{name: "two references", in: "${HOST}:${PORT}", want: "example:8080"},
	{name: "escape", in: "$${TOKEN}", want: "${TOKEN}"},
	{name: "escape beside a reference", in: "$${TOKEN}=${TOKEN}", want: "${TOKEN}=t0k"},
	{name: "missing stays", in: "x${NOPE}y", want: "x${NOPE}y", missing: []string{"NOPE"}},
	{name: "empty counts as missing", in: "${EMPTY}", want: "${EMPTY}", missing: []string{"EMPTY"}},
	{name: "missing reported once", in: "${NOPE}${NOPE}", want: "${NOPE}${NOPE}", missing: []string{"NOPE"}},
	{name: "lower case is not a variable", in: "${token}", want: "${token}"},
	{name: "leading digit is not a variable", in: "${1X}", want: "${1X}"},
	{name: "unclosed", in: "${TOKEN", want: "${TOKEN"},
	{name: "bare dollar name", in: "$TOKEN", want: "$TOKEN"},
	{name: "underscore names", in: "${_A_1}", want: "ok"},
	{name: "escape of a non-variable stays", in: "$${lower}", want: "$${lower}"},
	{name: "no recursion", in: "${NESTED}", want: "${TOKEN}"},
}

func TestExpandEnv(t *testing.T) {
	env := envFunc(map[string]string{
		"TOKEN": "t0k", "HOST": "example", "PORT": "8080", "EMPTY": "", "_A_1": "ok", "NESTED": "${TOKEN}",
	})
	for _, tc := range envCases {
		t.Run(tc.name, func(t *testing.T) {
			got, missing := expandEnv(tc.in, env)
			if got != tc.want || !slices.Equal(missing, tc.missing) {
				t.Errorf("expandEnv(%q) = %q, %q; want %q, %q", tc.in, got, missing, tc.want, tc.missing)
			}
		})
	}
}

func TestSubstitutionInConfig(t *testing.T) {
	src := "{\n  gateway: { auth: { token: '${GW_TOKEN}' }, remote: { url: 'wss://${GW_HOST}/' } },\n  agents: { defaults: { workspace: '$${HOME}/w' } },\n}"
	snap, errs, warns := parseTest(t, src, map[string]string{"GW_TOKEN": "abc"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := snap.Config.Gateway.Auth.Token.Value; got != "abc" {
		t.Errorf("token = %q", got)
	}
	if got := snap.Config.Gateway.Remote.URL; got != "wss://${GW_HOST}/" {
		t.Errorf("url = %q", got)
	}
	ws := snap.Tree["agents"].(map[string]any)["defaults"].(map[string]any)["workspace"]
	if ws != "${HOME}/w" {
		t.Errorf("escaped value = %q", ws)
	}
	want := `openclaw.json:2:61: gateway.remote.url: environment variable GW_HOST is not set; "${GW_HOST}" is left as written`
	if !slices.Contains(warns, want) {
		t.Errorf("warnings:\n%q\nwant %q", warns, want)
	}
	if string(snap.Raw) != src {
		t.Error("Raw must be the text as written, before substitution")
	}
}
