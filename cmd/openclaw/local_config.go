package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// localGateway is what the local config file says about reaching the
// gateway: the local one's port and shared secrets, or, in remote mode,
// gateway.remote's address and credentials.
type localGateway struct {
	Port     int
	Token    string
	Password string
	// BasePath is gateway.controlUi.basePath without a trailing slash.
	BasePath string

	Remote         bool // gateway.mode is "remote"
	RemoteURL      string
	RemoteToken    string
	RemotePassword string

	// Problem says why the file could not give the port and credentials
	// (it does not parse, or its token names an unset variable), for a
	// command that has no credentials from flags or the environment.
	Problem string
}

// cliPaths resolves the state dir and config file as the gateway does
// (OPENCLAW_HOME, OPENCLAW_STATE_DIR, OPENCLAW_CONFIG_PATH, --dev).
func cliPaths(dev bool) (config.Paths, error) {
	home, err := os.UserHomeDir()
	if err != nil && os.Getenv(envHome) == "" {
		return config.Paths{}, fmt.Errorf("find home directory: %w", err)
	}
	return config.ResolvePaths(os.Getenv, home, dev), nil
}

// localCredentials reads the gateway targeting keys from the local config
// file. A missing file gives zero values. A file with errors is still
// read for these keys where it can be, so a broken config does not stop
// `openclaw health` from reaching a running gateway; `openclaw config
// validate` reports the errors.
func localCredentials(dev bool) (localGateway, error) {
	var out localGateway
	paths, err := cliPaths(dev)
	if err != nil {
		return out, err
	}
	snap, err := config.Load(paths.ConfigPath, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
	var lerr *config.LoadError
	if err != nil && (!errors.As(err, &lerr) || snap == nil) {
		return out, fmt.Errorf("read config: %w", err)
	}
	// The port comes from the tree: Config holds the default 18789 when the
	// file sets none, which would hide the --dev default.
	if snap.Tree == nil && lerr != nil {
		out.Problem = fmt.Sprintf("the config does not parse, so the gateway's port and token cannot be read from it:\n  %s\nfix it (`openclaw config validate` lists every problem), or pass --token", lerr.Issues.String())
	}
	gw, _ := snap.Tree["gateway"].(map[string]any)
	if p, ok := gw["port"].(float64); ok && p == float64(int(p)) {
		out.Port = int(p)
	}
	if err == nil {
		g := snap.Config.Gateway
		out.Token, out.Password = g.Auth.Token.Value, g.Auth.Password.Value
		out.BasePath = g.ControlUI.Base()
		out.Remote = g.Mode == "remote"
		out.RemoteURL, out.RemoteToken, out.RemotePassword = g.Remote.URL, g.Remote.Token.Value, g.Remote.Password.Value
		for _, is := range snap.UnresolvedSecrets {
			if is.Path == "gateway.auth.token" && !out.Remote {
				out.Problem = is.String() + "; set it in this shell too, or pass --token"
			}
		}
		return out, nil
	}
	// Invalid file: take what plain strings there are.
	auth, _ := gw["auth"].(map[string]any)
	out.Token, _ = auth["token"].(string)
	out.Password, _ = auth["password"].(string)
	out.Remote = gw["mode"] == "remote"
	remote, _ := gw["remote"].(map[string]any)
	out.RemoteURL, _ = remote["url"].(string)
	out.RemoteToken, _ = remote["token"].(string)
	out.RemotePassword, _ = remote["password"].(string)
	return out, nil
}
