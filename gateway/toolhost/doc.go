// Package toolhost is the gateway's tool wing: it builds the tool
// registry and runner from the config, polices calls through the tool
// policy chain and the Tool Guard, keeps the approvals and the exec
// approvals file, and serves the tools.*, approval and audit methods, the
// /api/v1/tools routes, the download links of published files and the
// canvas host. It is built from Options (the live config accessor and the
// small interfaces below) and never reaches into the gateway root.
package toolhost
