// Package fs holds the workspace file tools: read, write, edit and
// apply_patch (policy group "group:fs").
//
// Every path a model names is taken relative to the calling agent's
// workspace and opened through an [os.Root] on that directory, so "..",
// absolute paths and symlinks that lead outside are refused by the kernel
// walk itself, including when a parent directory is swapped for a symlink
// between a check and a write. Absolute paths are accepted only when they
// lie lexically inside the workspace; they are turned into relative ones
// before they reach the root.
//
// A hard link is no link to follow but the other file itself, so the root
// cannot see it: every tool that reads a workspace file for the model
// opens it with OpenRead (or ReadFile, or the Workspace methods), which
// refuse a regular file with more than one hard link (see CheckLinks).
//
// A workspace the gateway cannot open, an ssh sandbox's on its remote
// host, is reached through Config.Remote instead: the same lexical checks
// here, then whole-file operations that keep the path inside on the
// remote side, where its symlinks are (see Remote). read, write, edit
// and apply_patch work there; a remote file of more than one hard link
// is refused the same way.
//
// Writes are atomic: the new content goes to a temporary file beside the
// target (mode 0600, or the mode of the file it replaces) which is then
// renamed over it; directories are created 0700. apply_patch validates
// every hunk against the current contents before it writes anything, and
// restores the original contents if a write fails halfway.
//
// The tools keep no state between calls and may be called concurrently;
// two concurrent writes of one file leave one of the two contents.
package fs
