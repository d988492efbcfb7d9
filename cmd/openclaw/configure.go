package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/service"
	"github.com/openclaw-go/openclaw/gateway/config"
)

func init() { registerCommand("", newConfigureCmd) }

// configureSections are the real CLI's sections, in the order the full
// wizard runs them.
var configureSections = []string{"workspace", "model", "web", "gateway", "daemon", "channels", "plugins", "skills", "health"}

// configureMissing are sections whose feature this gateway sets up
// elsewhere; asked for by name they are refused with where to go.
var configureMissing = map[string]string{
	"web":     "web search is configured under tools.web (openclaw config set tools.web.search.provider ...)",
	"plugins": "plugins are listed under plugins.load.paths (openclaw config set), there is no plugin installer here",
	"skills":  "skills are folders found in the workspace and skills.load.extraDirs; see openclaw skills list",
}

func newConfigureCmd(a *app) *cobra.Command {
	var sections []string
	c := &cobra.Command{
		Use:   "configure",
		Short: "Interactive configuration for credentials, channels, gateway, and agent defaults",
		Long: "Re-runs sections of the onboarding wizard on the existing config, keeping its comments:\n" +
			"workspace, model, gateway, daemon, channels and health (web, plugins and skills are\n" +
			"configured with `openclaw config set` here). Needs a terminal.",
		Example: "  openclaw configure\n  openclaw configure --section model --section channels\n  openclaw configure --section gateway",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runConfigure(cmd.Context(), sections)
		},
	}
	c.Flags().StringArrayVar(&sections, "section", nil, "configuration `section` (repeatable): "+strings.Join(configureSections, ", "))
	return c
}

func (a *app) runConfigure(ctx context.Context, sections []string) error {
	for _, s := range sections {
		if !slices.Contains(configureSections, s) {
			return usageErrorf("--section %q: one of %s", s, strings.Join(configureSections, ", "))
		}
		if why, ok := configureMissing[s]; ok {
			return usageErrorf("section %s is not available here: %s", s, why)
		}
	}
	if !interactiveStdin(a.stdin) {
		return usageErrorf("openclaw configure asks questions and needs a terminal; without one, use\n" +
			"  openclaw config get <key>\n  openclaw config set <key> <value>\n  openclaw config validate\n" +
			"or openclaw channels add with its flags")
	}
	paths, err := cliPaths(a.dev)
	if err != nil {
		return err
	}
	if _, err := os.Stat(paths.ConfigPath); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no config at %s yet; run openclaw onboard first", paths.ConfigPath)
	}
	if len(sections) == 0 {
		for _, s := range configureSections {
			if _, missing := configureMissing[s]; !missing {
				sections = append(sections, s)
			}
		}
	}
	q := newPrompter(a)
	for _, s := range sections {
		fmt.Fprintf(q.out, "\n== %s ==\n", s)
		var err error
		switch s {
		case "workspace":
			err = a.configureWorkspace(q, paths)
		case "model":
			err = a.configureModel(ctx, q, paths)
		case "gateway":
			err = a.configureGateway(q, paths)
		case "daemon":
			err = a.configureDaemon(ctx, q)
		case "channels":
			err = a.configureChannels(q)
		case "health":
			err = a.configureHealth(ctx)
		}
		if err != nil {
			return fmt.Errorf("section %s: %w", s, err)
		}
	}
	return a.recordSetupRun("configure")
}

// recordSetupRun writes this run of a setup command into wizard.lastRun*,
// with the mode the config's gateway.mode says.
func (a *app) recordSetupRun(command string) error {
	_, err := editConfig(a, a.dev, "wizard", func(src []byte) ([]byte, error) {
		tree, err := fileTree(src)
		if err != nil {
			return nil, err
		}
		return config.RecordSetupRun(src, setupRun(command, cmp.Or(treeString(tree, "gateway", "mode"), "local")))
	})
	return err
}

// currentTree reads the config file's own keys, for the defaults the
// questions offer.
func currentTree(paths config.Paths) (map[string]any, error) {
	src, err := os.ReadFile(paths.ConfigPath)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return fileTree(src)
}

func treeString(tree map[string]any, path ...string) string {
	v, _ := lookupPath(tree, path)
	s, _ := v.(string)
	return s
}

// setKeys writes key=value pairs in order into the config file, keeping
// its comments, and says what changed.
func (a *app) setKeys(out *prompter, kv ...any) error {
	var keys []string
	path, err := editConfig(a, a.dev, kv[0].(string), func(src []byte) ([]byte, error) {
		for i := 0; i < len(kv); i += 2 {
			next, err := config.Set(src, kv[i].(string), kv[i+1])
			if err != nil {
				return nil, err
			}
			src = next
			keys = append(keys, kv[i].(string))
		}
		return src, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out.out, "Set %s in %s\n", strings.Join(keys, ", "), path)
	return nil
}

func (a *app) configureWorkspace(q *prompter, paths config.Paths) error {
	tree, err := currentTree(paths)
	if err != nil {
		return err
	}
	cur := cmp.Or(treeString(tree, "agents", "defaults", "workspace"), filepath.Join(paths.StateDir, "workspace"))
	ws, err := q.askValid("Agent workspace folder", cur, nonEmptyAnswer)
	if err != nil || ws == cur {
		return err
	}
	home, _ := os.UserHomeDir()
	if abs, err := filepath.Abs(expandTilde(ws, home)); err == nil {
		ws = abs
	}
	if err := os.MkdirAll(ws, 0o700); err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	return a.setKeys(q, "agents.defaults.workspace", ws)
}

// emptyOnboardFlags are onboarding's flags with nothing given, for the
// sections configure shares with it.
func emptyOnboardFlags() *onboardFlags {
	f := &onboardFlags{keys: map[string]*string{}, secretMode: "plaintext", customCompat: "openai"}
	for _, c := range modelChoices {
		if c.keyFlag != "" {
			f.keys[c.keyFlag] = new(string)
		}
	}
	return f
}

// configureModel adds or re-keys a provider; the default model changes
// only when the person says so.
func (a *app) configureModel(ctx context.Context, q *prompter, paths config.Paths) error {
	tree, err := currentTree(paths)
	if err != nil {
		return err
	}
	p := &onboardPlan{stateDir: paths.StateDir, secretsPath: filepath.Join(paths.StateDir, secretsFileName)}
	f := emptyOnboardFlags()
	if err := a.onboardModel(ctx, q, f, p); err != nil || p.model == nil {
		return err
	}
	m := p.model
	kv := []any{config.JoinPath("models.providers", m.choice.id), m.providerBlock()}
	if ref, ok := m.apiKey.(map[string]any); ok && ref["source"] == "file" {
		kv = append(kv, config.JoinPath("secrets.providers", secretsProviderName), map[string]any{"source": "file", "path": p.secretsPath})
	}
	cur, _ := lookupPath(tree, []string{"agents", "defaults", "model"})
	setDefault := cur == nil
	if !setDefault {
		if setDefault, err = q.confirm(fmt.Sprintf("Make %s the default model (now %v)?", m.modelRef(), describeModel(cur)), false); err != nil {
			return err
		}
	}
	if setDefault {
		kv = append(kv, "agents.defaults.model", m.modelRef())
	}
	if len(p.secrets) > 0 {
		if _, err := storeSecrets(p.stateDir, p.secrets); err != nil {
			return err
		}
		fmt.Fprintf(q.out, "Kept the key in %s (owner-only)\n", p.secretsPath)
	}
	return a.setKeys(q, kv...)
}

func describeModel(v any) string {
	switch m := v.(type) {
	case string:
		return m
	case map[string]any:
		if s, ok := m["primary"].(string); ok {
			return s
		}
	}
	return "set"
}

func (a *app) configureGateway(q *prompter, paths config.Paths) error {
	tree, err := currentTree(paths)
	if err != nil {
		return err
	}
	port := 18789
	if v, ok := lookupPath(tree, []string{"gateway", "port"}); ok {
		if n, ok := v.(float64); ok {
			port = int(n)
		}
	}
	ps, err := q.askValid("Gateway port", strconv.Itoa(port), func(s string) error {
		if n, err := strconv.Atoi(s); err != nil || n < 1 || n > 65535 {
			return errors.New("a port from 1 to 65535")
		}
		return nil
	})
	if err != nil {
		return err
	}
	port, _ = strconv.Atoi(ps)
	bind, err := q.choose("Who may connect to the gateway?", []choice{
		{"loopback", "This machine only (loopback)"}, {"lan", "Other machines on the network too (lan)"},
		{"tailnet", "Machines on my tailnet"}, {"auto", "Tailscale when present, else this machine"}},
		cmp.Or(treeString(tree, "gateway", "bind"), "loopback"))
	if err != nil {
		return err
	}
	kv := []any{"gateway.port", port, "gateway.bind", bind}
	auth, err := q.choose("Gateway auth", []choice{{"keep", "Keep the current secret"}, {"token", "Generate a new token"}, {"password", "Use a password"}}, "keep")
	if err != nil {
		return err
	}
	switch auth {
	case "token":
		tok, err := newGatewayToken()
		if err != nil {
			return err
		}
		kv = append(kv, "gateway.auth.mode", "token", "gateway.auth.token", tok)
		fmt.Fprintln(q.out, "Generated a new gateway token; clients holding the old one must be given the new one (openclaw dashboard).")
	case "password":
		pw, err := q.secret("Gateway password (input hidden, at least 12 characters)")
		if err != nil {
			return err
		}
		if len(pw) < 12 {
			return usageErrorf("the gateway password must be at least 12 characters")
		}
		kv = append(kv, "gateway.auth.mode", "password", "gateway.auth.password", configSecret(pw))
	}
	if err := a.setKeys(q, kv...); err != nil {
		return err
	}
	fmt.Fprintln(q.out, "The gateway reads its port and bind at start: restart it (openclaw gateway restart) to move it.")
	return nil
}

func (a *app) configureDaemon(ctx context.Context, q *prompter) error {
	ok, err := q.confirm("Install (or reinstall) the gateway as a user service?", false)
	if err != nil || !ok {
		return err
	}
	return a.runServiceInstall(ctx, service.Gateway, &installFlags{force: true})
}

// configureChannels is guided channels add, as often as wanted.
func (a *app) configureChannels(q *prompter) error {
	for {
		opts := []choice{}
		for _, id := range editableChannels {
			opts = append(opts, choice{id, channelSpecs[id].label})
		}
		opts = append(opts, choice{"done", "Done"})
		ch, err := q.choose("Add or update a channel account?", opts, "done")
		if err != nil || ch == "done" {
			return err
		}
		acct, err := q.askValid("Account id", "default", func(s string) error {
			if !accountIDPattern().MatchString(s) {
				return errors.New("letters, digits, '-' and '_'")
			}
			return nil
		})
		if err != nil {
			return err
		}
		in := channelAddInput{channel: ch, account: acct, creds: map[string]string{}}
		if acct == "default" {
			in.account = ""
		}
		if err := askChannelCreds(q, channelSpecs[ch], &in); err != nil {
			return err
		}
		var changed []string
		path, err := editConfig(a, a.dev, "channels."+ch, func(src []byte) ([]byte, error) {
			out, _, c, _, err := applyChannelAdd(src, channelSpecs[ch], in)
			changed = c
			return out, err
		})
		if err != nil {
			return err
		}
		if len(changed) > 0 {
			fmt.Fprintf(q.out, "Set %s in %s\n", strings.Join(changed, ", "), path)
		}
		if next := channelSpecs[ch].next; next != "" {
			fmt.Fprintln(q.out, next)
		}
	}
}

func (a *app) configureHealth(ctx context.Context) error {
	g := &gatewayFlags{timeoutMs: 5000, dev: a.dev}
	var out map[string]any
	if err := a.callOnce(ctx, g, "health", readScope, map[string]any{}, &out, false); err != nil {
		fmt.Fprintf(a.stderr, "The gateway does not answer: %v\nStart it with `openclaw gateway`.\n", err)
		return nil
	}
	fmt.Fprintln(a.stderr, "The gateway is running and answers health checks.")
	return nil
}
