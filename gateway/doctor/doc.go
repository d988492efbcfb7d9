// Package doctor inspects a local install the way `openclaw doctor` and
// `openclaw security audit` do: the config file and its legacy keys, the
// modes of the state directory and its files, the state lock, the SQLite
// store's integrity, the exec approvals file, free disk space, the model
// providers' and the running gateway's answers; and it applies the few
// repairs that are safe to make without asking (legacy key migrations with
// a backup, tightening file modes, open group policies to allowlists).
//
// Both commands live in one package because they inspect the same install
// (Install: paths, the config snapshot and its text) and share the file
// mode inspection and its repair; the doctor also reports the audit's
// critical findings, as OpenClaw's doctor does.
//
// Nothing here prints a secret: details name config paths, never values,
// and URLs are shown without user info or query. The running gateway is
// reached through the small Gateway interface the CLI implements, so this
// package does not depend on the CLI.
package doctor
