package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// configPos finds a config error position, file:line:col, in a message.
var configPos = regexp.MustCompile(`openclaw\.json:(\d+):(\d+)`)

// TestBadConfigRefusesToStart: an invalid config stops the gateway before
// it listens, with a non-zero exit and the error's position in stderr.
func TestBadConfigRefusesToStart(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	tests := []struct {
		name   string
		config string
		line   int // where the error is
	}{
		{"syntax error", "{\n  gateway: {\n    mode: \"local\",,\n  },\n}\n", 3},
		{"unterminated string", "{\n  gateway: {\n    mode: \"local,\n  },\n}\n", 3},
		{"unknown key", "{\n  gateway: {\n    mode: \"local\",\n    noSuchKey: true,\n  },\n}\n", 4},
		{"wrong type", "{\n  gateway: {\n    mode: \"local\",\n    port: \"many\",\n  },\n}\n", 4},
		{"value not allowed", "// a comment\n{\n  gateway: {\n    bind: \"everywhere\",\n  },\n}\n", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := startGateway(t, gatewayOpts{Config: tc.config, NoWait: true})
			code, ok := g.proc.wait(30 * time.Second)
			if !ok {
				t.Fatalf("gateway still running 30 s after start with an invalid config:\n%s", g.proc.report())
			}
			if code <= 0 {
				t.Fatalf("exit code %d, want > 0:\n%s", code, g.proc.report())
			}
			stderr := g.proc.stderr.String()
			m := configPos.FindStringSubmatch(stderr)
			if m == nil {
				t.Fatalf("stderr has no openclaw.json:line:col:\n%s", g.proc.report())
			}
			if line, _ := strconv.Atoi(m[1]); line != tc.line {
				t.Errorf("error reported at line %s (%s), want line %d:\n%s", m[1], m[0], tc.line, stderr)
			}
		})
	}
}

// TestReloadInvalidConfigKeepsServing: writing an invalid config under a
// running gateway is reported (with its position) and the gateway keeps
// serving with the config it has; a valid config after that is taken.
func TestReloadInvalidConfigKeepsServing(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{Config: "{\n  gateway: { mode: \"local\" },\n}\n"})
	c := ourClient(t, g)
	c.run(t, "health", "--json").mustSucceed(t)

	start := g.proc.mark()
	writeFile(t, g.ConfigPath, "{\n  gateway: {\n    mode: \"local\",\n    noSuchKey: 1,\n  },\n}\n")
	if !poll(20*time.Second, func() bool { return configPos.MatchString(g.proc.outputSince(start)) }) {
		t.Fatalf("no config error with its position logged 20 s after an invalid write:\n%s", g.proc.report())
	}
	if g.proc.exited() {
		t.Fatalf("gateway exited after an invalid config was written:\n%s", g.proc.report())
	}
	r := c.run(t, "health", "--json")
	r.mustSucceed(t)
	objectWith("ok", true)(t, r)

	// A valid config is picked up again; the gateway goes on serving.
	before := g.proc.mark()
	writeFile(t, g.ConfigPath, "{\n  gateway: { mode: \"local\" },\n  logging: { level: \"debug\" },\n}\n")
	if !poll(20*time.Second, func() bool { return strings.Contains(g.proc.outputSince(before), "reload") }) {
		t.Fatalf("nothing about a reload logged 20 s after a valid write:\n%s", g.proc.report())
	}
	c.run(t, "health", "--json").mustSucceed(t)
	if g.proc.exited() {
		t.Fatalf("gateway exited after a valid config was written:\n%s", g.proc.report())
	}
}

// TestFirstRunWritesToken: started with no token anywhere, the gateway
// writes one to <state dir>/openclaw.json; our CLI finds it there through
// OPENCLAW_STATE_DIR alone, and the real CLI can use it.
func TestFirstRunWritesToken(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{NoToken: true, StateDirOnly: true})
	token := g.readToken(t)
	if len(token) < 16 {
		t.Errorf("generated token %q is short", token)
	}

	r := ourClient(t, g).run(t, "health", "--json")
	r.mustSucceed(t)
	objectWith("ok", true)(t, r)

	if realCLI != "" {
		r = realClient(t, g).run(t, append([]string{"gateway", "call", "health", "--json"}, g.remote(token)...)...)
		r.mustSucceed(t)
		objectWith("ok", true)(t, r)
	}
}

// TestStopSignal: SIGTERM and SIGINT stop the gateway with exit 0 within a
// deadline, idle or with a client connected.
func TestStopSignal(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	tests := []struct {
		name      string
		sig       syscall.Signal
		connected bool // a `logs --follow` client holds a connection
	}{
		{"SIGTERM idle", syscall.SIGTERM, false},
		{"SIGTERM with a client", syscall.SIGTERM, true},
		{"SIGINT idle", syscall.SIGINT, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := startGateway(t, gatewayOpts{})
			if tc.connected {
				follow := startProc(t, "logs --follow", g.Env, g.Dir, needOurBin(t), "logs", "--follow", "--interval", "200")
				if !poll(20*time.Second, func() bool { return follow.stdout.String() != "" || follow.exited() }) || follow.exited() {
					t.Fatalf("logs --follow did not start:\n%s", follow.report())
				}
			}
			start := time.Now()
			if err := g.proc.signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			code, ok := g.proc.wait(10 * time.Second)
			if !ok {
				t.Fatalf("gateway still running 10 s after %v:\n%s", tc.sig, g.proc.report())
			}
			if code != 0 {
				t.Fatalf("exit code %d after %v, want 0:\n%s", code, tc.sig, g.proc.report())
			}
			t.Logf("stopped in %v", time.Since(start).Round(time.Millisecond))
		})
	}
}
