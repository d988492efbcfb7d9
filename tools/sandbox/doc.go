// Package sandbox runs a sandboxed agent's commands away from the gateway
// host: OpenClaw's agents.*.sandbox. The gateway itself stays on the host;
// what moves is exec (and, through Box.Workspace, the file tools).
//
// A Box is one sandbox as the config resolves it for one caller: the
// backend, the scope key that says which callers share it, the host
// folder it works in and how much of the agent's workspace it sees
// (workspaceAccess none, ro or rw). Manager.Command turns a shell line
// into the argv that runs it inside the box:
//
//   - BackendLocal, the default on Linux, is bubblewrap (bwrap): no
//     daemon, no image. The box starts from an empty root; the system's
//     program folders (/usr, /bin, /lib, ...) are mounted read-only, a
//     handful of /etc files a shell needs, a private /tmp, /proc and
//     /dev; the workspace at /workspace (rw, or the private one for none)
//     or /agent (ro). Nothing else of the host is visible: not HOME, not
//     the gateway's state folder or its config. The environment is
//     cleared, the network cut unless docker.network says otherwise, and
//     every process dies with the run.
//   - BackendSSH runs on another machine: a workspace per scope under
//     ssh.workspaceRoot, seeded once from the local one, then used there
//     (OpenClaw's remote-canonical model). The remote host is the
//     boundary; workspaceAccess does not make remote paths read-only.
//   - BackendDocker and BackendPodman run the box as a container through
//     the docker or podman CLI, with the workspace bind-mounted; the image
//     must already be present (nothing is pulled). Each container is
//     named, and Spawn.Cleanup removes it once the run ends, since a
//     killed CLI leaves its container running.
//
// A killed ssh client does not stop its remote command (no terminal, so
// no hangup): each run records its remote session id, and Spawn.Cleanup
// kills that session. Known limit: the file tools do not reach an ssh
// workspace.
//
// Resolve decides whether a caller is sandboxed (mode off, non-main or
// all; the main session is agent:<id>:main) and builds its Box. Manager
// is safe for concurrent use.
package sandbox
