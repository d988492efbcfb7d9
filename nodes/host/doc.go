// Package host is the OpenClaw node host: a headless machine that connects
// to a gateway with role "node" and runs the commands the gateway forwards
// to it (node.invoke.request events), answering each with a
// node.invoke.result request. `openclaw node run` wraps it.
//
// # Lifecycle
//
// New loads (or creates) the node's state in Config.StateDir: its Ed25519
// device identity (device.json, 0600, the gateway client's format), its
// node id and the device token a gateway issued (node.json, 0600), and its
// own exec approvals file (exec-approvals.json, the shape of
// tools/execapprovals). Run then connects and keeps the node connected
// until its context ends:
//
//   - an unpaired device gets NOT_PAIRED/PAIRING_REQUIRED; Run prints the
//     request id and how to approve it, and retries until an operator has;
//   - on hello-ok a device token the gateway issued is stored and used on
//     later connects that carry no shared secret;
//   - a dropped connection is redialled with capped exponential backoff
//     and jitter;
//   - a refusal that retrying cannot fix (wrong or missing shared secret, a
//     revoked or rotated device token, a broken device signature, a
//     protocol mismatch) ends Run with an error wrapping ErrAuthRefused, so
//     a supervisor does not loop on it.
//
// # Commands
//
// Served on this host: system.which, system.run.prepare, system.run,
// system.execApprovals.get|set, fs.listDir (the subdirectories of an
// absolute directory, the shape of the protocol's FsListDirResult), and
// system.notify when notify-send is on the PATH. terminal.upload is not
// served. Camera, screen and location commands are never declared here
// and answer UNAVAILABLE "unsupported on this host"; anything else answers
// UNAVAILABLE "command not supported".
//
// system.run executes an argv (no shell of its own) under the node's exec
// approvals: the argv and the requested environment are analysed by
// policy/execpolicy and decided with the approvals file's policy for the
// run's agent. A variable outside the safe list (TERM, LANG, LC_*, TZ, …)
// misses like an unlisted program, so GIT_CONFIG_*, GIT_SSH_COMMAND,
// PAGER or HOME cannot steer an allowlisted git unasked; PATH, LD_*,
// DYLD_*, BASH_ENV and ENV are refused with INVALID_REQUEST. deny refuses with
// SYSTEM_RUN_DENIED; allow runs; ask runs only a command that a
// system.run.prepare plan of this node covers exactly (argv, cwd, env,
// agent and session) and that the gateway forwards as approved. Output is
// capped at MaxOutputBytes over stdout and stderr together, the command
// runs in its own process group, and a timeout kills the whole group.
//
// After hello the node publishes node.host.stats every StatsInterval
// through node.event, until the gateway answers "unknown method".
//
// # Concurrency
//
// A Host serves one connection at a time; invocations on it run
// concurrently, at most MaxConcurrentInvokes at once. Run must not be
// called twice at the same time. When Run returns, every goroutine it
// started has ended.
package host
