// Package sandbox runs a sandboxed agent's commands away from the gateway
// host: OpenClaw's agents.*.sandbox. The gateway itself stays on the host;
// what moves is exec and the file tools (through Box.Workspace, or
// RemoteFiles for an ssh box).
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
//     (OpenClaw's remote-canonical model). The file tools reach it through
//     RemoteFiles: one ssh command per operation, whose script resolves
//     the path on the remote host (folders with cd -P, a final symlink
//     with realpath) and refuses it unless it stays under the workspace's
//     own resolved path. workspaceAccess ro refuses the file tools'
//     changes; exec there can still write, since the remote host, not
//     this gateway, is the boundary.
//   - BackendDocker and BackendPodman run the box as a container through
//     the docker or podman CLI, with the workspace bind-mounted; the image
//     must already be present (nothing is pulled). Each container is
//     named, and Spawn.Cleanup removes it once the run ends, since a
//     killed CLI leaves its container running. docker.* sets its
//     isolation and limits (containerFlags); setupCommand runs once per
//     scope and configuration, and because runs are throwaway containers
//     its result is committed as a local image the later runs start from.
//
// docker.binds (checkBinds) are checked when the box is resolved, so a
// refused bind refuses every call with the config key named: system
// folders, runtime sockets, credential folders and the gateway's state
// folder are never mounted, nor a folder holding one of them, also when a
// symlinked parent leads there; other sources must lie in a workspace
// unless dangerouslyAllowExternalBindSources. The local backend mounts
// binds too; the ssh backend refuses them. docker.env is set in every
// backend.
//
// A killed ssh client does not stop its remote command (no terminal, so
// no hangup): each run records its remote session id, and Spawn.Cleanup
// kills that session.
//
// Known limits: a command running in an ssh box at the moment a file tool
// checks a path can swap a folder for a symlink before the file is
// opened (it could read that file itself anyway); the workspace tools
// other than read, write, edit and apply_patch do not reach an ssh
// workspace; docker.ulimits and OpenClaw's sandbox browser container
// (sandbox.browser.*) are not implemented.
//
// BrowserCommand puts a sandboxed caller's Chromium inside its local box
// (the browser tool's Config.Sandbox), so that file: URLs and uploads see
// the box, not the host; the box shares the host's network there, since
// the gateway drives the browser over its loopback DevTools port and the
// browser reaches the network only through the gateway's guard proxy.
// Downloads of a sandboxed browser stay refused. The ssh and container
// backends cannot hold a browser and refuse it.
// The container tests need a running daemon and build their own image
// from the host's files, since no registry is assumed reachable.
//
// Resolve decides whether a caller is sandboxed (mode off, non-main or
// all; the main session is agent:<id>:main) and builds its Box. Manager
// is safe for concurrent use.
package sandbox
