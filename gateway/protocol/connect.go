package protocol

// ChallengePayload is the connect.challenge event the server sends first.
type ChallengePayload struct {
	Nonce        string   `json:"nonce"`
	Ts           int64    `json:"ts"`
	Capabilities []string `json:"capabilities,omitempty"`
}

// ConnectParams is the params of the first request, method "connect".
// Unknown fields are accepted and ignored so newer clients still connect.
type ConnectParams struct {
	MinProtocol int             `json:"minProtocol"`
	MaxProtocol int             `json:"maxProtocol"`
	Client      ClientInfo      `json:"client"`
	Caps        []string        `json:"caps,omitempty"`
	Commands    []string        `json:"commands,omitempty"`
	Permissions map[string]bool `json:"permissions,omitempty"`
	PathEnv     string          `json:"pathEnv,omitempty"`
	Role        string          `json:"role,omitempty"`
	Scopes      []string        `json:"scopes,omitempty"`
	Device      *DeviceProof    `json:"device,omitempty"`
	Auth        *ConnectAuth    `json:"auth,omitempty"`
	Locale      string          `json:"locale,omitempty"`
	UserAgent   string          `json:"userAgent,omitempty"`
}

// ClientInfo describes the connecting program.
type ClientInfo struct {
	ID              string `json:"id"`
	DisplayName     string `json:"displayName,omitempty"`
	Version         string `json:"version"`
	BuildID         string `json:"buildId,omitempty"`
	Platform        string `json:"platform"`
	DeviceFamily    string `json:"deviceFamily,omitempty"`
	ModelIdentifier string `json:"modelIdentifier,omitempty"`
	TimeZone        string `json:"timeZone,omitempty"`
	Mode            string `json:"mode"`
	InstanceID      string `json:"instanceId,omitempty"`
}

// ConnectAuth carries the shared secret or a device/bootstrap token.
type ConnectAuth struct {
	Token          string `json:"token,omitempty"`
	BootstrapToken string `json:"bootstrapToken,omitempty"`
	DeviceToken    string `json:"deviceToken,omitempty"`
	Password       string `json:"password,omitempty"`
}

// DeviceProof is a device identity signed over the challenge.
type DeviceProof struct {
	ID        string `json:"id"`
	PublicKey string `json:"publicKey"`
	Signature string `json:"signature"`
	SignedAt  int64  `json:"signedAt"`
	Nonce     string `json:"nonce"`
}

// Client ids the real protocol accepts (matched case-insensitively).
var ClientIDs = []string{
	"webchat-ui", "openclaw-control-ui", "openclaw-browser-copilot", "openclaw-tui", "webchat", "cli",
	"gateway-client", "openclaw-macos", "openclaw-linux", "openclaw-ios", "openclaw-watchos",
	"openclaw-android", "node-host", "openclaw-worker", "test", "fingerprint", "openclaw-probe",
}

// ClientModes the real protocol accepts.
var ClientModes = []string{"webchat", "cli", "ui", "backend", "node", "worker", "probe", "test"}

// HelloOk is the payload of a successful connect response.
type HelloOk struct {
	Type              string            `json:"type"`
	Protocol          int               `json:"protocol"`
	Server            ServerInfo        `json:"server"`
	Features          Features          `json:"features"`
	Snapshot          Snapshot          `json:"snapshot"`
	Auth              HelloAuth         `json:"auth"`
	Policy            Policy            `json:"policy"`
	PluginSurfaceURLs map[string]string `json:"pluginSurfaceUrls,omitempty"`
}

// ServerInfo identifies this gateway process and the connection.
type ServerInfo struct {
	Version string `json:"version"`
	BuildID string `json:"buildId,omitempty"`
	BootID  string `json:"bootId,omitempty"`
	ConnID  string `json:"connId"`
}

// Features lists what this gateway serves.
type Features struct {
	Methods      []string `json:"methods"`
	Events       []string `json:"events"`
	Capabilities []string `json:"capabilities,omitempty"`
}

// Snapshot is the state a client gets on connect.
type Snapshot struct {
	Presence          []PresenceEntry  `json:"presence"`
	Health            any              `json:"health"`
	StateVersion      StateVersion     `json:"stateVersion"`
	UptimeMs          int64            `json:"uptimeMs"`
	AppliedConfigHash string           `json:"appliedConfigHash,omitempty"`
	ConfigPath        string           `json:"configPath,omitempty"`
	StateDir          string           `json:"stateDir,omitempty"`
	SessionDefaults   *SessionDefaults `json:"sessionDefaults,omitempty"`
	AuthMode          string           `json:"authMode,omitempty"`
	Suspension        *Suspension      `json:"suspension,omitempty"`
}

// Suspension says whether the gateway accepts work.
type Suspension struct {
	Phase string `json:"phase"`
}

// SessionDefaults names the default agent and main session.
type SessionDefaults struct {
	DefaultAgentID  string `json:"defaultAgentId"`
	MainKey         string `json:"mainKey"`
	MainSessionKey  string `json:"mainSessionKey"`
	Scope           string `json:"scope,omitempty"`
	ModelConfigured *bool  `json:"modelConfigured,omitempty"`
}

// HelloAuth reports what the connection was granted.
type HelloAuth struct {
	Method      string   `json:"method,omitempty"`
	Role        string   `json:"role"`
	Scopes      []string `json:"scopes"`
	DeviceToken string   `json:"deviceToken,omitempty"`
	IssuedAtMs  int64    `json:"issuedAtMs,omitempty"`
}

// Policy tells the client the server's limits.
type Policy struct {
	MaxPayload       int64 `json:"maxPayload"`
	MaxBufferedBytes int64 `json:"maxBufferedBytes"`
	TickIntervalMs   int64 `json:"tickIntervalMs"`
}

// PresenceEntry is one connected client or the gateway itself.
type PresenceEntry struct {
	Host         string   `json:"host,omitempty"`
	IP           string   `json:"ip,omitempty"`
	Version      string   `json:"version,omitempty"`
	Platform     string   `json:"platform,omitempty"`
	DeviceFamily string   `json:"deviceFamily,omitempty"`
	Mode         string   `json:"mode,omitempty"`
	Reason       string   `json:"reason,omitempty"`
	Text         string   `json:"text,omitempty"`
	Ts           int64    `json:"ts"`
	DeviceID     string   `json:"deviceId,omitempty"`
	Roles        []string `json:"roles,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	InstanceID   string   `json:"instanceId,omitempty"`
}

// ShutdownPayload is sent before the gateway stops.
type ShutdownPayload struct {
	Reason            string `json:"reason"`
	RestartExpectedMs int64  `json:"restartExpectedMs,omitempty"`
}

// TickPayload is the periodic liveness event.
type TickPayload struct {
	Ts int64 `json:"ts"`
}
