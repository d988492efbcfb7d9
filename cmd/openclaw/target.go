package main

import (
	"cmp"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Ports and environment variables of gateway targeting.
const (
	defaultPort    = 18789
	defaultDevPort = 19001

	envGatewayURL      = "OPENCLAW_GATEWAY_URL"
	envGatewayPort     = "OPENCLAW_GATEWAY_PORT"
	envGatewayToken    = "OPENCLAW_GATEWAY_TOKEN"
	envGatewayPassword = "OPENCLAW_GATEWAY_PASSWORD"
	envStateDir        = "OPENCLAW_STATE_DIR"
	envConfigPath      = "OPENCLAW_CONFIG_PATH"
	envHome            = "OPENCLAW_HOME"
	envProfile         = "OPENCLAW_PROFILE"
	envAllowInsecureWS = "OPENCLAW_ALLOW_INSECURE_PRIVATE_WS"
)

// errCredentialsRequired refuses --url without --token/--password, so a
// local secret is never sent to an address given on the command line.
var errCredentialsRequired = errors.New("gateway url override requires explicit credentials (pass --token or --password)")

// target is where and how a command connects. Its String never shows
// secrets.
type target struct {
	url      string
	token    string
	password string
	loopback bool
}

// resolveTarget applies the real CLI's precedence:
//
//	url:         --url > OPENCLAW_GATEWAY_URL > gateway.remote.url (mode "remote") > ws://127.0.0.1:<port>
//	             (--port, not allowed with --url, skips the environment's and the remote url)
//	port:        --port > OPENCLAW_GATEWAY_PORT > config gateway.port > 18789 (19001 with --dev)
//	credentials: --token/--password > OPENCLAW_GATEWAY_TOKEN/_PASSWORD > config gateway.auth.*
//	             (gateway.remote.* in remote mode)
//
// With --url only the flags' credentials are used; with
// OPENCLAW_GATEWAY_URL the flags' or the environment's. The config file is
// read only when the local address or credentials are needed.
func resolveTarget(g *gatewayFlags) (target, error) {
	var t target
	if g.port != 0 && g.url != "" {
		return t, usageErrorf("--port and --url exclude each other: --port picks the gateway on this machine")
	}
	switch envURL := os.Getenv(envGatewayURL); {
	case g.url != "":
		if g.token == "" && g.password == "" {
			return t, errCredentialsRequired
		}
		t = target{url: g.url, token: g.token, password: g.password}
	case envURL != "" && g.port == 0:
		t = target{
			url:      envURL,
			token:    cmp.Or(g.token, os.Getenv(envGatewayToken)),
			password: cmp.Or(g.password, os.Getenv(envGatewayPassword)),
		}
	default:
		local, err := localCredentials(g.dev)
		if err != nil {
			return t, err
		}
		if local.Remote && local.RemoteURL != "" && g.port == 0 {
			t = target{
				url:      local.RemoteURL,
				token:    cmp.Or(g.token, os.Getenv(envGatewayToken), local.RemoteToken),
				password: cmp.Or(g.password, os.Getenv(envGatewayPassword), local.RemotePassword),
			}
			break
		}
		port := int(g.port)
		if port == 0 {
			if port, err = gatewayPort(g.dev, local.Port); err != nil {
				return t, err
			}
		}
		t = target{
			url:      "ws://127.0.0.1:" + strconv.Itoa(port),
			token:    cmp.Or(g.token, os.Getenv(envGatewayToken), local.Token),
			password: cmp.Or(g.password, os.Getenv(envGatewayPassword), local.Password),
		}
		if local.Problem != "" && t.token == "" && t.password == "" {
			// Connecting without a secret would only be answered
			// AUTH_TOKEN_MISSING; the file is what is wrong.
			return t, errors.New(local.Problem)
		}
	}
	u, err := url.Parse(t.url)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return t, usageErrorf("invalid gateway url %q: want ws://HOST:PORT or wss://HOST:PORT", redactURL(t.url))
	}
	t.loopback = isLoopbackHost(u.Hostname())
	if u.Scheme == "ws" && !t.loopback && os.Getenv(envAllowInsecureWS) != "1" {
		return t, usageErrorf("refusing plaintext ws:// to non-loopback host %s: use wss:// or set %s=1",
			u.Hostname(), envAllowInsecureWS)
	}
	return t, nil
}

func (t target) String() string { return redactURL(t.url) }

// gatewayPort picks the local gateway port.
func gatewayPort(dev bool, configPort int) (int, error) {
	if s := os.Getenv(envGatewayPort); s != "" {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 65535 {
			return 0, usageErrorf("invalid %s %q", envGatewayPort, s)
		}
		return p, nil
	}
	if configPort > 0 {
		return configPort, nil
	}
	if dev {
		return defaultDevPort, nil
	}
	return defaultPort, nil
}

// identityPath is where the CLI keeps its device key. The name differs
// from the real CLI's legacy identity/device.json, whose format is not ours.
func identityPath(dev bool) (string, error) {
	p, err := cliPaths(dev)
	if err != nil {
		return "", err
	}
	return filepath.Join(p.StateDir, "identity", "cli-device.json"), nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactURL drops user info and query from a URL before it is printed.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<invalid url>"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

// defaultCLIScopes are asked for when a method's scope is unknown or
// decided at run time, as the real CLI does.
var defaultCLIScopes = []string{
	string(protocol.ScopeAdmin), string(protocol.ScopeRead), string(protocol.ScopeWrite),
	string(protocol.ScopeApprovals), string(protocol.ScopeQuestions), string(protocol.ScopePairing),
	string(protocol.ScopeTalkSecrets),
}

// actsAsOwner are methods whose effect depends on the caller's
// authority, not only on their scope: a tool call or a turn runs with the
// owner's rights only for a connection holding operator.admin. The CLI
// run by the gateway's operator asks for admin too, so its calls are the
// owner's, as they were before the gateway told the two apart.
var actsAsOwner = map[string]bool{"tools.invoke": true, "chat.send": true}

// scopesFor returns the least scopes a call of method needs.
func scopesFor(method string) []string {
	if actsAsOwner[method] {
		return []string{string(protocol.ScopeWrite), string(protocol.ScopeAdmin)}
	}
	s, known := protocol.MethodScope(method)
	switch {
	case !known || s == protocol.ScopeDynamic || s == protocol.ScopeNode:
		return defaultCLIScopes
	case s == protocol.ScopeNone:
		return nil
	default:
		return []string{string(s)}
	}
}
