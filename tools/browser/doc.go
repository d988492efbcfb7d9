// Package browser holds OpenClaw's `browser` agent tool: a headless
// Chromium that the gateway starts and drives over the DevTools protocol
// (with chromedp), one browser per named profile.
//
// The model opens tabs, reads a role snapshot of the active tab in which
// every interactive element has a ref like e12, and acts on those refs
// (click, type, fill, select, hover, drag...). A ref maps to the DOM
// node's backend id, so it survives reflow; it lasts until the tab's next
// snapshot or navigation, and a ref whose node is gone asks the model to
// snapshot again. Screenshots and PDFs are saved in the caller's workspace
// under browser/<date>/ and named to the model as MEDIA:<path> and
// FILE:<path>; downloads land in browser/downloads/; uploads are read
// from the workspace through os.Root.
//
// # Network guard
//
// Every URL the model opens is checked against the netguard.Policy (http
// or https, every resolved address allowed) before the browser sees it.
// Beyond that, the Fetch domain pauses every request of every target of
// the browser (tabs, popups, frames, workers) and fails those whose host
// resolves to a blocked address. A local browser sends every request,
// loopback ones included, through a proxy of the Manager's
// (netguard.Proxy) that resolves each name once, checks the answers and
// dials the checked address, so DNS rebinding between lookups cannot
// reach a blocked address. A remote (cdpUrl) browser has only the
// request guard: it cannot be made to use the proxy.
//
// # Wiring
//
//	m := browser.NewManager(browser.Config{Workspace: ..., StateDir: ..., Policy: ...})
//	defer m.Close()
//	registry.Add(m.Tool())
//
// # Lifecycle and concurrency
//
// No browser runs until a call needs one. Local profiles get a Chromium
// process on 127.0.0.1:<cdpPort> with the user-data dir
// StateDir/browser/<profile>; remote (cdpUrl) profiles are attached to and
// never started, stopped or reset. A Manager and its tool are safe for
// concurrent use; starting a browser holds the Manager's lock, so calls of
// other profiles wait for it (at most 20 s). Close stops every browser and
// may be called on a Manager that never started one.
package browser
