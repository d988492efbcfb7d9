//go:build !unix

package fs

import iofs "io/fs"

// linkCount is not known here: FileInfo carries no link count.
func linkCount(iofs.FileInfo) (uint64, bool) { return 0, false }
