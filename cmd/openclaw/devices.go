package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

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
		usage := "openclaw devices " + verb + " REQUEST_ID [gateway flags]"
		minArgs := 1
		if verb == "approve" {
			usage = "openclaw devices approve [REQUEST_ID] [--latest] [gateway flags]"
			minArgs = 0
		}
		fs := newFlagSet(a, usage)
		g := fs.gatewayFlags()
		var latest *bool
		if verb == "approve" {
			latest = fs.Bool("latest", false, "show the newest pending request and the exact command that approves it; approves nothing")
		}
		pos, err := fs.parse(args, minArgs, 1)
		if err != nil {
			return err
		}
		if verb == "approve" && (len(pos) == 0 || *latest) {
			return previewLatestDevice(ctx, a, g)
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

// pendingDevice is a pending device pairing request as device.pair.list
// has it; raw is passed on unchanged as the preview's "selected".
type pendingDevice struct {
	RequestID   string   `json:"requestId"`
	DeviceID    string   `json:"deviceId"`
	DisplayName string   `json:"displayName"`
	ClientID    string   `json:"clientId"`
	Platform    string   `json:"platform"`
	Role        string   `json:"role"`
	Roles       []string `json:"roles"`
	Scopes      []string `json:"scopes"`
	RemoteIP    string   `json:"remoteIp"`
	Ts          int64    `json:"ts"`
}

type pairedDevice struct {
	DeviceID string   `json:"deviceId"`
	Roles    []string `json:"roles"`
	Scopes   []string `json:"scopes"`
}

// deviceAccess is a role set and scope set, requested or approved.
type deviceAccess struct {
	Roles  []string `json:"roles"`
	Scopes []string `json:"scopes"`
}

// previewLatestDevice serves `devices approve` without a request id or
// with --latest. As the real CLI it approves nothing: it shows the newest
// pending request, what it asks for against what the device already has,
// and the exact command that approves that one request, then exits 1. So
// an approval always names a request the operator has seen; a device
// that files a newer request in between is never approved by accident.
func previewLatestDevice(ctx context.Context, a *app, g *gatewayFlags) error {
	var raw json.RawMessage
	if err := a.callOnce(ctx, g, "device.pair.list", pairingScope, map[string]any{}, &raw, false); err != nil {
		return err
	}
	var l struct {
		Pending []json.RawMessage `json:"pending"`
		Paired  []pairedDevice    `json:"paired"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("decode device list: %w", err)
	}
	var sel pendingDevice
	var selRaw json.RawMessage
	for _, r := range l.Pending {
		var p pendingDevice
		if json.Unmarshal(r, &p) != nil || strings.TrimSpace(p.RequestID) == "" {
			continue
		}
		if selRaw == nil || p.Ts > sel.Ts {
			sel, selRaw = p, r
		}
	}
	if selRaw == nil {
		return errors.New("no pending device pairing requests to approve")
	}
	requested := deviceAccess{Roles: sel.Roles, Scopes: emptyIfNil(sel.Scopes)}
	if len(requested.Roles) == 0 {
		requested.Roles = roleList(sel.Role)
	}
	var approved *deviceAccess
	for _, d := range l.Paired {
		if d.DeviceID == sel.DeviceID {
			approved = &deviceAccess{Roles: emptyIfNil(d.Roles), Scopes: emptyIfNil(d.Scopes)}
		}
	}
	kind := approvalKind(requested, approved)
	command := approveCommand(a, g, sel.RequestID)
	var reminder string
	switch {
	case g.token != "" && g.password != "":
		reminder = "Pass --token and --password again when approving (they are not printed)."
	case g.token != "":
		reminder = "Pass --token again when approving (it is not printed)."
	case g.password != "":
		reminder = "Pass --password again when approving (it is not printed)."
	}
	why := errors.New("devices approve: preview only; nothing was approved")
	if g.json {
		if err := writeJSON(a.stdout, map[string]any{
			"selected":          selRaw,
			"approvalState":     map[string]any{"kind": kind, "requested": requested, "approved": approved},
			"approveCommand":    command,
			"requiresAuthFlags": map[string]bool{"token": g.token != "", "password": g.password != ""},
			"pendingCount":      len(l.Pending),
		}); err != nil {
			return err
		}
		return reported(why)
	}
	w := a.stdout
	// Everything shown comes from the requesting device: control
	// characters could forge lines of this preview.
	fmt.Fprintf(w, "Selected pending device request %s\n", printable(sel.RequestID))
	name := cmp.Or(sel.DisplayName, sel.ClientID)
	device := printable(sel.DeviceID)
	if label := printable(strings.TrimSpace(name + " " + sel.Platform)); label != "" {
		device += " (" + label + ")"
	}
	fmt.Fprintf(w, "  Device:    %s\n", device)
	fmt.Fprintf(w, "  Requested: %s\n", accessSummary(requested))
	if approved != nil {
		fmt.Fprintf(w, "  Approved:  %s\n", accessSummary(*approved))
	}
	if sel.RemoteIP != "" {
		fmt.Fprintf(w, "  IP:        %s\n", printable(sel.RemoteIP))
	}
	fmt.Fprintf(w, "  Note:      %s\n", approvalNotes[kind])
	if n := len(l.Pending) - 1; n > 0 {
		fmt.Fprintf(w, "  Also pending: %s (openclaw devices list shows them)\n", plural(n, "other request"))
	}
	fmt.Fprintf(a.stderr, "Approve this exact request with: %s\n", command)
	if reminder != "" {
		fmt.Fprintln(a.stderr, reminder)
	}
	return reported(why)
}

var approvalNotes = map[string]string{
	"new-pairing":   "First-time device pairing request.",
	"role-upgrade":  "Already paired. It asks for a role it does not have; it cannot reconnect as that role until you approve.",
	"scope-upgrade": "Already paired. It asks for scopes beyond its approval; it cannot reconnect with them until you approve.",
	"re-approval":   "Already paired. Its approval-bound details changed, so it filed a fresh request.",
}

// approvalKind compares what a request asks for with what its device was
// approved for.
func approvalKind(req deviceAccess, approved *deviceAccess) string {
	switch {
	case approved == nil:
		return "new-pairing"
	case !subset(req.Roles, approved.Roles):
		return "role-upgrade"
	case !subset(req.Scopes, approved.Scopes):
		return "scope-upgrade"
	default:
		return "re-approval"
	}
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func accessSummary(d deviceAccess) string {
	return fmt.Sprintf("roles %s; scopes %s", orDash(printable(strings.Join(d.Roles, ", "))), orDash(printable(strings.Join(d.Scopes, ", "))))
}

// approveCommand is the command that approves request id with the same
// profile, explicit URL, timeout and output mode; secrets are left out.
func approveCommand(a *app, g *gatewayFlags, id string) string {
	parts := []string{"openclaw"}
	if p := os.Getenv(envProfile); p != "" {
		parts = append(parts, "--profile", p)
	}
	if g.dev {
		parts = append(parts, "--dev")
	}
	parts = append(parts, "devices", "approve", shellWord(id))
	if g.url != "" {
		parts = append(parts, "--url", shellWord(redactURL(g.url)))
	}
	if g.timeoutMs != defaultTimeoutMs {
		parts = append(parts, "--timeout", strconv.Itoa(g.timeoutMs))
	}
	if g.json {
		parts = append(parts, "--json")
	}
	return strings.Join(parts, " ")
}

// shellWord quotes s for a POSIX shell unless it is plainly safe, so a
// request id chosen by a device cannot smuggle a second command into the
// line an operator copies.
func shellWord(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r == ':' || r == '/' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return shellQuote(s)
}

// printable replaces control characters (terminal escapes, newlines) in
// text a remote party chose.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return '?'
		}
		return r
	}, s)
}

func roleList(s string) []string {
	if s == "" {
		return []string{}
	}
	return []string{s}
}

func emptyIfNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
