// Package openclaw holds what the binary carries of this repository
// itself: the product's documentation (the README, docs/ and the example
// config), which agents read with MateClawDocTool to answer questions
// about the gateway from its own text rather than from memory.
package openclaw

import "embed"

// Docs is the product's documentation, at the paths the repository has.
//
//go:embed README.md docs/*.md openclaw.json.example
var Docs embed.FS
