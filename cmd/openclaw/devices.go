package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// devicesSubcommands are `openclaw devices ...`.
var devicesSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"list":    runDevicesList,
	"approve": runDevicesRequest("approve"),
	"reject":  runDevicesRequest("reject"),
	"remove":  runDevicesRemove,
	"rotate":  runDevicesToken("rotate"),
	"revoke":  runDevicesToken("revoke"),
}

// runDevices serves `openclaw devices list|approve|reject|remove|rotate|revoke`.
func runDevices(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("devices", args, devicesSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "devices " + args[0]
	return sub(ctx, a, rest)
}

// Scopes the devices commands ask for. Listing and rejecting need only
// pairing. Approving can grant any scope, and the gateway refuses to grant
// more than the caller holds; removing a device or rotating or revoking
// its token is, for anyone but that device itself, an admin act.
var (
	pairingScope      = []string{string(protocol.ScopePairing)}
	pairingAdminScope = []string{string(protocol.ScopePairing), string(protocol.ScopeAdmin)}
)

func runDevicesList(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw devices list [gateway flags]")
	g := fs.gatewayFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "device.pair.list", pairingScope, map[string]any{}, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return formatDevices(a.stdout, out)
}

// runDevicesRequest serves approve and reject, which take a pairing
// request id.
func runDevicesRequest(verb string) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		fs := newFlagSet(a, "openclaw devices "+verb+" REQUEST_ID [gateway flags]")
		g := fs.gatewayFlags()
		pos, err := fs.parse(args, 1, 1)
		if err != nil {
			return err
		}
		scopes := pairingScope
		if verb == "approve" {
			scopes = pairingAdminScope
		}
		var out json.RawMessage
		params := map[string]any{"requestId": pos[0]}
		if err := a.callOnce(ctx, g, "device.pair."+verb, scopes, params, &out, false); err != nil {
			return err
		}
		if g.json {
			return writeJSON(a.stdout, out)
		}
		var res struct {
			DeviceID string `json:"deviceId"`
			Device   struct {
				DeviceID string   `json:"deviceId"`
				Role     string   `json:"role"`
				Scopes   []string `json:"scopes"`
			} `json:"device"`
		}
		_ = json.Unmarshal(out, &res)
		device := cmp.Or(res.Device.DeviceID, res.DeviceID, "(unknown device)")
		if verb == "approve" {
			fmt.Fprintf(a.stdout, "Approved %s (request %s)", device, pos[0])
			if res.Device.Role != "" {
				fmt.Fprintf(a.stdout, " as %s %s", res.Device.Role, parens(strings.Join(res.Device.Scopes, ", ")))
			}
			fmt.Fprintln(a.stdout)
			return nil
		}
		fmt.Fprintf(a.stdout, "Rejected %s (request %s)\n", device, pos[0])
		return nil
	}
}

func runDevicesRemove(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw devices remove DEVICE_ID [gateway flags]")
	g := fs.gatewayFlags()
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out json.RawMessage
	params := map[string]any{"deviceId": pos[0]}
	if err := a.callOnce(ctx, g, "device.pair.remove", pairingAdminScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	fmt.Fprintf(a.stdout, "Removed device %s\n", pos[0])
	return nil
}

// runDevicesToken serves rotate and revoke of a device's role token.
func runDevicesToken(verb string) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		usage := "openclaw devices " + verb + " --device ID --role ROLE"
		if verb == "rotate" {
			usage += " [--scope SCOPE]..."
		}
		fs := newFlagSet(a, usage+" [gateway flags]")
		g := fs.gatewayFlags()
		device := fs.String("device", "", "device `id`")
		role := fs.String("role", "", "`role` of the token (operator or node)")
		var scopes stringList
		if verb == "rotate" {
			fs.Var(&scopes, "scope", "`scope` of the new token (repeatable; default: keep the current ones)")
		}
		if _, err := fs.parse(args, 0, 0); err != nil {
			return err
		}
		if *device == "" || *role == "" {
			return usageErrorf("--device and --role are required")
		}
		params := map[string]any{"deviceId": *device, "role": *role}
		if len(scopes) > 0 {
			params["scopes"] = []string(scopes)
		}
		var out json.RawMessage
		if err := a.callOnce(ctx, g, "device.token."+verb, pairingAdminScope, params, &out, false); err != nil {
			return err
		}
		if g.json {
			return writeJSON(a.stdout, out)
		}
		if verb == "revoke" {
			fmt.Fprintf(a.stdout, "Revoked the %s token of device %s\n", *role, *device)
			return nil
		}
		var res struct {
			Scopes        []string `json:"scopes"`
			Token         string   `json:"token"`
			TokenDelivery string   `json:"tokenDelivery"`
		}
		_ = json.Unmarshal(out, &res)
		fmt.Fprintf(a.stdout, "Rotated the %s token of device %s (scopes: %s)\n", *role, *device,
			orDash(strings.Join(res.Scopes, ", ")))
		// The gateway hands the token out only to the device itself
		// ("in-band"); then it is what the user asked for, printed once.
		if res.Token != "" {
			fmt.Fprintf(a.stdout, "New token: %s\n", res.Token)
		} else if res.TokenDelivery != "" {
			fmt.Fprintf(a.stdout, "Token delivery: %s\n", res.TokenDelivery)
		}
		return nil
	}
}
