package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// keyCases cover the three kinds of keys: implemented (decoded), known to
// OpenClaw only (warning), and unknown (error, or warning inside a plugin's
// own section).
var keyCases = []struct {
	name         string
	src          string
	errs, warns  []string // exact issue strings
	noIssuesWant bool
}{
	{
		name:  "known but not implemented top level",
		src:   `{discovery: {mdns: {mode: "off"}}}`,
		warns: []string{`openclaw.json:1:2: discovery: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`},
	},
	{
		name:  "known but not implemented under gateway",
		src:   `{gateway: {tls: {enabled: true}, port: 1}}`,
		warns: []string{`openclaw.json:1:12: gateway.tls: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`},
	},
	{
		name: "typo inside an unimplemented section",
		src:  "{\n  discovery: {\n    mdnss: {},\n  },\n}",
		errs: []string{`openclaw.json:3:5: discovery.mdnss: unknown key (did you mean "mdns"?)`},
		warns: []string{
			`openclaw.json:2:3: discovery: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`,
		},
	},
	{
		name: "unknown top level key",
		src:  `{gatway: {}}`,
		errs: []string{`openclaw.json:1:2: gatway: unknown key (did you mean "gateway"?)`},
	},
	{
		name:  "map entries are wildcards",
		src:   `{models: {providers: {"my.local": {baseUrl: "http://127.0.0.1:8000/v1", apiKey: "k", region: "eu"}}}}`,
		warns: []string{`openclaw.json:1:86: models.providers["my.local"].region: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`},
	},
	{
		name: "unknown key in a map entry",
		src:  `{models: {providers: {p: {baseUrl: "x", flavour: 1}}}}`,
		errs: []string{`openclaw.json:1:41: models.providers.p.flavour: unknown key`},
	},
	{
		name: "unknown key in an array element",
		src:  `{bindings: [{agentId: "a", match: {channel: "telegram"}, bogus: 1}]}`,
		errs: []string{`openclaw.json:1:58: bindings[0].bogus: unknown key`},
	},
	{
		name: "third-party channel is passthrough",
		src:  `{channels: {mychat: {anything: {goes: [1]}}}}`,
		warns: []string{
			`openclaw.json:1:13: channels.mychat: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`,
		},
	},
	{
		name: "typo in a plugin's channel section is only a warning",
		src:  `{channels: {signal: {acount: "x"}}}`,
		warns: []string{
			`openclaw.json:1:13: channels.signal: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`,
			`openclaw.json:1:22: channels.signal.acount: unknown key (did you mean "account"?); OpenClaw ` + OpenClawVersion() + `'s schema for this plugin does not have it`,
		},
	},
	{
		name: "typo in an implemented channel is an error",
		src:  `{channels: {telegram: {botTokn: "x"}}}`,
		errs: []string{`openclaw.json:1:24: channels.telegram.botTokn: unknown key (did you mean "botToken"?)`},
	},
	{
		name: "plugin config is lenient",
		src:  `{plugins: {entries: {telegram: {config: {newOption: 1}}}}}`,
		warns: []string{
			`openclaw.json:1:42: plugins.entries.telegram.config.newOption: unknown key; OpenClaw ` + OpenClawVersion() + `'s schema for this plugin does not have it`,
		},
	},
	{
		name:         "a search provider's webSearch settings are implemented",
		src:          `{plugins: {entries: {brave: {config: {webSearch: {apiKey: "k"}}}, searxng: {config: {webSearch: {baseUrl: "https://searx.example"}}}}}}`,
		noIssuesWant: true,
	},
	{
		name: "tools.web.fetch keys are implemented",
		src: `{tools: {web: {fetch: {maxChars: 500, maxRedirects: 0, headers: {"X-A": "b"},
  ssrfPolicy: {dangerouslyAllowPrivateNetwork: false, allowedHostnames: ["a.example"], blockedHostnames: ["*.b.example"], allowRfc2544BenchmarkRange: true, allowIpv6UniqueLocalRange: true}}}}}`,
		noIssuesWant: true,
	},
	{
		name:  "tools.web.fetch keys still unimplemented say so",
		src:   `{tools: {web: {fetch: {readability: false}}}}`,
		warns: []string{`openclaw.json:1:24: tools.web.fetch.readability: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`},
	},
	{
		name: "a legacy search provider section says where it goes now",
		src:  `{tools: {web: {search: {brave: {apiKey: "k"}, apiKey: "k", openaiCodex: {enabled: true}}}}}`,
		warns: []string{
			`openclaw.json:1:25: tools.web.search.brave: has no effect: OpenClaw reads the brave provider's settings from plugins.entries.brave.config.webSearch (apiKey, baseUrl)`,
			`openclaw.json:1:47: tools.web.search.apiKey: has no effect: OpenClaw reads a search provider's key from plugins.entries.<provider>.config.webSearch.apiKey`,
			`openclaw.json:1:60: tools.web.search.openaiCodex: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`,
		},
	},
	{
		name: "core channel defaults stay strict",
		src:  `{channels: {defaults: {nope: 1}}}`,
		errs: []string{`openclaw.json:1:24: channels.defaults.nope: unknown key`},
	},
	{
		name:         "schema and meta are silent",
		src:          `{$schema: "https://example/schema.json", meta: {lastTouchedVersion: "2026.9.6"}}`,
		noIssuesWant: true,
	},
	{
		name: "duplicate key warns",
		src:  `{logging: {level: "info", level: "warn"}}`,
		warns: []string{
			`openclaw.json:1:27: logging.level: key is written more than once; the last value wins`,
		},
	},
	{
		name: "tools.exec, tools.elevated and tools.web keys are implemented",
		src: `{tools: {exec: {mode: "full", security: "full", ask: "off", safeBins: ["head"], safeBinProfiles: {head: {maxPositional: 0}},
  timeoutSeconds: 60, backgroundMs: 100, notifyOnExit: false, pathPrepend: ["/opt/bin"], cleanupMs: 60000,
  applyPatch: {enabled: true, allowModels: ["gpt-5.4"]}}, elevated: {enabled: true, allowFrom: {telegram: ["1"]}},
  web: {fetch: {enabled: true, maxCharsCap: 500}, search: {enabled: false, maxResults: 3}}}}`,
		noIssuesWant: true,
	},
	{
		name:  "an exec key still unimplemented says so",
		src:   `{tools: {exec: {security: "full", reviewer: {timeoutMs: 1}}}}`,
		warns: []string{`openclaw.json:1:35: tools.exec.reviewer: not implemented yet; OpenClaw knows this key, so it is kept but has no effect here`},
	},
	{
		name:  "mode and a disagreeing security",
		src:   `{tools: {exec: {mode: "ask", security: "full"}}}`,
		warns: []string{`openclaw.json:1:40: tools.exec.security: ignored: tools.exec.mode "ask" is set and decides (security "allowlist", ask "on-miss"); remove security and ask, or mode`},
	},
	{
		name:  "a script interpreter as a safe bin",
		src:   `{tools: {exec: {safeBins: ["head", "awk"]}}}`,
		warns: []string{`openclaw.json:1:36: tools.exec.safeBins[1]: "awk" never runs as a safe bin (its scripts can run commands and write files); give it an allowlist entry in the exec approvals instead`},
	},
	{
		name: "a relative trusted dir and an upside-down profile",
		src:  `{tools: {exec: {safeBinTrustedDirs: ["bin"], safeBinProfiles: {f: {minPositional: 2, maxPositional: 1}}}}}`,
		errs: []string{
			`openclaw.json:1:38: tools.exec.safeBinTrustedDirs[0]: "bin" is not an absolute directory`,
			`openclaw.json:1:101: tools.exec.safeBinProfiles.f.maxPositional: maxPositional 1 is below minPositional 2`,
		},
	},
	{
		name: "a wrong type for an exec key",
		src:  `{tools: {exec: {timeoutSeconds: "1800"}}}`,
		errs: []string{`openclaw.json:1:33: tools.exec.timeoutSeconds: expected a number, got a string`},
	},
}

func TestKnownAndUnknownKeys(t *testing.T) {
	for _, tc := range keyCases {
		t.Run(tc.name, func(t *testing.T) {
			snap, errs, warns := parseTest(t, tc.src, nil)
			if !slices.Equal(errs, tc.errs) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(tc.errs, "\n"))
			}
			if !slices.Equal(warns, tc.warns) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warns, "\n"), strings.Join(tc.warns, "\n"))
			}
			if len(tc.errs) == 0 && snap.Config == nil {
				t.Error("no errors but no Config")
			}
		})
	}
}

func TestUnimplementedKeysStayInTree(t *testing.T) {
	snap, _, _ := parseTest(t, `{agents: {defaults: {workspace: "~/w"}}, gateway: {tls: {enabled: true}}}`, nil)
	want := map[string]any{
		"agents":  map[string]any{"defaults": map[string]any{"workspace": "~/w"}},
		"gateway": map[string]any{"tls": map[string]any{"enabled": true}},
	}
	if !reflect.DeepEqual(snap.Tree, want) {
		t.Errorf("tree = %v", snap.Tree)
	}
}

// TestImplementedKeysExistInOpenClaw keeps our structs honest: every key we
// decode must be one the real OpenClaw accepts, or files we write would
// break its CLI.
// legacyKeys are implemented for old configs although current OpenClaw
// has dropped them (its doctor migrates them).
var legacyKeys = map[string]bool{
	"agents.list": true,
	// Our own extension, documented on the field; OpenClaw's CLI rejects it.
	"tools.guard":         true,
	"tools.disclosure":    true,
	"tools.hooks":         true,
	"tools.datasources":   true,
	"tools.pdfFont":       true,
	"tools.contentStudio": true,
	"gateway.retention":   true,
	"store":               true,
}

// providerOwnedBlocks are objects OpenClaw's schema leaves open to any
// key (a speech provider owns its settings); the keys we decode there are
// the ones OpenClaw's TTS field reference documents for that provider.
// A bundled hook's entry is open the same way: its options (session-memory's
// messages) are the ones OpenClaw's bundled-hooks page documents.
var providerOwnedBlocks = map[string]bool{
	"tts.providers.*":                             true,
	"agents.entries.*.tts.providers.*":            true,
	"tts.personas.*.providers.*":                  true,
	"agents.entries.*.tts.personas.*.providers.*": true,
	"hooks.internal.entries.*":                    true,
}

func TestImplementedKeysExistInOpenClaw(t *testing.T) {
	known, version := loadKnownKeys()
	if version == "" {
		t.Fatal("knownkeys.json has no OpenClaw version")
	}
	var walk func(rt reflect.Type, k *keyTree, path string)
	walk = func(rt reflect.Type, k *keyTree, path string) {
		for _, f := range fieldsOf(rt) {
			p := JoinPath(path, f.name)
			if legacyKeys[p] {
				continue
			}
			child := k.child(f.name)
			if child == nil || (k.children != nil && k.named(f.name) == nil && !providerOwnedBlocks[path]) {
				t.Errorf("%s is implemented but OpenClaw %s does not know it", p, version)
				continue
			}
			ft := rt.FieldByIndex(f.index).Type
			switch {
			case ft.Kind() == reflect.Struct && !isLeafType(ft):
				walk(ft, child, p)
			case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), child.child("*"), p+".*")
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), child.items(), p+"[]")
			}
		}
	}
	walk(reflect.TypeFor[Config](), known, "")
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"portt", "port"}, {"Port", "port"}, {"gatway", "gateway"}, {"x", ""}, {"zzzzzz", ""},
	} {
		if got := closest(tc.key, []string{"port", "bind", "gateway"}); got != tc.want {
			t.Errorf("closest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}
