package config

import (
	"strings"
	"testing"
)

func TestSecretRefsHeldToTheirProviders(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		env     map[string]string
		value   string // models.providers.p.apiKey after loading
		problem string // in its Problem and in the unresolved issues
		err     string // a load error instead
	}{
		{name: "built-in env", src: `{models: {providers: {p: {apiKey: {source: "env", provider: "default", id: "K"}}}}}`,
			env: map[string]string{"K": "v1"}, value: "v1"},
		{name: "env allowlist admits", src: `{secrets: {providers: {default: {source: "env", allowlist: ["K"]}}},
			models: {providers: {p: {apiKey: {source: "env", provider: "default", id: "K"}}}}}`,
			env: map[string]string{"K": "v1"}, value: "v1"},
		{name: "env allowlist refuses", src: `{secrets: {providers: {default: {source: "env", allowlist: ["OTHER"]}}},
			models: {providers: {p: {apiKey: {source: "env", provider: "default", id: "K"}}}}}`,
			env: map[string]string{"K": "v1"}, problem: `"K" is not in secrets.providers.default.allowlist`},
		{name: "empty allowlist denies all", src: `{secrets: {providers: {default: {source: "env", allowlist: []}}},
			models: {providers: {p: {apiKey: {source: "env", provider: "default", id: "K"}}}}}`,
			env: map[string]string{"K": "v1"}, problem: "allowlist"},
		{name: "other env alias unconfigured", src: `{models: {providers: {p: {apiKey: {source: "env", provider: "team", id: "K"}}}}}`,
			env: map[string]string{"K": "v1"}, problem: `secret provider "team" is not configured`},
		{name: "defaults.env renames the built-in", src: `{secrets: {defaults: {env: "team"}},
			models: {providers: {p: {apiKey: {source: "env", provider: "team", id: "K"}}}}}`,
			env: map[string]string{"K": "v1"}, value: "v1"},
		{name: "file ref without provider", src: `{models: {providers: {p: {apiKey: {source: "file", provider: "vault", id: "/a"}}}}}`,
			problem: `secret provider "vault" is not configured`},
		{name: "source mismatch", src: `{secrets: {providers: {vault: {source: "exec", command: "/bin/x"}}},
			models: {providers: {p: {apiKey: {source: "file", provider: "vault", id: "/a"}}}}}`,
			problem: `has source "exec" but the ref asks for "file"`},
		{name: "exec relative command", src: `{secrets: {providers: {vault: {source: "exec", command: "vault"}}},
			models: {providers: {p: {apiKey: {source: "exec", provider: "vault", id: "a"}}}}}`,
			problem: "must be an absolute path"},
		{name: "plugin integration", src: `{secrets: {providers: {op: {source: "exec", pluginIntegration: {pluginId: "x", integrationId: "y"}}}},
			models: {providers: {p: {apiKey: {source: "exec", provider: "op", id: "op://a/b"}}}}}`,
			problem: "plugin integrations"},
		{name: "singleValue wants value", src: `{secrets: {providers: {f: {source: "file", path: "/s", mode: "singleValue"}}},
			models: {providers: {p: {apiKey: {source: "file", provider: "f", id: "/a"}}}}}`,
			problem: `its ref id must be "value"`},
		{name: "file pending for the gateway", src: `{secrets: {providers: {f: {source: "file", path: "/s"}}},
			models: {providers: {p: {apiKey: {source: "file", provider: "f", id: "/a/b"}}}}}`},
		{name: "file id not a pointer", src: `{models: {providers: {p: {apiKey: {source: "file", provider: "f", id: "a/b"}}}}}`,
			err: "absolute JSON pointer"},
		{name: "exec id with dot-dot", src: `{models: {providers: {p: {apiKey: {source: "exec", provider: "v", id: "a/../b"}}}}}`,
			err: `".."`},
		{name: "provider without source", src: `{secrets: {providers: {v: {command: "/bin/x"}}}}`, err: "source is required"},
		{name: "bad alias", src: `{secrets: {providers: {Vault: {source: "env"}}}}`, err: "provider alias"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap, errs, _ := parseTest(t, tc.src, tc.env)
			if tc.err != "" {
				if !containsAll(errs, tc.err) {
					t.Fatalf("errors = %q, want %q", errs, tc.err)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			key := snap.Config.Models.Providers["p"].APIKey
			if key.Value != tc.value {
				t.Errorf("value = %q, want %q", key.Value, tc.value)
			}
			if !strings.Contains(key.Problem, tc.problem) || (tc.problem == "") != (key.Problem == "") {
				t.Errorf("problem = %q, want %q", key.Problem, tc.problem)
			}
			var unresolved []string
			found := false
			for _, is := range snap.UnresolvedSecrets {
				unresolved = append(unresolved, is.Path+": "+is.Message)
				found = found || is.Path == "models.providers.p.apiKey" && strings.Contains(is.Message, tc.problem)
			}
			if tc.problem != "" && !found {
				t.Errorf("unresolved = %q", unresolved)
			}
			if tc.problem == "" && len(unresolved) > 0 {
				t.Errorf("unresolved = %q", unresolved)
			}
		})
	}
}

func TestEnvVarsStandInForMissingVariables(t *testing.T) {
	src := `{env: {vars: {K: "from-config", GW: "cfg-token"}},
	  gateway: {auth: {token: "${GW}"}},
	  models: {providers: {p: {apiKey: {source: "env", provider: "default", id: "K"}, baseUrl: "${BASE}/v1"}}}}`
	snap, errs, _ := parseTest(t, src, map[string]string{"GW": "env-token", "BASE": "http://h"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// The environment wins; env.vars fills only what it lacks.
	if got := snap.Config.Gateway.Auth.Token.Value; got != "env-token" {
		t.Errorf("token = %q, want the environment's", got)
	}
	if got := snap.Config.Models.Providers["p"].APIKey.Value; got != "from-config" {
		t.Errorf("apiKey = %q, want env.vars'", got)
	}
	if got := snap.Config.Models.Providers["p"].BaseURL; got != "http://h/v1" {
		t.Errorf("baseUrl = %q", got)
	}
	if got := snap.Config.Env.Vars["K"]; got != "from-config" {
		t.Errorf("env.vars = %v", snap.Config.Env.Vars)
	}
}

func TestEachSecretWritesMapValuesBack(t *testing.T) {
	c := Defaults()
	c.Models.Providers = map[string]ModelProvider{"a": {APIKey: SecretInput{Ref: &SecretRef{Source: "exec", Provider: "v", ID: "x"}}}}
	var paths []string
	c.EachSecret(func(path string, s *SecretInput) {
		paths = append(paths, path)
		if s.Ref != nil {
			s.Value = "resolved"
		}
	})
	if got := c.Models.Providers["a"].APIKey.Value; got != "resolved" {
		t.Errorf("value = %q; paths %q", got, paths)
	}
	if !containsAll(paths, "models.providers.a.apiKey", "gateway.auth.token") {
		t.Errorf("paths = %q", paths)
	}
}
