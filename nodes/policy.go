package nodes

import (
	"slices"
	"strings"
)

// Policy is the gateway's command policy for nodes
// (gateway.nodes.commands). The zero Policy allows the platform defaults.
type Policy struct {
	// Allow adds commands to the platform defaults. An exact name allows
	// that command, dangerous ones included; "prefix.*" or "*" allows a
	// family but never a dangerous command.
	Allow []string
	// Deny always wins, over Allow and the defaults. Same patterns.
	Deny []string
}

// Families of commands, as the node platforms declare them.
var (
	systemCommands = []string{
		"system.run", "system.run.prepare", "system.which", "system.notify",
		"system.execApprovals.get", "system.execApprovals.set",
	}
	canvasCommands   = []string{"canvas.present", "canvas.hide", "canvas.navigate", "canvas.eval", "canvas.snapshot", "canvas.a2ui.push", "canvas.a2ui.pushJSONL", "canvas.a2ui.reset"}
	deviceCommands   = []string{"device.info", "device.status"}
	locationCommands = []string{"location.get"}
	mobileReads      = []string{
		"camera.list", "screen.snapshot", "contacts.search", "calendar.events", "reminders.list",
		"photos.latest", "motion.activity", "motion.pedometer", "notifications.list",
	}
)

// platformDefaults is what each platform may invoke without any allow
// entry. Headless hosts (linux, windows) get the system commands; the
// desktop and mobile apps add their safe surfaces. Unknown platforms get
// a conservative list without system.run or system.which.
var platformDefaults = map[string][]string{
	"linux":   systemCommands,
	"windows": systemCommands,
	"macos":   concat(systemCommands, canvasCommands, deviceCommands, locationCommands, []string{"camera.list", "screen.snapshot"}),
	"ios":     concat([]string{"system.notify"}, canvasCommands, deviceCommands, locationCommands, mobileReads),
	"android": concat([]string{"system.notify"}, canvasCommands, deviceCommands, locationCommands, mobileReads),
	"unknown": concat([]string{"system.notify"}, canvasCommands, locationCommands, []string{"camera.list"}),
}

// dangerousCommands capture or send data on the user's behalf; they are
// invocable only when gateway.nodes.commands.allow names them exactly.
var dangerousCommands = []string{
	"camera.snap", "camera.clip", "camera.ptz.control", "desktop.stream", "screen.record",
	"contacts.add", "calendar.add", "reminders.add", "health.summary", "sms.send", "sms.search",
}

// IsDangerous reports whether a command needs an explicit allow entry.
func IsDangerous(command string) bool { return slices.Contains(dangerousCommands, command) }

// privateCommand reports commands that never reach operators (the node
// host's worker protocol).
func privateCommand(command string) bool { return strings.HasPrefix(command, "worker.") }

// PlatformClass maps a client platform ("linux", "macOS 15.1", "darwin",
// "iPadOS", ...) to a key of the default lists.
func PlatformClass(platform string) string {
	p := strings.ToLower(strings.TrimSpace(platform))
	switch {
	case strings.HasPrefix(p, "linux"):
		return "linux"
	case strings.HasPrefix(p, "win"):
		return "windows"
	case strings.HasPrefix(p, "mac"), strings.HasPrefix(p, "darwin"), strings.HasPrefix(p, "osx"):
		return "macos"
	case strings.HasPrefix(p, "ios"), strings.HasPrefix(p, "ipados"), strings.HasPrefix(p, "iphone"), strings.HasPrefix(p, "ipad"):
		return "ios"
	case strings.HasPrefix(p, "android"):
		return "android"
	}
	return "unknown"
}

// Decision says whether a command may be invoked and, if not, why.
type Decision struct {
	Allowed bool
	// Reason is set when refused: "not-declared", "denied", "private",
	// "dangerous" or "not-allowlisted".
	Reason string
}

// Decide applies the policy to one command of a node on platform that
// declared the commands in declared.
func (p Policy) Decide(platform, command string, declared []string) Decision {
	switch {
	case !slices.Contains(declared, command):
		return Decision{Reason: "not-declared"}
	case privateCommand(command):
		return Decision{Reason: "private"}
	case matchAny(p.Deny, command, true):
		return Decision{Reason: "denied"}
	case IsDangerous(command):
		if slices.Contains(p.Allow, command) {
			return Decision{Allowed: true}
		}
		return Decision{Reason: "dangerous"}
	case slices.Contains(platformDefaults[PlatformClass(platform)], command), matchAny(p.Allow, command, false):
		return Decision{Allowed: true}
	}
	return Decision{Reason: "not-allowlisted"}
}

// Effective is the invocable subset of declared, in declared order.
func (p Policy) Effective(platform string, declared []string) []string {
	out := []string{}
	for _, c := range declared {
		if p.Decide(platform, c, declared).Allowed {
			out = append(out, c)
		}
	}
	return out
}

// matchAny reports whether a pattern matches command: an exact name,
// "prefix.*" (the family under prefix) or "*". Wildcards cover dangerous
// commands only when forDeny is set.
func matchAny(patterns []string, command string, forDeny bool) bool {
	for _, pat := range patterns {
		pat = strings.TrimSpace(pat)
		switch {
		case pat == command:
			return true
		case !forDeny && IsDangerous(command):
			continue
		case pat == "*":
			return true
		case strings.HasSuffix(pat, ".*") && strings.HasPrefix(command, strings.TrimSuffix(pat, "*")):
			return true
		}
	}
	return false
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
