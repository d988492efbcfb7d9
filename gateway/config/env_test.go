package config

import (
	"fmt"
	"slices"
	"strings"
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

// A secret naming an unset variable is unavailable: its value is empty,
// never the "${VAR}" text (which a gateway would take as its token), and
// it is listed in UnresolvedSecrets with its position. An escaped $${VAR}
// is a literal value, not a missing variable.
func TestUnresolvedSecretIsUnavailable(t *testing.T) {
	src := "{\n  gateway: { auth: { token: '${OPENCLAW_GATEWAY_TOKEN}', password: '$${NOT_A_VAR}' } },\n" +
		"  channels: { telegram: { botToken: { source: 'env', provider: 'default', id: 'TG_TOKEN' } } },\n}"
	snap, errs, warns := parseTest(t, src, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	tok := snap.Config.Gateway.Auth.Token
	if tok.Value != "" || tok.IsSet() || !slices.Equal(tok.Unresolved, []string{"OPENCLAW_GATEWAY_TOKEN"}) {
		t.Errorf("token = %+v (value %q), want unavailable naming OPENCLAW_GATEWAY_TOKEN", tok, tok.Value)
	}
	if pw := snap.Config.Gateway.Auth.Password; pw.Value != "${NOT_A_VAR}" || pw.Unresolved != nil {
		t.Errorf("escaped password = %+v", pw)
	}
	var got []string
	for _, is := range snap.UnresolvedSecrets {
		got = append(got, fmt.Sprintf("%d:%d %s", is.Line, is.Column, is.Path))
	}
	if want := []string{"2:29 gateway.auth.token", "3:37 channels.telegram.botToken"}; !slices.Equal(got, want) {
		t.Errorf("UnresolvedSecrets = %q, want %q", got, want)
	}
	for _, w := range warns {
		if strings.Contains(w, "left as written") {
			t.Errorf("a secret's warning says its text is used: %s", w)
		}
	}
	want := `openclaw.json:2:29: gateway.auth.token: environment variable OPENCLAW_GATEWAY_TOKEN is not set; the secret is unavailable`
	if !slices.Contains(warns, want) {
		t.Errorf("warnings:\n%q\nwant %q", warns, want)
	}
}
