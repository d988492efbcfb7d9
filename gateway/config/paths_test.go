package config

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestResolvePaths(t *testing.T) {
	home := "/home/u"
	for _, tc := range []struct {
		name string
		env  map[string]string
		dev  bool
		want Paths
	}{
		{name: "defaults", want: Paths{Home: home, StateDir: "/home/u/.openclaw", ConfigPath: "/home/u/.openclaw/openclaw.json"}},
		{name: "dev", dev: true, want: Paths{Home: home, StateDir: "/home/u/.openclaw-dev", ConfigPath: "/home/u/.openclaw-dev/openclaw.json"}},
		{name: "state dir env wins over dev", dev: true, env: map[string]string{"OPENCLAW_STATE_DIR": " /srv/oc "},
			want: Paths{Home: home, StateDir: "/srv/oc", ConfigPath: "/srv/oc/openclaw.json"}},
		{name: "config path env", env: map[string]string{"OPENCLAW_CONFIG_PATH": "~/cfg/x.json5"},
			want: Paths{Home: home, StateDir: "/home/u/.openclaw", ConfigPath: "/home/u/cfg/x.json5"}},
		{name: "openclaw home", env: map[string]string{"OPENCLAW_HOME": "/data"},
			want: Paths{Home: "/data", StateDir: "/data/.openclaw", ConfigPath: "/data/.openclaw/openclaw.json"}},
		{name: "profile", env: map[string]string{"OPENCLAW_PROFILE": "work"},
			want: Paths{Home: home, StateDir: "/home/u/.openclaw-work", ConfigPath: "/home/u/.openclaw-work/openclaw.json"}},
		{name: "unsafe profile ignored", env: map[string]string{"OPENCLAW_PROFILE": "../x"},
			want: Paths{Home: home, StateDir: "/home/u/.openclaw", ConfigPath: "/home/u/.openclaw/openclaw.json"}},
		{name: "include roots", env: map[string]string{"OPENCLAW_INCLUDE_ROOTS": "/etc/oc" + string(filepath.ListSeparator) + "~/shared"},
			want: Paths{Home: home, StateDir: "/home/u/.openclaw", ConfigPath: "/home/u/.openclaw/openclaw.json", IncludeRoots: []string{"/etc/oc", "/home/u/shared"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ResolvePaths(envFunc(tc.env), home, tc.dev)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	if got := ResolvePaths(envFunc(nil), home, false).DefaultLogFile(); got != "/home/u/.openclaw/logs/gateway.log" {
		t.Errorf("DefaultLogFile = %s", got)
	}
}
