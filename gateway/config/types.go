package config

//go:generate go run ./internal/gen -fielddocs

// The doc comments below are the descriptions in Schema and the comments in
// DefaultFile: fielddocs_gen.go is generated from them. Keep the first
// sentence short (it becomes the comment in the default file) and end with
// the default. Struct tags: json names the key; enum lists the allowed
// strings; min and max bound integers.

// Config holds the keys of openclaw.json this gateway implements.
// Keys OpenClaw knows but we do not implement yet are kept in Snapshot.Tree.
type Config struct {
	// Gateway configures the gateway process: mode, listener, auth and Control UI. Default: each key at its own default.
	Gateway Gateway `json:"gateway"`
	// Logging configures log output. Default: each key at its own default.
	Logging Logging `json:"logging"`
}

// Gateway is the gateway.* section.
type Gateway struct {
	// Whether this machine runs the gateway ("local") or its CLI talks to a gateway elsewhere ("remote"). Default "local".
	Mode string `json:"mode" enum:"local,remote"`
	// TCP port for WebSocket RPC and HTTP. Default 18789 (19001 with --dev; the command line and OPENCLAW_GATEWAY_PORT override it).
	Port int `json:"port" min:"1" max:"65535"`
	// Which interfaces the gateway listens on: loopback (127.0.0.1), lan (all interfaces), tailnet (the Tailscale address), auto, or custom (customBindHost). Default "loopback".
	Bind string `json:"bind" enum:"loopback,lan,tailnet,auto,custom"`
	// IPv4 address to listen on when bind is "custom". Default "" (none).
	CustomBindHost string `json:"customBindHost"`
	// How clients prove they may use the gateway. Default: token auth.
	Auth GatewayAuth `json:"auth"`
	// The browser Control UI served by the gateway. Default: enabled at the root path.
	ControlUI ControlUI `json:"controlUi"`
	// Node host settings. Default: local nodes are approved automatically.
	Nodes GatewayNodes `json:"nodes"`
	// How config file changes are applied. Default: hot reload ("hybrid").
	Reload Reload `json:"reload"`
	// Where the CLI connects when mode is "remote"; these are client credentials, not the gateway's own auth. Default: unset.
	Remote Remote `json:"remote"`
	// IP addresses or CIDR ranges of reverse proxies whose X-Forwarded-For headers are believed. Default [] (none).
	TrustedProxies []string `json:"trustedProxies"`
}

// GatewayAuth is gateway.auth.
type GatewayAuth struct {
	// Auth mode: token, password, trusted-proxy, or none (only allowed with a loopback bind). Default "token".
	Mode string `json:"mode" enum:"none,token,password,trusted-proxy"`
	// Shared token clients must send in token mode; a string or a SecretRef. Default "" (OPENCLAW_GATEWAY_TOKEN is used when set).
	Token SecretInput `json:"token"`
	// Password clients must send in password mode; a string or a SecretRef. Default "".
	Password SecretInput `json:"password"`
	// Limits on failed auth attempts per client address. Default: 10 attempts a minute, then a 5-minute lockout.
	RateLimit RateLimit `json:"rateLimit"`
}

// RateLimit is gateway.auth.rateLimit.
type RateLimit struct {
	// Failed attempts allowed per client address within windowMs. Default 10.
	MaxAttempts int `json:"maxAttempts" min:"1"`
	// Length of the window in which failures are counted, in milliseconds. Default 60000.
	WindowMs int `json:"windowMs" min:"1"`
	// How long a client is refused after too many failures, in milliseconds. Default 300000.
	LockoutMs int `json:"lockoutMs" min:"0"`
	// Whether loopback clients are never rate limited. Default true.
	ExemptLoopback *bool `json:"exemptLoopback"`
}

// ControlUI is gateway.controlUi.
type ControlUI struct {
	// Whether the gateway serves the Control UI. Default true.
	Enabled *bool `json:"enabled"`
	// URL path prefix the Control UI and WebSocket live under, e.g. "/openclaw". Default "" (the root).
	BasePath string `json:"basePath"`
	// Browser origins, besides the gateway's own, allowed to open the WebSocket, e.g. "https://ops.example.com". Default [] (none).
	AllowedOrigins []string `json:"allowedOrigins"`
}

// GatewayNodes is gateway.nodes.
type GatewayNodes struct {
	// How node hosts get paired. Default: local nodes are approved automatically.
	Pairing NodePairing `json:"pairing"`
}

// NodePairing is gateway.nodes.pairing.
type NodePairing struct {
	// Whether pairing requests from this machine are approved without asking. Default true.
	AutoApproveLocal *bool `json:"autoApproveLocal"`
	// CIDR ranges whose pairing requests are approved without asking. Default [] (none).
	AutoApproveCidrs []string `json:"autoApproveCidrs"`
}

// Reload is gateway.reload.
type Reload struct {
	// "hybrid" applies config file changes while running (restarting listeners when needed); "off" ignores them until restart. Default "hybrid".
	Mode string `json:"mode" enum:"hybrid,off"`
}

// Remote is gateway.remote.
type Remote struct {
	// WebSocket URL of the remote gateway, e.g. "wss://gw.example.com". Default "".
	URL string `json:"url"`
	// How to reach it: "direct" (connect to url) or "ssh" (tunnel). Default "" (direct).
	Transport string `json:"transport" enum:"direct,ssh"`
	// Token to send to the remote gateway; a string or a SecretRef. Default "".
	Token SecretInput `json:"token"`
	// Password to send to the remote gateway; a string or a SecretRef. Default "".
	Password SecretInput `json:"password"`
	// SHA-256 fingerprint of the remote gateway's TLS certificate to pin. Default "" (normal certificate checks).
	TLSFingerprint string `json:"tlsFingerprint"`
}

// Logging is the logging.* section.
type Logging struct {
	// Minimum level logged: trace, debug, info, warn, error, fatal or silent. Default "info".
	Level string `json:"level" enum:"trace,debug,info,warn,error,fatal,silent"`
	// Log file path. Default "" (the caller uses <state dir>/logs/gateway.log).
	File string `json:"file"`
	// Console output style: "pretty" (text for people) or "json" (one object a line). Default "pretty".
	ConsoleStyle string `json:"consoleStyle" enum:"pretty,json"`
}
