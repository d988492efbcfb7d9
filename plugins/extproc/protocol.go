package extproc

import "encoding/json"

// ProtocolVersion is the version sent in initialize.
const ProtocolVersion = 1

// Method names of the protocol; see the package doc.
const (
	MethodInitialize   = "initialize"
	MethodToolsList    = "tools/list"
	MethodToolsCall    = "tools/call"
	MethodBeforeTool   = "hooks/before_tool"
	MethodAfterTool    = "hooks/after_tool"
	NotifyToolsChanged = "tools/changed"
)

// Actions a before_tool hook answers with.
const (
	ActionAllow   = "allow"
	ActionBlock   = "block"
	ActionRewrite = "rewrite"
)

// InitializeParams is what initialize sends.
type InitializeParams struct {
	ProtocolVersion int             `json:"protocolVersion"`
	PluginID        string          `json:"pluginId"`
	Config          json.RawMessage `json:"config"`
}

// InitializeResult is what a plugin registers.
type InitializeResult struct {
	Tools []ToolDef `json:"tools"`
	Hooks []HookDef `json:"hooks"`
}

// ToolDef is one tool a plugin offers.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// ReadOnly says the tool changes nothing; any other tool is dangerous,
	// so a call for anyone but the owner waits for a person's approval.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// HookDef asks for a hook: On is before_tool or after_tool; Tool is a
// registry tool name or glob ("" = "*").
type HookDef struct {
	On   string `json:"on"`
	Tool string `json:"tool,omitempty"`
}

// ToolsListResult answers tools/list.
type ToolsListResult struct {
	Tools []ToolDef `json:"tools"`
}

// CallParams is what tools/call sends.
type CallParams struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	Who  CallWho         `json:"who"`
}

// CallWho says who calls; only what a plugin needs to scope its work.
type CallWho struct {
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	// SenderIsOwner is true when the call acts for the gateway's owner,
	// as the gateway decided it (never from the model): a plugin can keep
	// its privileged tools to the owner.
	SenderIsOwner bool `json:"senderIsOwner,omitempty"`
}

// CallResult answers tools/call.
type CallResult struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError,omitempty"`
}

// BeforeToolParams is what hooks/before_tool sends.
type BeforeToolParams struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// BeforeToolResult answers hooks/before_tool.
type BeforeToolResult struct {
	Action  string          `json:"action"`
	Args    json.RawMessage `json:"args,omitempty"`
	Message string          `json:"message,omitempty"`
}

// AfterToolParams is what hooks/after_tool sends.
type AfterToolParams struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	Text    string          `json:"text"`
	IsError bool            `json:"isError"`
}

// AfterToolResult answers hooks/after_tool; a nil Text keeps the result.
type AfterToolResult struct {
	Text *string `json:"text,omitempty"`
}
