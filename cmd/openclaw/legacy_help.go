package main

// legacySummaries are the one-line descriptions of the older commands'
// subcommands, for `openclaw <group> --help` and completion. Their flags
// are described by each subcommand's own --help.
var legacySummaries = map[string]string{
	"channels list":   "list the configured chat channels and accounts",
	"channels status": "show each channel account's connection state and last error",
	"channels add":    "add or update a channel account in the config",
	"channels remove": "remove a channel account from the config",
	"channels login":  "link a channel account (WhatsApp QR) on the running gateway",
	"channels logout": "unlink a channel account on the running gateway",

	"config get":      "print the value at a config path",
	"config set":      "set the value at a config path (keeps comments)",
	"config unset":    "remove the value at a config path",
	"config validate": "check the config file against the schema and list every problem",
	"config schema":   "print the config's JSON schema",
	"config file":     "print the config file's path",

	"cron status":  "show the scheduler's state and next wake",
	"cron list":    "list scheduled jobs",
	"cron get":     "show one job as the gateway has it",
	"cron show":    "show one job, by id or name",
	"cron add":     "add a scheduled job",
	"cron edit":    "change a job",
	"cron enable":  "enable a job",
	"cron disable": "disable a job",
	"cron remove":  "delete a job",
	"cron run":     "run a job now",
	"cron runs":    "list a job's past runs",

	"devices list":    "list paired devices and pending pairing requests",
	"devices approve": "approve a device pairing request",
	"devices reject":  "reject a device pairing request",
	"devices remove":  "remove a paired device",
	"devices rotate":  "issue a new token for a device role",
	"devices revoke":  "revoke a device's token",

	"gateway run":    "run the gateway in the foreground (same as `openclaw gateway`)",
	"gateway call":   "call one gateway RPC method with JSON params",
	"gateway health": "fetch the gateway's health snapshot",

	"mcp list":   "list the configured MCP servers",
	"mcp tools":  "list the tools an MCP server offers",
	"mcp add":    "add an MCP server to the config",
	"mcp remove": "remove an MCP server from the config",
	"mcp serve":  "serve the gateway's channels as an MCP server on stdio",

	"message send":   "send a message through a channel",
	"message poll":   "send a poll",
	"message react":  "add or remove a reaction",
	"message edit":   "edit a sent message",
	"message delete": "delete a message",
	"message pin":    "pin a message",
	"message unpin":  "unpin a message",

	"node run": "run this machine as a node host in the foreground",

	"nodes status":   "list connected and paired nodes with their state",
	"nodes list":     "list nodes",
	"nodes describe": "show one node's commands and capabilities",
	"nodes rename":   "rename a node",
	"nodes invoke":   "invoke a command on a node",
	"nodes pending":  "list pending node pairing requests",
	"nodes approve":  "approve a node pairing request",
	"nodes reject":   "reject a node pairing request",
	"nodes canvas":   "present, navigate and snapshot a node's canvas",

	"pairing list":    "list pending DM pairing requests",
	"pairing approve": "approve a DM pairing code",
	"pairing dismiss": "dismiss a DM pairing request",

	"skills list":  "list the skills agents can use",
	"skills info":  "show one skill",
	"skills check": "list skills with what each is missing",

	"system presence":  "list connected clients and nodes",
	"system event":     "queue a system event for the main session",
	"system heartbeat": "show, enable or disable the heartbeat",

	"tools list":    "list the tools an agent's model sees",
	"tools explain": "explain which policy layer allowed or removed each tool",
}

// legacyAliases are subcommands that are other names of a sibling: they
// show once in help, under the sibling.
var legacyAliases = map[string]string{
	"cron create": "add",
	"cron rm":     "remove",
	"cron delete": "remove",
	"mcp rm":      "remove",
}
