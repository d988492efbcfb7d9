package main

import (
	"fmt"
	"net/url"
	"os"
	"strconv"

	"github.com/openclaw-go/openclaw/gateway/statelock"
)

// movedGatewayHint explains an unreachable local gateway that is in fact
// running on another port: the gateway reads gateway.port only at start,
// so after an edit of the port the CLI looks where the config now points
// while the gateway still listens where it started. The gateway of this
// state directory records its pid and port in its lock file.
func (a *app) movedGatewayHint(target string) string {
	u, err := url.Parse(target)
	if err != nil || !isLoopbackHost(u.Hostname()) {
		return ""
	}
	want, err := strconv.Atoi(u.Port())
	if err != nil {
		return ""
	}
	paths, err := cliPaths(a.dev)
	if err != nil {
		return ""
	}
	owner, ok := statelock.Read(paths.StateDir)
	if !ok || owner.Port == 0 || owner.Port == want {
		return ""
	}
	source := "the config says gateway.port"
	if os.Getenv(envGatewayPort) != "" {
		source = envGatewayPort + " says"
	}
	return fmt.Sprintf("Gateway not reachable at %s: %s %d, but the gateway of this state directory (pid %d) is running on port %d; "+
		"it reads the port only at start. Restart it (SIGUSR1, or stop it and run `openclaw gateway`) to move it to port %d.",
		target, source, want, owner.PID, owner.Port, want)
}
