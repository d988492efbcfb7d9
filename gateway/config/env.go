package config

import (
	"slices"
	"strings"
)

// substituteEnv replaces ${VAR} in every string value under n (keys are left
// alone). Only names of upper-case letters, digits and _ not starting with a
// digit are variables. A variable that is unset or empty stays as written
// and is remembered on the node for reportMissingEnv; $${VAR} is the escape
// for a literal ${VAR}.
func substituteEnv(n *node, getenv func(string) string) {
	switch n.kind {
	case kindString:
		n.str, n.missingEnv = expandEnv(n.str, getenv)
	case kindObject:
		for _, m := range n.members {
			substituteEnv(m.val, getenv)
		}
	case kindArray:
		for _, e := range n.elems {
			substituteEnv(e, getenv)
		}
	}
}

// reportMissingEnv warns of the unset variables substituteEnv left in
// plain strings. Secrets (secretUse) were reported by their decoder: for
// them the value is unavailable, not the text as written.
func reportMissingEnv(n *node, path string, issues *issueList) {
	switch n.kind {
	case kindString:
		if n.secretUse {
			return
		}
		for _, name := range n.missingEnv {
			issues.warnAt(n, false, path, "environment variable %s is not set; \"${%s}\" is left as written", name, name)
		}
	case kindObject:
		for _, m := range n.members {
			reportMissingEnv(m.val, JoinPath(path, m.key), issues)
		}
	case kindArray:
		for i, e := range n.elems {
			reportMissingEnv(e, indexPath(path, i), issues)
		}
	}
}

// expandEnv expands one string and returns the names it could not resolve,
// each once, in order of appearance.
func expandEnv(s string, getenv func(string) string) (string, []string) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	var missing []string
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		if strings.HasPrefix(s[i:], "$${") {
			if name, n := envRef(s[i+1:]); n > 0 {
				b.WriteString("${" + name + "}")
				i += 1 + n
				continue
			}
		}
		name, n := envRef(s[i:])
		if n == 0 {
			b.WriteByte('$')
			i++
			continue
		}
		if v := getenv(name); v != "" {
			b.WriteString(v)
		} else {
			b.WriteString(s[i : i+n])
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
		i += n
	}
	return b.String(), missing
}

// envRef matches ${NAME} at the start of s and returns NAME and the length
// of the reference, or 0 when s does not start with one.
func envRef(s string) (string, int) {
	if !strings.HasPrefix(s, "${") {
		return "", 0
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", 0
	}
	name := s[2:end]
	if !isEnvName(name) {
		return "", 0
	}
	return name, end + 1
}

func isEnvName(name string) bool {
	if name == "" || ('0' <= name[0] && name[0] <= '9') {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

// withConfigEnv lets env.vars stand in for variables the environment
// lacks, as OpenClaw applies the config's env block only where a variable
// is missing. The values are read as written: they are not themselves
// substituted.
func withConfigEnv(root *node, getenv func(string) string) func(string) string {
	if root.kind != kindObject {
		return getenv
	}
	var vars *node
	if env := root.get("env"); env != nil && env.kind == kindObject {
		vars = env.get("vars")
	}
	if vars == nil || vars.kind != kindObject || len(vars.members) == 0 {
		return getenv
	}
	fallback := make(map[string]string, len(vars.members))
	for _, m := range vars.members {
		if m.val.kind == kindString {
			fallback[m.key] = m.val.str
		}
	}
	return func(name string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return fallback[name]
	}
}
