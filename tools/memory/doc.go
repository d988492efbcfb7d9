// Package memory holds the agent memory tools (policy group
// "group:memory"): WorkspaceMemoryTool, which reads, writes, edits and
// lists the Markdown files of the calling agent's workspace (MEMORY.md,
// PROFILE.md, daily notes such as memory/2026-11-30.md), and
// memory_search / memory_get, which find and read passages in them.
//
// Only files ending in .md are touched. Every path is taken relative to
// the agent's workspace and opened through an [os.Root] on it, so "..",
// absolute paths outside the workspace and symlinks leading out are
// refused. Writes and edits are atomic (a temporary file renamed over the
// target).
//
// memory_search keeps a full-text index in the gateway's SQLite database
// (tables memory_files, memory_chunks and the FTS5 table memory_fts; see
// [Migrations]). The index is brought up to date on every search: files
// whose size or modification time changed are re-read and re-chunked,
// files that disappeared are dropped. Rows are keyed by agent ID, path
// relative to the workspace, and chunk number. Files are cut into chunks
// of about 1,000 characters at headings and paragraph breaks, and each
// hit reports its file, line range, an FTS5 snippet and a score (higher
// is better). Queries are reduced to their words, each quoted, so FTS5
// operators and stray quotes in a query are searched for as text rather
// than failing.
//
// The tools may be called concurrently; index updates are serialised
// inside the process. Symlinked files and hidden directories are not
// indexed or listed.
package memory
