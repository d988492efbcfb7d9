package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/service"
	"github.com/openclaw-go/openclaw/gateway/config"
)

func init() { registerCommand("", newOnboardCmd) }

// onboardFlags are the flags of onboard (and setup) this gateway acts on.
type onboardFlags struct {
	nonInteractive, acceptRisk, reset, jsonOut     bool
	installDaemon, noInstallDaemon, skipDaemon     bool
	skipHealth, skipChannels, skipBootstrap        bool
	mode, flow, resetScope, authChoice, secretMode string
	workspace, agentName                           string
	gatewayPort                                    int
	gatewayBind, gatewayAuth, gatewayToken         string
	gatewayTokenRefEnv, gatewayPassword, tailscale string
	remoteURL, remoteToken, remotePassword         string
	customBaseURL, customModelID, customProviderID string
	customCompat                                   string
	keys                                           map[string]*string // key flag → value
}

// acceptedNoOps are the real CLI's switches whose step this gateway does
// not have, so skipping it is already what happens.
var acceptedNoOps = []string{"skip-skills", "skip-search", "skip-ui", "skip-hooks", "tui", "suppress-gateway-token-output"}

// unsupportedOnboardFlags are the real CLI's flags whose feature this
// gateway does not have: refused by name, never silently ignored.
var unsupportedOnboardFlags = map[string]string{
	"classic":                          "there is one wizard here; run openclaw onboard without --classic",
	"modern":                           "the conversational setup assistant is not available here",
	"team":                             "team onboarding is not available here; add agents under agents.entries",
	"import-from":                      "use openclaw migrate to import an OpenClaw install",
	"import-source":                    "use openclaw migrate to import an OpenClaw install",
	"import-secrets":                   "use openclaw migrate to import an OpenClaw install",
	"daemon-runtime":                   "the service runs this binary; there is no node or bun runtime to choose",
	"node-manager":                     "skills are not installed with a node package manager here",
	"token":                            "--auth-choice token (provider setup tokens) is not supported; use an API key",
	"token-provider":                   "--auth-choice token (provider setup tokens) is not supported; use an API key",
	"token-profile-id":                 "auth profiles are not supported; use an API key",
	"token-expires-in":                 "auth profiles are not supported; use an API key",
	"custom-image-input":               "model capabilities are set under models.providers.<id>.models[].input",
	"custom-text-input":                "model capabilities are set under models.providers.<id>.models[].input",
	"cloudflare-ai-gateway-account-id": "the Cloudflare AI Gateway choice is not supported; use --auth-choice custom-api-key",
	"cloudflare-ai-gateway-gateway-id": "the Cloudflare AI Gateway choice is not supported; use --auth-choice custom-api-key",
}

// otherKeyFlags are the real CLI's provider key flags for providers this
// gateway does not set up; each is refused naming --auth-choice
// custom-api-key as the way to use the provider anyway.
var otherKeyFlags = []string{"ai-gateway-api-key", "alibaba-model-studio-api-key", "arceeai-api-key", "baseten-api-key",
	"byteplus-api-key", "cerebras-api-key", "chutes-api-key", "clawrouter-api-key", "cloudflare-ai-gateway-api-key",
	"cohere-api-key", "comfy-api-key", "deepinfra-api-key", "deepseek-api-key", "fal-api-key", "featherless-api-key",
	"fireworks-api-key", "github-copilot-token", "gmi-api-key", "groq-api-key", "huggingface-api-key", "kilocode-api-key",
	"kimi-code-api-key", "litellm-api-key", "lmstudio-api-key", "longcat-api-key", "meta-api-key", "minimax-api-key",
	"mistral-api-key", "modelstudio-api-key", "modelstudio-api-key-cn", "modelstudio-standard-api-key",
	"modelstudio-standard-api-key-cn", "moonshot-api-key", "novita-api-key", "nvidia-api-key", "ollama-cloud-api-key",
	"opencode-go-api-key", "opencode-zen-api-key", "pixverse-api-key", "qianfan-api-key", "qwen-token-plan-api-key",
	"qwen-token-plan-api-key-cn", "radius-api-key", "runway-api-key", "stepfun-api-key", "synthetic-api-key",
	"tokenhub-api-key", "tokenplan-api-key", "together-api-key", "venice-api-key", "volcengine-api-key", "vydra-api-key",
	"xai-api-key", "xiaomi-api-key", "xiaomi-token-plan-api-key", "zai-api-key"}

// addOnboardFlags declares onboard's flags, as the real CLI spells them.
func addOnboardFlags(fs *flag.FlagSet) *onboardFlags {
	f := &onboardFlags{keys: map[string]*string{}}
	fs.BoolVar(&f.nonInteractive, "non-interactive", false, "run without prompts (needs --accept-risk)")
	fs.BoolVar(&f.acceptRisk, "accept-risk", false, "acknowledge that agents are powerful and full system access is risky (required for --non-interactive)")
	fs.StringVar(&f.mode, "mode", "", "onboard `mode`: local or remote")
	fs.StringVar(&f.flow, "flow", "", "onboard `flow`: quickstart, advanced or manual (import: use openclaw migrate)")
	fs.BoolVar(&f.reset, "reset", false, "replace an existing config (the old one is kept as a .bak file)")
	fs.StringVar(&f.resetScope, "reset-scope", "", "reset `scope`: config or config+creds (sessions and the workspace are kept)")
	fs.BoolVar(&f.jsonOut, "json", false, "print a JSON summary")
	fs.StringVar(&f.workspace, "workspace", "", "agent workspace `dir`")
	fs.StringVar(&f.agentName, "agent-name", "", "`name` of the first agent (default main)")
	fs.StringVar(&f.authChoice, "auth-choice", "", "model auth: openai-api-key, apiKey (Anthropic), gemini-api-key, openrouter-api-key, ollama, custom-api-key or skip")
	fs.StringVar(&f.secretMode, "secret-input-mode", "plaintext", "how keys are kept: plaintext (an owner-only secrets file) or ref (an environment variable reference)")
	for _, c := range modelChoices {
		if c.keyFlag != "" {
			f.keys[c.keyFlag] = fs.String(c.keyFlag, "", c.label+" `key`")
		}
	}
	fs.StringVar(&f.customBaseURL, "custom-base-url", "", "custom provider (or Ollama) base `url`")
	fs.StringVar(&f.customModelID, "custom-model-id", "", "custom provider (or Ollama) model `id`")
	fs.StringVar(&f.customProviderID, "custom-provider-id", "", "custom provider `id` (default custom)")
	fs.StringVar(&f.customCompat, "custom-compatibility", "openai", "custom provider API `mode`: openai or anthropic")
	fs.IntVar(&f.gatewayPort, "gateway-port", 0, "gateway `port` (default 18789)")
	fs.StringVar(&f.gatewayBind, "gateway-bind", "", "gateway `bind`: loopback, tailnet, lan or auto")
	fs.StringVar(&f.gatewayAuth, "gateway-auth", "", "gateway auth `mode`: token or password")
	fs.StringVar(&f.gatewayToken, "gateway-token", "", "gateway `token` (default: a random one)")
	fs.StringVar(&f.gatewayTokenRefEnv, "gateway-token-ref-env", "", "keep the gateway token in this environment `variable`")
	fs.StringVar(&f.gatewayPassword, "gateway-password", "", "gateway `password` (password auth)")
	fs.StringVar(&f.tailscale, "tailscale", "", "Tailscale `mode`: off (serve and funnel are not supported)")
	fs.StringVar(&f.remoteURL, "remote-url", "", "remote gateway WebSocket `url`")
	fs.StringVar(&f.remoteToken, "remote-token", "", "remote gateway `token`")
	fs.StringVar(&f.remotePassword, "remote-password", "", "remote gateway `password`")
	fs.BoolVar(&f.installDaemon, "install-daemon", false, "install the gateway as a user service and start it")
	fs.BoolVar(&f.noInstallDaemon, "no-install-daemon", false, "do not install the gateway service")
	fs.BoolVar(&f.skipDaemon, "skip-daemon", false, "do not install the gateway service")
	fs.BoolVar(&f.skipHealth, "skip-health", false, "skip the live checks: the model key and the gateway's health")
	fs.BoolVar(&f.skipChannels, "skip-channels", false, "skip channel setup")
	fs.BoolVar(&f.skipBootstrap, "skip-bootstrap", false, "do not create the workspace's starter files")
	for _, name := range acceptedNoOps {
		fs.Bool(name, false, "accepted; this gateway has no such step")
	}
	for name, why := range unsupportedOnboardFlags {
		switch name {
		case "classic", "modern", "team", "import-secrets", "custom-image-input", "custom-text-input":
			fs.Bool(name, false, "not supported: "+why)
		default:
			fs.String(name, "", "not supported: "+why)
		}
	}
	for _, name := range otherKeyFlags {
		fs.String(name, "", "not supported: use --auth-choice custom-api-key with the provider's base URL")
	}
	for _, name := range append(append([]string{}, acceptedNoOps...), otherKeyFlags...) {
		fs.Lookup(name).Hidden = true
	}
	for name := range unsupportedOnboardFlags {
		fs.Lookup(name).Hidden = true
	}
	return f
}

// checkOnboardFlags refuses the flags that name what this gateway lacks
// and the combinations the real CLI refuses.
func checkOnboardFlags(fs *flag.FlagSet, f *onboardFlags) error {
	var err error
	fs.Visit(func(fl *flag.Flag) {
		if err != nil {
			return
		}
		if why, ok := unsupportedOnboardFlags[fl.Name]; ok {
			err = usageErrorf("--%s is not supported: %s", fl.Name, why)
		}
		for _, k := range otherKeyFlags {
			if fl.Name == k {
				err = usageErrorf("--%s: this provider is not set up by onboarding here; use --auth-choice custom-api-key --custom-base-url URL --custom-model-id ID --custom-api-key KEY", k)
			}
		}
	})
	if err != nil {
		return err
	}
	switch {
	case f.mode != "" && f.mode != "local" && f.mode != "remote":
		return usageErrorf("--mode %q: local or remote", f.mode)
	case f.flow == "import":
		return usageErrorf("--flow import is not supported: use openclaw migrate to import an OpenClaw install")
	case f.flow != "" && f.flow != "quickstart" && f.flow != "advanced" && f.flow != "manual":
		return usageErrorf("--flow %q: quickstart, advanced or manual", f.flow)
	case f.secretMode != "plaintext" && f.secretMode != "ref":
		return usageErrorf("--secret-input-mode %q: plaintext or ref", f.secretMode)
	case f.tailscale != "" && f.tailscale != "off":
		return usageErrorf("--tailscale %s is not supported here (only off); put the gateway behind tailscale serve yourself with --gateway-bind loopback", f.tailscale)
	case f.gatewayBind == "custom":
		return usageErrorf("--gateway-bind custom needs gateway.customBindHost, which onboarding does not ask for; set both with openclaw config set")
	case f.gatewayBind != "" && f.gatewayBind != "loopback" && f.gatewayBind != "lan" && f.gatewayBind != "tailnet" && f.gatewayBind != "auto":
		return usageErrorf("--gateway-bind %q: loopback, tailnet, lan or auto", f.gatewayBind)
	case f.gatewayAuth != "" && f.gatewayAuth != "token" && f.gatewayAuth != "password":
		return usageErrorf("--gateway-auth %q: token or password", f.gatewayAuth)
	case f.gatewayToken != "" && f.gatewayTokenRefEnv != "":
		return usageErrorf("--gateway-token and --gateway-token-ref-env are exclusive")
	case f.gatewayPassword != "" && (f.gatewayToken != "" || f.gatewayTokenRefEnv != "" || f.gatewayAuth == "token"):
		return usageErrorf("--gateway-password selects password auth; it cannot go with a gateway token")
	case f.gatewayAuth == "password" && f.gatewayPassword == "" && f.nonInteractive:
		return usageErrorf("--gateway-auth password needs --gateway-password")
	case f.gatewayPort < 0 || f.gatewayPort > 65535:
		return usageErrorf("--gateway-port %d: a port from 1 to 65535", f.gatewayPort)
	case f.gatewayTokenRefEnv != "" && !envNamePattern().MatchString(f.gatewayTokenRefEnv):
		return usageErrorf("--gateway-token-ref-env %q: upper case letters, digits and _", f.gatewayTokenRefEnv)
	case f.remoteToken != "" && f.remotePassword != "":
		return usageErrorf("pass either --remote-token or --remote-password, not both")
	case f.mode == "remote" && (f.gatewayToken != "" || f.gatewayTokenRefEnv != "" || f.gatewayPassword != ""):
		return usageErrorf("--gateway-token, --gateway-token-ref-env and --gateway-password configure a local gateway; in remote mode use --remote-token or --remote-password")
	case f.installDaemon && (f.noInstallDaemon || f.skipDaemon):
		return usageErrorf("--install-daemon and --no-install-daemon/--skip-daemon are exclusive")
	case f.resetScope != "" && !f.reset:
		return usageErrorf("--reset-scope needs --reset")
	case f.resetScope == "full" || f.resetScope == "config+creds+sessions":
		return usageErrorf("--reset-scope %s is not supported: sessions live in the gateway's database and are kept; use --reset-scope config or config+creds", f.resetScope)
	case f.resetScope != "" && f.resetScope != "config" && f.resetScope != "config+creds":
		return usageErrorf("--reset-scope %q: config or config+creds", f.resetScope)
	case f.agentName != "" && !config.ValidAgentID(f.agentName):
		return usageErrorf("--agent-name %q: letters, digits, _ and -", f.agentName)
	case f.customCompat != "openai" && f.customCompat != "anthropic":
		return usageErrorf("--custom-compatibility %q: openai or anthropic (openai-responses is not supported here)", f.customCompat)
	}
	return nil
}

func newOnboardCmd(a *app) *cobra.Command {
	var f *onboardFlags
	c := &cobra.Command{
		Use:   "onboard",
		Short: "Guided setup: model provider and key, a chat channel, the gateway's port, bind and token",
		Long: "Guided setup: asks for a model provider and its API key (checked against the provider),\n" +
			"a chat channel (Telegram, Discord, Slack or WhatsApp) with its token, and the gateway's\n" +
			"port, bind and auth token (generated), then writes a commented config file.\n\n" +
			"Keys are kept out of the config: in an owner-only secrets file (--secret-input-mode\n" +
			"plaintext, the default) or as a reference to an environment variable (ref).\n" +
			"An existing config is replaced only with --reset or after you confirm.",
		Example: "  openclaw onboard\n" +
			"  openclaw onboard --non-interactive --accept-risk --auth-choice openai-api-key --openai-api-key \"$OPENAI_API_KEY\"\n" +
			"  openclaw onboard --non-interactive --accept-risk --auth-choice apiKey --secret-input-mode ref --skip-health",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOnboardFlags(cmd.Flags(), f); err != nil {
				return err
			}
			return a.runOnboard(cmd.Context(), f)
		},
	}
	f = addOnboardFlags(c.Flags())
	return c
}

// onboardPlan is everything onboarding will write, gathered before any
// file is touched.
type onboardPlan struct {
	configPath, stateDir, secretsPath string
	existing                          []byte // the config file being replaced, if any

	mode                                   string
	port                                   int
	bind, authMode                         string
	token                                  any // string or env SecretRef
	generatedToken                         bool
	password                               string
	remoteURL, remoteToken, remotePassword string

	model                *modelSetup
	workspace, agentName string
	skipBootstrap        bool
	channel              *channelAddInput
	secrets              []pendingSecret
	// wizard is what an earlier onboarding kept (accessMode,
	// securityAcknowledgedAt); the run's own record is added on render.
	wizard config.Wizard
}

// newGatewayToken makes the gateway's shared token: 32 random bytes, so
// it cannot be guessed; a var so that golden tests get a fixed one.
var newGatewayToken = func() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate gateway token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func (a *app) runOnboard(ctx context.Context, f *onboardFlags) error {
	interactive := !f.nonInteractive
	if interactive && !interactiveStdin(a.stdin) {
		return usageErrorf("onboarding asks questions, and stdin is not a terminal; pass --non-interactive --accept-risk with the flags (see openclaw onboard --help)")
	}
	if f.nonInteractive && !f.acceptRisk {
		return usageErrorf("--non-interactive needs --accept-risk: agents can run commands and read files with your rights")
	}
	paths, err := cliPaths(a.dev)
	if err != nil {
		return err
	}
	p := &onboardPlan{configPath: paths.ConfigPath, stateDir: paths.StateDir, mode: cmp.Or(f.mode, "local"),
		secretsPath: filepath.Join(paths.StateDir, secretsFileName)}
	// What an earlier onboarding chose stays chosen, --reset or not: the
	// access mode, and that the risk was acknowledged.
	p.wizard = priorWizard(paths.ConfigPath)
	var q *prompter
	if interactive {
		q = newPrompter(a)
		fmt.Fprintln(q.out, "OpenClaw setup. Agents can run commands, read and write files and send messages with your rights;\n"+
			"anyone who can message a channel you connect can reach them (strangers must be paired first).")
		if p.wizard.SecurityAcknowledgedAt != "" {
			fmt.Fprintf(q.out, "(Acknowledged at %s.)\n", p.wizard.SecurityAcknowledgedAt)
		} else if !f.acceptRisk {
			ok, err := q.confirm("I understand; continue", false)
			if err != nil {
				return err
			}
			if !ok {
				return errors.New("onboarding stopped: the risk was not accepted")
			}
		}
	}
	if p.wizard.SecurityAcknowledgedAt == "" {
		p.wizard.SecurityAcknowledgedAt = setupTime()
	}
	if err := a.checkExisting(q, f, p); err != nil {
		return err
	}
	if p.mode == "remote" {
		if err := onboardRemote(q, f, p); err != nil {
			return err
		}
		return a.finishOnboard(ctx, q, f, p)
	}
	if err := a.onboardModel(ctx, q, f, p); err != nil {
		return err
	}
	if q != nil && !f.skipChannels {
		if err := onboardChannel(q, p); err != nil {
			return err
		}
	}
	if err := onboardGateway(q, f, p, a.dev); err != nil {
		return err
	}
	p.workspace = f.workspace
	if p.workspace == "" {
		p.workspace = filepath.Join(paths.StateDir, "workspace")
		if q != nil {
			if p.workspace, err = q.ask("Agent workspace folder", p.workspace); err != nil {
				return err
			}
		}
	}
	home, _ := os.UserHomeDir()
	if abs, err := filepath.Abs(expandTilde(p.workspace, home)); err == nil {
		p.workspace = abs
	}
	p.agentName, p.skipBootstrap = f.agentName, f.skipBootstrap
	return a.finishOnboard(ctx, q, f, p)
}

// checkExisting keeps an existing config unless --reset or the person at
// the terminal says to replace it.
func (a *app) checkExisting(q *prompter, f *onboardFlags, p *onboardPlan) error {
	data, err := os.ReadFile(p.configPath)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(strings.TrimSpace(string(data))) == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	p.existing = data
	if f.reset {
		return nil
	}
	if q == nil {
		return fmt.Errorf("%s already exists; pass --reset to replace it (the old file is kept as %s.bak), or change it with openclaw configure", p.configPath, p.configPath)
	}
	ok, err := q.confirm(fmt.Sprintf("%s already exists. Replace it (the old file is kept as .bak)?", p.configPath), false)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("kept the existing config; change parts of it with openclaw configure")
	}
	return nil
}

func onboardRemote(q *prompter, f *onboardFlags, p *onboardPlan) error {
	p.remoteURL, p.remoteToken, p.remotePassword = f.remoteURL, f.remoteToken, f.remotePassword
	var err error
	if p.remoteURL == "" && q != nil {
		if p.remoteURL, err = q.askValid("Remote gateway URL (ws:// or wss://)", "", checkWSURL); err != nil {
			return err
		}
		if p.remoteToken, err = q.secret("Remote gateway token or password (input hidden, empty for none)"); err != nil {
			return err
		}
	}
	if p.remoteURL == "" {
		return usageErrorf("--mode remote needs --remote-url")
	}
	return checkWSURL(p.remoteURL)
}

func checkWSURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return fmt.Errorf("%q is not a ws:// or wss:// URL", s)
	}
	if u.User != nil || u.RawQuery != "" {
		return fmt.Errorf("%q: put credentials in --remote-token, not in the URL", s)
	}
	return nil
}

// onboardModel picks the provider, takes its key, checks it and plans
// where it is kept.
func (a *app) onboardModel(ctx context.Context, q *prompter, f *onboardFlags, p *onboardPlan) error {
	picked := f.authChoice
	if picked == "" {
		for _, c := range modelChoices {
			if c.keyFlag != "" && *f.keys[c.keyFlag] != "" {
				if picked != "" {
					return usageErrorf("more than one provider key given; pick one with --auth-choice")
				}
				picked = c.choice
			}
		}
	}
	if picked == "" && f.customBaseURL != "" {
		picked = "custom-api-key"
	}
	if picked == "" && q != nil {
		opts := make([]choice, 0, len(modelChoices)+1)
		for _, c := range modelChoices {
			opts = append(opts, choice{c.choice, c.label})
		}
		opts = append(opts, choice{"skip", "Skip for now"})
		var err error
		if picked, err = q.choose("Which model provider?", opts, "openai-api-key"); err != nil {
			return err
		}
	}
	if picked == "" {
		fmt.Fprintln(a.stderr, "warning: no model provider set up (pass --auth-choice and its key flag); agents cannot answer until agents.defaults.model is set")
		return nil
	}
	if picked == "skip" {
		return nil
	}
	c, ok := findModelChoice(picked)
	if !ok {
		return refuseAuthChoice(picked)
	}
	for flagName, v := range f.keys {
		if *v != "" && flagName != c.keyFlag {
			return usageErrorf("--%s does not go with --auth-choice %s (its key flag is --%s)", flagName, c.choice, cmp.Or(c.keyFlag, "none"))
		}
	}
	m := &modelSetup{choice: c, model: c.model, baseURL: c.baseURL}
	if c.choice == "custom-api-key" {
		id := cmp.Or(f.customProviderID, "custom")
		if !providerIDPattern().MatchString(id) {
			return usageErrorf("--custom-provider-id %q: lower case letters, digits, _ and -", id)
		}
		m.choice.id = id
		if f.customCompat == "anthropic" {
			m.choice.api = "anthropic-messages"
		}
		m.baseURL = f.customBaseURL
		m.model = f.customModelID
	}
	if c.choice == "ollama" {
		m.baseURL = cmp.Or(f.customBaseURL, c.baseURL)
		m.model = cmp.Or(f.customModelID, c.model)
	}
	var err error
	if m.baseURL == "" {
		if q == nil {
			return usageErrorf("--auth-choice %s needs --custom-base-url", c.choice)
		}
		if m.baseURL, err = q.askValid("Base URL of the API (e.g. http://127.0.0.1:8000/v1)", "", checkHTTPURL); err != nil {
			return err
		}
	} else if err := checkHTTPURL(m.baseURL); err != nil {
		return usageErrorf("--custom-base-url: %v", err)
	}
	if m.model == "" {
		if q == nil {
			return usageErrorf("--auth-choice %s needs --custom-model-id", c.choice)
		}
		if m.model, err = q.askValid("Model id", "", nonEmptyAnswer); err != nil {
			return err
		}
	} else if q != nil && c.choice != "custom-api-key" && f.customModelID == "" {
		if m.model, err = q.ask("Model id", m.model); err != nil {
			return err
		}
	}
	for {
		key := ""
		if c.keyFlag != "" {
			key = *f.keys[c.keyFlag]
		}
		if key == "" && c.keyFlag != "" {
			key, err = takeKey(q, c, f.secretMode, p.wizard.AccessMode)
			if err != nil {
				return err
			}
		}
		if key == "" && c.choice != "ollama" && c.choice != "custom-api-key" {
			return usageErrorf("%s needs a key: pass --%s or set %s", c.label, c.keyFlag, c.env)
		}
		m.apiKey, m.secret = nil, nil
		if key != "" {
			if m.apiKey, m.secret, err = keyStorage(m.choice, key, f.secretMode); err != nil {
				return err
			}
		}
		if f.skipHealth {
			break
		}
		live := key
		if name, n := wholeEnvRef(key); n > 0 {
			live = os.Getenv(name)
		}
		if f.secretMode == "ref" && live == "" && c.env != "" {
			live = os.Getenv(c.env)
		}
		err := a.progressLine(q, "Checking the key with "+c.label, func() error {
			return checkModelKey(ctx, m.choice.api, m.baseURL, live)
		})
		if err == nil {
			m.checked = true
			break
		}
		if q == nil {
			return fmt.Errorf("model key check failed: %w (fix it, or pass --skip-health to write the config without checking)", err)
		}
		fmt.Fprintf(q.out, "  %v\n", err)
		next, err := q.choose("What now?", []choice{{"retry", "Enter the key again"}, {"keep", "Keep it anyway"}, {"skip", "Skip the model for now"}}, "retry")
		if err != nil {
			return err
		}
		if next == "keep" {
			break
		}
		if next == "skip" {
			return nil
		}
		*f.keys[cmp.Or(c.keyFlag, "custom-api-key")] = ""
	}
	p.model = m
	if m.secret != nil {
		p.secrets = append(p.secrets, *m.secret)
	}
	return nil
}

// takeKey asks for the key, or takes it from the environment.
func takeKey(q *prompter, c modelChoice, mode, access string) (string, error) {
	if env := os.Getenv(c.env); env != "" {
		if q == nil && access == "guarded" {
			return "", usageErrorf("wizard.accessMode is \"guarded\": onboarding does not take %s from the environment without asking; pass --%s", c.env, c.keyFlag)
		}
		if q == nil {
			if mode == "ref" {
				return "${" + c.env + "}", nil
			}
			return env, nil
		}
		use, err := q.confirm(fmt.Sprintf("Use %s from the environment (kept as a reference, the gateway must have it too)?", c.env), true)
		if err != nil {
			return "", err
		}
		if use {
			return "${" + c.env + "}", nil
		}
	}
	if q == nil {
		if c.choice == "custom-api-key" {
			return "", nil
		}
		return "", usageErrorf("%s needs a key: pass --%s or set %s", c.label, c.keyFlag, c.env)
	}
	optional := ""
	if c.choice == "custom-api-key" {
		optional = ", empty for none"
	}
	return q.secret(fmt.Sprintf("%s API key (input hidden%s; ${VAR} keeps it in the environment)", c.label, optional))
}

func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL", s)
	}
	if u.User != nil {
		return fmt.Errorf("%q: the key goes in its own flag, not in the URL", s)
	}
	return nil
}

func nonEmptyAnswer(s string) error {
	if s == "" {
		return errors.New("an answer is needed")
	}
	return nil
}

// progressLine runs fn under a progress line: the prompter's spinner, or
// a plain line on stderr without one (unless --json asks for quiet).
func (a *app) progressLine(q *prompter, label string, fn func() error) error {
	if q == nil {
		q = &prompter{out: a.stderr}
		if f, ok := a.stderr.(*os.File); ok && isTerminal(f) {
			q.tty = true
		}
	}
	return q.progress(label, fn)
}

// onboardChannel asks which network to connect and its credentials.
func onboardChannel(q *prompter, p *onboardPlan) error {
	opts := []choice{}
	for _, id := range editableChannels {
		opts = append(opts, choice{id, channelSpecs[id].label})
	}
	opts = append(opts, choice{"skip", "Skip for now (openclaw channels add later)"})
	ch, err := q.choose("Connect a chat channel?", opts, "skip")
	if err != nil || ch == "skip" {
		return err
	}
	in := &channelAddInput{channel: ch, creds: map[string]string{}}
	if err := askChannelCreds(q, channelSpecs[ch], in); err != nil {
		return err
	}
	p.channel = in
	return nil
}

// onboardGateway settles port, bind and auth.
func onboardGateway(q *prompter, f *onboardFlags, p *onboardPlan, dev bool) error {
	p.port = f.gatewayPort
	if p.port == 0 {
		p.port = 18789
		if dev {
			p.port = 19001
		}
		if q != nil {
			s, err := q.askValid("Gateway port", strconv.Itoa(p.port), func(s string) error {
				n, err := strconv.Atoi(s)
				if err != nil || n < 1 || n > 65535 {
					return errors.New("a port from 1 to 65535")
				}
				return nil
			})
			if err != nil {
				return err
			}
			p.port, _ = strconv.Atoi(s)
		}
	}
	p.bind = f.gatewayBind
	if p.bind == "" {
		p.bind = "loopback"
		if q != nil {
			var err error
			p.bind, err = q.choose("Who may connect to the gateway?", []choice{
				{"loopback", "This machine only (loopback)"},
				{"lan", "Other machines on the network too (lan), with the token"},
				{"tailnet", "Machines on my tailnet (the Tailscale address)"},
				{"auto", "Tailscale when present, else this machine (auto)"}}, "loopback")
			if err != nil {
				return err
			}
		}
	}
	p.authMode = cmp.Or(f.gatewayAuth, "token")
	if f.gatewayPassword != "" {
		p.authMode = "password"
	}
	switch {
	case p.authMode == "password":
		p.password = f.gatewayPassword
		if p.password == "" {
			pw, err := q.secret("Gateway password (input hidden, at least 12 characters)")
			if err != nil {
				return err
			}
			p.password = pw
		}
		if len(p.password) < 12 {
			return usageErrorf("the gateway password must be at least 12 characters")
		}
		p.password = configSecret(p.password)
	case f.gatewayTokenRefEnv != "":
		if os.Getenv(f.gatewayTokenRefEnv) == "" {
			return usageErrorf("--gateway-token-ref-env %s: the variable is not set in this environment", f.gatewayTokenRefEnv)
		}
		p.token = envSecretRef(f.gatewayTokenRefEnv)
	case f.gatewayToken != "":
		p.token = configSecret(f.gatewayToken)
	default:
		tok, err := newGatewayToken()
		if err != nil {
			return err
		}
		p.token, p.generatedToken = tok, true
	}
	return nil
}

// finishOnboard writes the secrets and the config (after checking it
// loads), installs the service if asked, and checks the gateway.
func (a *app) finishOnboard(ctx context.Context, q *prompter, f *onboardFlags, p *onboardPlan) error {
	data := renderOnboardConfig(p)
	if _, err := config.Parse(p.configPath, data, config.LoadOptions{Getenv: func(string) string { return "set" }}); err != nil {
		return fmt.Errorf("onboarding built a config that does not load (a bug; nothing was written): %w", err)
	}
	if p.existing != nil {
		bak := p.configPath + ".bak"
		if err := writePrivateFile(bak, p.existing); err != nil {
			return fmt.Errorf("back up the old config: %w", err)
		}
		if f.reset && f.resetScope != "config" {
			if old, err := os.ReadFile(p.secretsPath); err == nil {
				if err := writePrivateFile(p.secretsPath+".bak", old); err != nil {
					return fmt.Errorf("back up the old secrets file: %w", err)
				}
				if err := os.Remove(p.secretsPath); err != nil {
					return fmt.Errorf("reset the secrets file: %w", err)
				}
			}
		}
	}
	secretsWritten := ""
	if len(p.secrets) > 0 {
		path, err := storeSecrets(p.stateDir, p.secrets)
		if err != nil {
			return err
		}
		secretsWritten = path
	}
	if err := os.MkdirAll(p.stateDir, 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	if err := writePrivateFile(p.configPath, data); err != nil {
		return err
	}
	if p.mode == "local" && p.workspace != "" {
		if err := os.MkdirAll(p.workspace, 0o700); err != nil {
			return fmt.Errorf("create workspace: %w", err)
		}
	}
	summary := map[string]any{"ok": true, "configPath": p.configPath, "mode": p.mode}
	if secretsWritten != "" {
		summary["secretsPath"] = secretsWritten
	}
	if p.existing != nil {
		summary["backupPath"] = p.configPath + ".bak"
	}
	if p.mode == "local" {
		summary["gateway"] = map[string]any{"port": p.port, "bind": p.bind, "auth": p.authMode, "tokenGenerated": p.generatedToken}
		summary["workspace"] = p.workspace
		if p.model != nil {
			summary["model"] = p.model.modelRef()
			summary["modelKeyChecked"] = p.model.checked
		}
		if p.channel != nil {
			summary["channel"] = p.channel.channel
		}
	}
	out := a.stdout
	if f.jsonOut {
		out = a.stderr
	}
	fmt.Fprintf(out, "Wrote %s\n", p.configPath)
	if secretsWritten != "" {
		fmt.Fprintf(out, "Kept the model key in %s (owner-only)\n", secretsWritten)
	}
	if p.generatedToken {
		fmt.Fprintln(out, "Generated a gateway token (in the config; `openclaw dashboard` opens the Control UI with it).")
	}
	if p.mode == "local" {
		if err := a.onboardDaemonAndHealth(ctx, q, f, p, out, summary); err != nil {
			return err
		}
	}
	if f.jsonOut {
		return writeJSON(a.stdout, summary)
	}
	return nil
}

// onboardDaemonAndHealth installs the service when asked and looks for a
// running gateway.
func (a *app) onboardDaemonAndHealth(ctx context.Context, q *prompter, f *onboardFlags, p *onboardPlan, out interface{ Write([]byte) (int, error) }, summary map[string]any) error {
	install := f.installDaemon
	if q != nil && !f.installDaemon && !f.noInstallDaemon && !f.skipDaemon {
		var err error
		if install, err = q.confirm("Install the gateway as a user service that starts at login?", false); err != nil {
			return err
		}
	}
	if install {
		if err := a.runServiceInstall(ctx, service.Gateway, &installFlags{}); err != nil {
			return fmt.Errorf("install the gateway service: %w", err)
		}
		summary["daemonInstalled"] = true
	}
	if f.skipHealth {
		return nil
	}
	g := &gatewayFlags{timeoutMs: 3000, dev: a.dev}
	var health map[string]any
	check := func() error { return a.callOnce(ctx, g, "health", readScope, map[string]any{}, &health, false) }
	var err error
	if install {
		deadline := time.Now().Add(30 * time.Second)
		err = a.progressLine(q, "Waiting for the gateway", func() error {
			for {
				if err := check(); err == nil || time.Now().After(deadline) || ctx.Err() != nil {
					return err
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(500 * time.Millisecond):
				}
			}
		})
	} else {
		err = check()
	}
	summary["gatewayReachable"] = err == nil
	switch {
	case err == nil:
		fmt.Fprintln(out, "The gateway is running and answers health checks.")
	case install:
		return fmt.Errorf("the gateway service was installed but does not answer: %w (see openclaw gateway status)", err)
	default:
		fmt.Fprintln(out, "Start the gateway with `openclaw gateway` (or `openclaw gateway install` for a service), then check it with `openclaw health`.")
	}
	return nil
}
