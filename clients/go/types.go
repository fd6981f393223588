// types.go owns the typed shapes of host protocol v1: server config and
// status, tool entries, call results and initialize; JSON tags follow
// proto/schema/*.json. Unknown fields from a newer sidecar are ignored.

package client

import (
	"bytes"
	"encoding/json"
	"time"
)

// ToolFormat selects the shape of tool definitions and call outputs.
type ToolFormat string

// Tool formats (PROTOCOL.md §9.3).
const (
	FormatOpenAI          ToolFormat = "openai"
	FormatOpenAIResponses ToolFormat = "openai-responses"
	FormatAnthropic       ToolFormat = "anthropic"
	FormatMCP             ToolFormat = "mcp"
)

// ServerState is a server's lifecycle state (PROTOCOL.md §8.2).
type ServerState string

// Server states.
const (
	StateStarting  ServerState = "starting"
	StateReady     ServerState = "ready"
	StateUnhealthy ServerState = "unhealthy"
	StateError     ServerState = "error"
	StateStopped   ServerState = "stopped"
)

// ServerConfig is the config of servers/add (schema server-config.json).
// Zero values are omitted, so the sidecar applies its defaults.
type ServerConfig struct {
	Command               string            `json:"command"`
	Args                  []string          `json:"args,omitempty"`
	Env                   map[string]string `json:"env,omitempty"`
	Cwd                   string            `json:"cwd,omitempty"`
	InheritEnv            []string          `json:"inheritEnv,omitempty"`
	StartupTimeoutSeconds float64           `json:"startupTimeoutSeconds,omitempty"`
	ToolTimeoutSeconds    float64           `json:"toolTimeoutSeconds,omitempty"`
	MaxMessageBytes       int64             `json:"maxMessageBytes,omitempty"`
	MaxResultBytes        int64             `json:"maxResultBytes,omitempty"`
	Transport             string            `json:"transport,omitempty"`

	// Extra fields merged into the config object as given (they override
	// the fields above): for config fields newer than this client. The
	// sidecar rejects unknown fields with CodeConfigInvalid.
	Extra map[string]any `json:"-"`
}

// MarshalJSON writes the config object, with Extra merged in.
func (c ServerConfig) MarshalJSON() ([]byte, error) {
	type plain ServerConfig
	b, err := json.Marshal(plain(c))
	if err != nil || len(c.Extra) == 0 {
		return b, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range c.Extra {
		m[k] = v
	}
	return json.Marshal(m)
}

// ServerInfo is the serverInfo an MCP server reported.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Title   string `json:"title,omitempty"`
}

// ExitStatus is how a process ended: an exit code or a signal (one is nil).
type ExitStatus struct {
	Code   *int `json:"code"`
	Signal *int `json:"signal"`
}

// ServerStatus is a server's status object (schema server-status.json).
type ServerStatus struct {
	Name            string      `json:"name"`
	State           ServerState `json:"state"`
	Generation      int64       `json:"generation"`
	Command         string      `json:"command"`
	PID             int         `json:"pid,omitempty"` // 0 when no process of this generation runs
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	ServerInfo      *ServerInfo `json:"serverInfo,omitempty"`
	Instructions    string      `json:"instructions,omitempty"`
	ToolsCount      int         `json:"toolsCount"`
	StartedAt       time.Time   `json:"startedAt,omitzero"`
	LastExit        *ExitStatus `json:"lastExit,omitempty"`
	LastError       *Error      `json:"lastError,omitempty"` // why it is error/unhealthy
	StderrTail      string      `json:"stderrTail"`
}

// Tool is one tool entry of tools/list (schema tool-entry.json).
type Tool struct {
	Name        string         `json:"name"`   // exposed name, used with CallTool
	Server      string         `json:"server"` // server name
	Tool        string         `json:"tool"`   // the tool's name on its server
	Title       string         `json:"title,omitempty"`
	Annotations map[string]any `json:"annotations,omitempty"`
	ReadOnly    bool           `json:"readOnly"`
	// Definition is the tool in the requested format, byte for byte as the
	// sidecar sent it (stable, so prompt caches keyed on it keep hitting).
	Definition json.RawMessage `json:"definition"`
}

// ToolList is the tools/list result.
type ToolList struct {
	Tools       []Tool `json:"tools"`
	Fingerprint string `json:"fingerprint"` // "sha256:<hex>" of the definitions
}

// Definitions returns every tool's Definition, in listing order: the array
// to hand to the model provider as its tool list.
func (l *ToolList) Definitions() []json.RawMessage {
	defs := make([]json.RawMessage, len(l.Tools))
	for i, t := range l.Tools {
		defs[i] = t.Definition
	}
	return defs
}

// ContentBlock is one MCP content block of a call result. Type, Text and
// MimeType are decoded for convenience; Raw keeps the whole block as sent
// and is what MarshalJSON writes.
type ContentBlock struct {
	Type     string
	Text     string
	MimeType string
	Raw      json.RawMessage
}

// UnmarshalJSON decodes a block, keeping its raw bytes.
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	var head struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MimeType string `json:"mimeType"`
	}
	// A block that is not an object (or has odd field types) is kept raw.
	_ = json.Unmarshal(data, &head)
	*b = ContentBlock{Type: head.Type, Text: head.Text, MimeType: head.MimeType, Raw: append(json.RawMessage(nil), data...)}
	return nil
}

// MarshalJSON writes the raw block.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	if len(b.Raw) == 0 {
		return json.Marshal(map[string]string{"type": b.Type, "text": b.Text})
	}
	return b.Raw, nil
}

// CallResult is the tools/call result (schema tools-call.result.json). A
// tool that reported failure is a successful call with IsError true.
type CallResult struct {
	IsError bool           `json:"isError"`
	Content []ContentBlock `json:"content"`
	// StructuredContent is absent (nil) unless the server sent a non-null one.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// Text joins the text of every text block with "\n".
	Text string `json:"text"`
	// Output is the payload in the session tool format: a JSON string for
	// openai/openai-responses, an array of blocks for anthropic, the raw
	// CallToolResult object for mcp. See OutputString.
	Output     json.RawMessage `json:"output"`
	Server     string          `json:"server"`
	Tool       string          `json:"tool"` // the tool's name on its server
	DurationMs float64         `json:"durationMs"`
}

// OutputString returns Output decoded when it is a JSON string (openai
// formats), else Output's raw JSON text.
func (r *CallResult) OutputString() string {
	var s string
	if bytes.HasPrefix(bytes.TrimSpace(r.Output), []byte(`"`)) && json.Unmarshal(r.Output, &s) == nil {
		return s
	}
	return string(r.Output)
}

// ClientInfo identifies the host in initialize (informational).
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// InitializeResult is the initialize result.
type InitializeResult struct {
	ProtocolVersion int        `json:"protocolVersion"`
	ServerInfo      ServerInfo `json:"serverInfo"`
	Capabilities    struct {
		ToolFormats  []ToolFormat `json:"toolFormats"`
		Transports   []string     `json:"transports"`
		Cancellation bool         `json:"cancellation"`
	} `json:"capabilities"`
}

// ToolsChanged is the params of notifications/tools/changed.
type ToolsChanged struct {
	Fingerprint string   `json:"fingerprint"`
	Added       []string `json:"added"`
	Removed     []string `json:"removed"`
}

// ServersChanged is the params of notifications/servers/changed.
type ServersChanged struct {
	Status ServerStatus `json:"status"`
}

// AddServerOptions are the optional params of servers/add.
type AddServerOptions struct {
	// NoWait answers at once with state "starting"; the outcome arrives as
	// a notifications/servers/changed. The default waits for ready/error.
	NoWait bool
}

// ListToolsOptions are the optional params of tools/list.
type ListToolsOptions struct {
	Format  ToolFormat // default: the session ToolFormat
	Servers []string   // default: every server
}

// CallOptions are the optional params of tools/call.
type CallOptions struct {
	// Timeout for the server's answer (sent as timeoutMs, rounded up to
	// whole milliseconds); 0 means the server's toolTimeoutSeconds.
	// Failing it gives CodeToolTimeout. A context deadline, by contrast,
	// cancels the call (CodeCancelled).
	Timeout time.Duration
}
