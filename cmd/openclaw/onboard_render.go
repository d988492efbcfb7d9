package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// jnode is one key of the config file onboarding writes: an object with
// children, or a value. Each carries the comment written above it.
type jnode struct {
	key     string
	comment string
	value   any
	kids    []*jnode
}

func obj(key, comment string, kids ...*jnode) *jnode {
	var keep []*jnode
	for _, k := range kids {
		if k != nil {
			keep = append(keep, k)
		}
	}
	return &jnode{key: key, comment: comment, kids: keep}
}

func leaf(key, comment string, v any) *jnode { return &jnode{key: key, comment: comment, value: v} }

// renderJSON5 writes the tree as a commented JSON5 file. Every value goes
// through encoding/json, so a quote, backslash, newline or comment marker
// in a token stays inside its string.
func renderJSON5(header string, root []*jnode) []byte {
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		b.WriteString("// " + line + "\n")
	}
	b.WriteString("{\n")
	for _, n := range root {
		n.render(&b, 1)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func (n *jnode) render(b *bytes.Buffer, depth int) {
	ind := strings.Repeat("  ", depth)
	if n.comment != "" {
		for _, line := range wrapComment(n.comment, 78-len(ind)) {
			b.WriteString(ind + "// " + line + "\n")
		}
	}
	// Keys are quoted: the file is then also plain HuJSON (JSON with
	// comments), which every tool that reads JSON with comments takes.
	key := jsonString(n.key)
	if n.value == nil {
		fmt.Fprintf(b, "%s%s: {\n", ind, key)
		for _, k := range n.kids {
			k.render(b, depth+1)
		}
		fmt.Fprintf(b, "%s},\n", ind)
		return
	}
	fmt.Fprintf(b, "%s%s: %s,\n", ind, key, jsonValue(n.value))
}

// jsonValue renders v on one line; maps with sorted keys.
func jsonValue(v any) string {
	if m, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s: %s", jsonString(k), jsonValue(m[k])))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("onboard: render config value: " + err.Error())
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func jsonString(s string) string { return jsonValue(s) }

// wrapComment splits text into lines of at most width columns.
func wrapComment(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

const onboardHeader = `OpenClaw config, written by openclaw onboard. The format is JSON5:
comments, unquoted keys and trailing commas are fine. Change it with
openclaw configure, openclaw config set, or by hand; a running gateway
reloads it. Any string may use ${ENV_VAR}; $${ENV_VAR} is the literal text.`

// renderOnboardConfig is the config file of a plan, with a comment on
// each key saying what it does.
func renderOnboardConfig(p *onboardPlan) []byte {
	var gw *jnode
	if p.mode == "remote" {
		gw = obj("gateway", "The gateway this CLI talks to.",
			leaf("mode", `"remote": the gateway runs on another machine; this CLI connects to gateway.remote.`, "remote"),
			obj("remote", "Where the remote gateway is and the secret it expects.",
				leaf("url", "The gateway's WebSocket address.", p.remoteURL),
				optLeaf("token", "Shared token the remote gateway expects.", p.remoteToken),
				optLeaf("password", "Password the remote gateway expects.", p.remotePassword)))
		return renderJSON5(onboardHeader, []*jnode{gw, wizardNode(p)})
	}
	auth := obj("auth", "How clients prove they may use the gateway.",
		leaf("mode", authModeComment(p.authMode), p.authMode))
	if p.authMode == "password" {
		auth.kids = append(auth.kids, leaf("password", "The password clients send. Keep this file private (it is 0600).", p.password))
	} else {
		auth.kids = append(auth.kids, leaf("token", tokenComment(p.token), p.token))
	}
	gw = obj("gateway", "The gateway: one process serving the agents, channels, Control UI and the CLI's RPC.",
		leaf("mode", `"local": the gateway runs on this machine.`, "local"),
		leaf("port", "TCP port for WebSocket RPC, HTTP and the Control UI.", p.port),
		leaf("bind", bindComment(p.bind), p.bind),
		auth)
	nodes := []*jnode{gw}
	if p.model != nil {
		m := p.model
		prov := obj(m.choice.id, m.choice.label+".",
			leaf("api", "Wire protocol of the provider's API.", m.choice.api),
			leaf("baseUrl", "Base URL of the API.", m.baseURL))
		if m.apiKey != nil {
			prov.kids = append(prov.kids, leaf("apiKey", keyComment(m.apiKey), m.apiKey))
		}
		nodes = append(nodes, obj("models", "Model providers; agents name a model as \"<provider>/<model id>\".",
			obj("providers", "", prov)))
		if ref, ok := m.apiKey.(map[string]any); ok && ref["source"] == "file" {
			nodes = append(nodes, obj("secrets", "Where secrets kept out of this file live.",
				obj("providers", "",
					obj(secretsProviderName, "The owner-only (0600) JSON file onboarding keeps keys in; file SecretRefs with provider \""+secretsProviderName+"\" read it by JSON pointer.",
						leaf("source", "", "file"),
						leaf("path", "", p.secretsPath)))))
		}
	}
	defaults := obj("defaults", "Settings every agent inherits.")
	if p.model != nil {
		defaults.kids = append(defaults.kids, leaf("model", "The model agents answer with, as \"provider/model\".", p.model.modelRef()))
	}
	defaults.kids = append(defaults.kids, leaf("workspace", "Folder holding the agent's AGENTS.md, SOUL.md, memory and files it works on.", p.workspace))
	if p.skipBootstrap {
		defaults.kids = append(defaults.kids, leaf("skipBootstrap", "Do not create the workspace's starter files (AGENTS.md, SOUL.md, ...).", true))
	}
	agents := obj("agents", "The agents.", defaults)
	if p.agentName != "" && p.agentName != "main" {
		agents.kids = append(agents.kids, obj("entries", "The agents by id.",
			obj(p.agentName, "The first agent; it answers when no agent is named.", leaf("default", "", true))))
	}
	nodes = append(nodes, agents)
	if c := p.channel; c != nil {
		spec := channelSpecs[c.channel]
		block := obj(c.channel, spec.label+": who may reach the agents there and with which credentials.",
			leaf("dmPolicy", `Who may message the bot directly: "pairing" sends strangers a code you approve with openclaw pairing approve.`, "pairing"))
		for _, cr := range spec.creds {
			if v, ok := c.creds[cr.key]; ok {
				block.kids = append(block.kids, leaf(cr.key, credComment(cr, v), configSecret(v)))
			}
		}
		if c.mode != "" {
			block.kids = append(block.kids, leaf("mode", `How Slack delivers events: "socket" (Socket Mode) or "http" (Events API).`, c.mode))
		}
		if c.name != "" {
			block.kids = append(block.kids, leaf("name", "Display name of the account.", c.name))
		}
		nodes = append(nodes, obj("channels", "Chat networks the agents answer on.", block))
	}
	return renderJSON5(onboardHeader, append(nodes, wizardNode(p)))
}

// wizardNode is the wizard section: this run's record, and what an
// earlier onboarding chose.
func wizardNode(p *onboardPlan) *jnode {
	run := setupRun("onboard", p.mode)
	w := p.wizard
	opt := func(key, comment, v string) *jnode {
		if v == "" {
			return nil
		}
		return leaf(key, comment, v)
	}
	return obj("wizard", "What setup last did (openclaw onboard, configure and doctor --fix keep it up to date).",
		opt("accessMode", `"guarded": onboarding never takes a key from the environment without asking.`, w.AccessMode),
		opt("securityAcknowledgedAt", "When the risk notice was acknowledged; onboarding does not ask again.", w.SecurityAcknowledgedAt),
		leaf("lastRunAt", "", run.At.UTC().Format("2006-01-02T15:04:05.000Z")),
		leaf("lastRunVersion", "", run.Version),
		opt("lastRunCommit", "", run.Commit),
		leaf("lastRunCommand", "", run.Command),
		leaf("lastRunMode", "", run.Mode))
}

func optLeaf(key, comment, v string) *jnode {
	if v == "" {
		return nil
	}
	return leaf(key, comment, configSecret(v))
}

func authModeComment(mode string) string {
	if mode == "password" {
		return `"password": clients send gateway.auth.password.`
	}
	return `"token": clients send gateway.auth.token (openclaw dashboard opens the Control UI with it).`
}

func tokenComment(token any) string {
	if _, ok := token.(map[string]any); ok {
		return "Shared token clients must send, read from the environment variable named here."
	}
	return "Shared token clients must send. Generated at random; keep this file private (it is 0600)."
}

func bindComment(bind string) string {
	switch bind {
	case "loopback":
		return `Interfaces to listen on: "loopback" is this machine only (127.0.0.1).`
	case "lan":
		return `Interfaces to listen on: "lan" is every interface, so other machines can connect with the token.`
	case "tailnet":
		return `Interfaces to listen on: "tailnet" is this machine's Tailscale address.`
	}
	return `Interfaces to listen on: "auto" picks the Tailscale address when there is one, else loopback.`
}

func keyComment(ref any) string {
	if m, ok := ref.(map[string]any); ok && m["source"] == "env" {
		return fmt.Sprintf("API key, read from the environment variable %v when the gateway starts.", m["id"])
	}
	return "API key, kept out of this file: a reference into the secrets file below."
}

func credComment(c channelCred, v string) string {
	if name, n := wholeEnvRef(v); n > 0 {
		return fmt.Sprintf("%s, read from the environment variable %s.", c.label, name)
	}
	return c.label + "."
}
