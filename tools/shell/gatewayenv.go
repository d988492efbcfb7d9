package shell

import "context"

type gatewayEnvKey struct{}

// WithGatewayEnv adds variables the gateway itself sets for a command it
// runs through exec (a skill script's SKILL_NAME and SKILL_DIR). They are
// not the model's env argument: the exec policy does not judge them, since
// no caller chose them, and a model calling exec directly cannot set them
// this way.
func WithGatewayEnv(ctx context.Context, env []string) context.Context {
	return context.WithValue(ctx, gatewayEnvKey{}, env)
}

func gatewayEnv(ctx context.Context) []string {
	env, _ := ctx.Value(gatewayEnvKey{}).([]string)
	return env
}
