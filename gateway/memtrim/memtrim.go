// Package memtrim hands the pages of the gateway's own executable back to
// the kernel once start-up has settled.
//
// A Go binary's text and read-only data are mapped from the file. Start-up
// touches much of them once (package init, config tables, migrations),
// and on kernels that map large page-cache folios per fault, a single
// touch can make megabytes resident. Those pages are never written, so
// dropping them from the process is free: the file stays in the page
// cache and a later access maps the page again. An idle gateway then
// shows in RSS what it actually uses.
package memtrim
