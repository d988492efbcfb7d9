package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestParseGatewayRun checks `gateway run` reads the real CLI's --flags,
// still reads the one-dash spellings it took before, and refuses bad
// values with the flag's name.
func TestParseGatewayRun(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want gatewayRunFlags
		err  string
	}{
		{name: "none", want: gatewayRunFlags{}},
		{name: "double dash", args: []string{"--port", "19555", "--bind", "lan", "--token", "tk", "--auth", "token", "--dev", "--verbose", "--force"},
			want: gatewayRunFlags{port: 19555, bind: "lan", token: "tk", auth: "token", dev: true, verbose: true, force: true}},
		{name: "equals", args: []string{"--port=19556", "--bind=loopback"}, want: gatewayRunFlags{port: 19556, bind: "loopback"}},
		{name: "one dash kept", args: []string{"-port", "19557", "-token=t2", "-verbose"}, want: gatewayRunFlags{port: 19557, token: "t2", verbose: true}},
		{name: "allow-unconfigured", args: []string{"--allow-unconfigured"}, want: gatewayRunFlags{}},
		{name: "env token and port", env: map[string]string{"OPENCLAW_GATEWAY_TOKEN": "envtok", "OPENCLAW_GATEWAY_PORT": "19558"},
			want: gatewayRunFlags{port: 19558, token: "envtok"}},
		{name: "flag beats env", args: []string{"--port", "19559", "--token", "flag"}, env: map[string]string{"OPENCLAW_GATEWAY_TOKEN": "envtok", "OPENCLAW_GATEWAY_PORT": "19558"},
			want: gatewayRunFlags{port: 19559, token: "flag"}},
		{name: "port zero is the configured port", args: []string{"--port", "0"}, env: map[string]string{"OPENCLAW_GATEWAY_PORT": "19560"},
			want: gatewayRunFlags{port: 19560}},
		{name: "negative port", args: []string{"--port", "-1"}, err: "--port -1 is not a port"},
		{name: "port too big", args: []string{"--port", "70000"}, err: "--port 70000 is not a port"},
		{name: "port not a number", args: []string{"--port", "abc"}, err: "invalid argument \"abc\""},
		{name: "bad env port", env: map[string]string{"OPENCLAW_GATEWAY_PORT": "x"}, err: `OPENCLAW_GATEWAY_PORT="x" is not a port`},
		{name: "bad bind", args: []string{"--bind", "0.0.0.0"}, err: `--bind must be loopback, lan, tailnet, auto or custom, not "0.0.0.0"`},
		{name: "bad auth", args: []string{"--auth", "open"}, err: `--auth must be token, password or none, not "open"`},
		{name: "positional", args: []string{"extra"}, err: `unexpected argument "extra"`},
		{name: "unknown", args: []string{"--nope"}, err: "unknown flag: --nope"},
		{name: "one-dash unknown stays unknown", args: []string{"-nope"}, err: "unknown shorthand flag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OPENCLAW_GATEWAY_TOKEN", "")
			t.Setenv("OPENCLAW_GATEWAY_PORT", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			a := &app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, cmd: "gateway run"}
			got, err := parseGatewayRun(a, tc.args)
			if tc.err != "" {
				var u *usageError
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &u) {
					t.Fatalf("err = %v, want usage error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestGatewayRunHelp checks the help spells the flags with two dashes, as
// the real `openclaw gateway run --help` does, for both ways in.
func TestGatewayRunHelp(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"gateway", "run", "--help"}, {"gateway", "--help"}} {
		stdout, _, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if args[1] == "--help" {
			continue // the group's help lists subcommands
		}
		for _, f := range []string{"--port port", "--bind mode", "--token token", "--auth mode", "--force", "--dev", "--verbose", "--allow-unconfigured"} {
			if !strings.Contains(stdout, "  "+f) {
				t.Errorf("%v help lacks %q:\n%s", args, f, stdout)
			}
		}
		if strings.Contains(stdout, " -port") || strings.Contains(stdout, "(default 0)") {
			t.Errorf("help still shows a one-dash flag or a zero default:\n%s", stdout)
		}
	}
}
