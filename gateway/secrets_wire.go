package gateway

import (
	"context"
	"os"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/secrets"
)

// resolveSecrets reads the file secrets and runs the exec secret providers
// of a config about to go live (at start and at each reload, never for a
// config only checked or dry-run: a write may name a program, and only a
// config that is applied may run it). What fails is left unresolved, so
// checkSecrets refuses it as it refuses an unset variable.
func (s *System) resolveSecrets(ctx context.Context, snap *config.Snapshot) {
	if ctx == nil {
		ctx = context.Background()
	}
	secrets.Resolve(ctx, snap, secrets.Options{Getenv: s.opts.Getenv, Log: s.log})
}

// applyEnvVars sets the env.vars the process environment lacks, so that
// the built-in providers' keys and the programs the gateway runs see them
// as OpenClaw's do. A variable set here follows later reloads (changed or
// removed with the config); one the environment had is never touched.
func (s *System) applyEnvVars(snap *config.Snapshot) {
	if s.envFromConfig == nil {
		s.envFromConfig = map[string]bool{}
	}
	applyEnvVars(snap.Config.Env.Vars, s.envFromConfig, os.LookupEnv, os.Setenv, os.Unsetenv)
}

func applyEnvVars(vars map[string]string, ours map[string]bool, lookup func(string) (string, bool), set func(string, string) error, unset func(string) error) {
	for k := range ours {
		if _, still := vars[k]; !still {
			unset(k)
			delete(ours, k)
		}
	}
	for k, v := range vars {
		if cur, had := lookup(k); had && cur != "" && !ours[k] {
			continue
		}
		if set(k, v) == nil {
			ours[k] = true
		}
	}
}
