package tools

import (
	"encoding/json"
	"slices"
	"strings"
)

// RedactedEnvValue replaces the value of a secret-looking variable in
// what people are shown; it is the sentinel OpenClaw redacts with.
const RedactedEnvValue = "__OPENCLAW_REDACTED__"

// secretEnvWords mark a credential anywhere in a variable's name.
var secretEnvWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY",
	"PRIVATE_KEY", "COOKIE"}

// SecretEnvName reports whether a variable's name says it holds a
// credential, ignoring case: it contains TOKEN, SECRET, PASSWORD, PASSWD,
// PASSPHRASE, CREDENTIAL, APIKEY, PRIVATE_KEY or COOKIE, or it ends in
// KEY or AUTH (OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, NPM_CONFIG__AUTH).
// GIT_CONFIG_KEY_0 is not secret: KEY must end the name.
func SecretEnvName(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range secretEnvWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return strings.HasSuffix(upper, "KEY") || strings.HasSuffix(upper, "AUTH")
}

// RedactEnv returns env for people to read (approval prompts, chat
// approval messages, the audit): every name is kept, so an approver sees
// each variable that is set, and the value of every secret-looking one
// (SecretEnvName) becomes RedactedEnvValue, since approval requests are
// broadcast to every operator and posted in chats. The variables that
// steer programs (GIT_CONFIG_VALUE_0, GIT_SSH_COMMAND, PAGER, …) do not
// look secret and keep their values; an approver who cannot see a value
// should deny. Nil for an empty env.
func RedactEnv(env map[string]string) map[string]string {
	if len(env) == 0 {
		return nil
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		if v != "" && SecretEnvName(k) {
			v = RedactedEnvValue
		}
		out[k] = v
	}
	return out
}

// approvalArgs returns a call's arguments as an approval shows them: a
// top-level "env" object (exec's, and any tool's of the same shape) has
// its secret-looking values redacted, and its names are returned sorted
// for the request's envKeys. Arguments without one are returned as they
// are.
func approvalArgs(args json.RawMessage) (json.RawMessage, []string) {
	var top map[string]json.RawMessage
	if json.Unmarshal(args, &top) != nil || top["env"] == nil {
		return args, nil
	}
	var env map[string]string
	if json.Unmarshal(top["env"], &env) != nil || len(env) == 0 {
		return args, nil
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	red, _ := json.Marshal(RedactEnv(env)) // a map of strings always marshals
	top["env"] = red
	out, err := json.Marshal(top)
	if err != nil {
		return args, keys
	}
	return out, keys
}
