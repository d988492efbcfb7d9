package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultSecretAlias is the provider alias of the built-in env provider
// when secrets.defaults.env does not name another.
const DefaultSecretAlias = "default"

// EnvAlias is the alias env refs use for the built-in env provider.
func (s Secrets) EnvAlias() string {
	if s.Defaults.Env != "" {
		return s.Defaults.Env
	}
	return DefaultSecretAlias
}

// SecretProviderFor finds the provider a ref is resolved through, or says
// why there is none. For env refs naming the built-in alias without an env
// entry of that name, ok is true and the provider is the zero value (read
// the environment, no allowlist).
func (s Secrets) SecretProviderFor(ref SecretRef) (p SecretProvider, problem string) {
	p, found := s.Providers[ref.Provider]
	builtin := ref.Source == "env" && ref.Provider == s.EnvAlias()
	switch {
	case builtin && (!found || p.Source != "env"):
		return SecretProvider{Source: "env"}, ""
	case !found:
		return p, fmt.Sprintf("secret provider %q is not configured (add secrets.providers.%s with source %q)", ref.Provider, ref.Provider, ref.Source)
	case p.Source != ref.Source:
		return p, fmt.Sprintf("secret provider %q has source %q but the ref asks for %q", ref.Provider, p.Source, ref.Source)
	case p.Source == "exec" && p.Command == "":
		return p, fmt.Sprintf("secret provider %q has no command (plugin integrations, pluginIntegration, are not in effect here)", ref.Provider)
	case p.Source == "exec" && !filepath.IsAbs(p.Command) && !strings.HasPrefix(p.Command, "~/"):
		return p, fmt.Sprintf("secret provider %q: command %q must be an absolute path (it is run directly, without a shell or a PATH lookup)", ref.Provider, p.Command)
	case p.Source == "file" && p.Path == "":
		return p, fmt.Sprintf("secret provider %q has no path", ref.Provider)
	case p.Source == "file" && p.Mode == "singleValue" && ref.ID != "value":
		return p, fmt.Sprintf("secret provider %q is singleValue: its ref id must be \"value\"", ref.Provider)
	}
	return p, ""
}

// checkSecretRefs checks secrets.providers and holds every SecretRef to the
// provider it names: an env ref a provider's allowlist refuses, or a ref to
// a provider that is missing or of another source, has no value and is
// reported as unresolved, as OpenClaw fails its resolution.
func (d *decoder) checkSecretRefs(c *Config) {
	names := make([]string, 0, len(c.Secrets.Providers))
	for name := range c.Secrets.Providers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := c.Secrets.Providers[name]
		path := JoinPath("secrets.providers", name)
		if !secretProviderRE().MatchString(name) {
			n, at := d.where(path)
			d.errorAtPath(n, at, "provider alias %q must be lower case letters, digits, _ or -", name)
		}
		if p.Source == "" {
			n, at := d.where(path)
			d.errorAtPath(n, at, "source is required: env, file, exec or store")
		}
		if p.Source == "store" {
			n, at := d.where(path+".source", path)
			d.warnAtPath(n, at, "source \"store\" is not in effect here: the shared secret store is not implemented")
		}
	}
	c.EachSecret(func(path string, s *SecretInput) {
		if s.Ref == nil || s.Ref.Source == "store" {
			return
		}
		p, problem := c.Secrets.SecretProviderFor(*s.Ref)
		if problem == "" && s.Ref.Source == "env" && p.Allowlist != nil && !slices.Contains(p.Allowlist, s.Ref.ID) {
			problem = fmt.Sprintf("environment variable %q is not in secrets.providers.%s.allowlist", s.Ref.ID, s.Ref.Provider)
		}
		if problem == "" {
			return
		}
		d.refuseSecret(path, s, problem)
	})
}

// refuseSecret leaves a secret without a value for the reason given and
// reports it with the unresolved ones.
func (d *decoder) refuseSecret(path string, s *SecretInput, problem string) {
	*s = SecretInput{Ref: s.Ref, Problem: problem}
	n, _ := d.where(path)
	d.warnAtPath(n, path, "%s; the secret is unavailable", problem)
	is := Issue{Path: path, Message: problem + "; the secret is unavailable", Severity: SeverityWarning}
	if n != nil && n.file != nil {
		is.File = n.file.name
		if off := n.pos(false); off >= 0 {
			is.Line, is.Column = n.file.position(off)
		}
	}
	d.unresolved = append(d.unresolved, is)
}
