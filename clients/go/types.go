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
	FormatGemini          ToolFormat = "gemini"
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

// Result policies of ServerConfig.ResultPolicy (PROTOCOL.md §7).
const (
	ResultPolicyError    = "error"    // a result over maxResultBytes fails with CodeResultTooLarge
	ResultPolicyTruncate = "truncate" // it is cut to fit; the rest is read with ReadResult
)

// Server sources of ServerStatus.Source (PROTOCOL.md Appendix).
const (
	SourceUser   = "user"   // a config file: LoadServers, --config
	SourceHost   = "host"   // AddServer
	SourcePlugin = "plugin" // a plugin's files
)

// ServerConfig is the config of servers/add (schema server-config.json).
// Zero values are omitted, so the sidecar applies its defaults. A remote
// server sets URL (and maybe Headers, Transport) instead of Command.
type ServerConfig struct {
	Command               string            `json:"command,omitempty"`
	Args                  []string          `json:"args,omitempty"`
	Env                   map[string]string `json:"env,omitempty"`
	Cwd                   string            `json:"cwd,omitempty"`
	InheritEnv            []string          `json:"inheritEnv,omitempty"`
	StartupTimeoutSeconds float64           `json:"startupTimeoutSeconds,omitempty"`
	ToolTimeoutSeconds    float64           `json:"toolTimeoutSeconds,omitempty"`
	MaxMessageBytes       int64             `json:"maxMessageBytes,omitempty"`
	MaxResultBytes        int64             `json:"maxResultBytes,omitempty"`
	ResultPolicy          string            `json:"resultPolicy,omitempty"` // ResultPolicyError (default) or ResultPolicyTruncate
	Restart               string            `json:"restart,omitempty"`      // "on-failure" (default) or "never"
	RestartBackoffMs      int64             `json:"restartBackoffMs,omitempty"`
	KeepaliveSeconds      float64           `json:"keepaliveSeconds,omitempty"`
	IdleTimeoutSeconds    float64           `json:"idleTimeoutSeconds,omitempty"`
	MaxLifetimeSeconds    float64           `json:"maxLifetimeSeconds,omitempty"`
	AutoStart             *bool             `json:"autoStart,omitempty"` // false: lazy (§8.3)
	Transport             string            `json:"transport,omitempty"` // "stdio", "http" or "sse"
	URL                   string            `json:"url,omitempty"`       // a remote server
	// Headers of a remote server: a string, or {"value": v, "secret": true}.
	Headers           map[string]any `json:"headers,omitempty"`
	IncludeTools      []string       `json:"includeTools,omitempty"`
	ExcludeTools      []string       `json:"excludeTools,omitempty"`
	ExpectTools       []string       `json:"expectTools,omitempty"`
	Permissions       []string       `json:"permissions,omitempty"`
	PermissionMetaKey string         `json:"permissionMetaKey,omitempty"`
	SecretEnv         []string       `json:"secretEnv,omitempty"`
	SecretHeaders     []string       `json:"secretHeaders,omitempty"`

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
	Source          string      `json:"source"`            // SourceUser, SourceHost or SourcePlugin
	Transport       string      `json:"transport"`         // "stdio", "http" or "sse"
	URL             string      `json:"url,omitempty"`     // remote servers
	Headers         []string    `json:"headers,omitempty"` // remote servers: header names only
	PID             int         `json:"pid,omitempty"`     // 0 when no process of this generation runs
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	ServerInfo      *ServerInfo `json:"serverInfo,omitempty"`
	Instructions    string      `json:"instructions,omitempty"`
	ToolsCount      int         `json:"toolsCount"`
	StartedAt       time.Time   `json:"startedAt,omitzero"`
	LastExit        *ExitStatus `json:"lastExit,omitempty"`
	LastError       *Error      `json:"lastError,omitempty"` // why it is error/unhealthy
	StderrTail      string      `json:"stderrTail"`
	Restarts        int64       `json:"restarts"` // automatic restarts over the server's life
	Calls           int64       `json:"calls"`    // tools/call requests routed to the server
	Errors          int64       `json:"errors"`   // those answered with an error
	// P50LatencyMs is the median latency of recent successful calls; nil
	// before the first one.
	P50LatencyMs *float64 `json:"p50LatencyMs,omitempty"`
	// NextRestartAt is when a scheduled automatic restart is due (unhealthy).
	NextRestartAt time.Time `json:"nextRestartAt,omitzero"`
}

// Tool is one tool entry of tools/list (schema tool-entry.json).
type Tool struct {
	Name        string         `json:"name"`   // exposed name, used with CallTool
	Server      string         `json:"server"` // server name
	Tool        string         `json:"tool"`   // the tool's name on its server
	Title       string         `json:"title,omitempty"`
	Annotations map[string]any `json:"annotations,omitempty"`
	ReadOnly    bool           `json:"readOnly"`
	Permission  string         `json:"permission,omitempty"` // from _meta[permissionMetaKey]
	// Definition is the tool in the requested format, byte for byte as the
	// sidecar sent it (stable, so prompt caches keyed on it keep hitting).
	Definition json.RawMessage `json:"definition"`
	// ConversionNotes says what the conversion to this format changed ([]
	// when nothing). For logging; not part of the fingerprint.
	ConversionNotes []ConversionNote `json:"conversionNotes"`
}

// ConversionNote is one change made converting a tool's schema (§9.2).
type ConversionNote struct {
	Action string `json:"action"` // dropped, rewritten, inlined, merged, widened, narrowed, cut, strict-fallback
	Path   string `json:"path"`   // JSON Pointer into the converted schema ("" = top level)
	Reason string `json:"reason"`
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
	// Truncated is set when the result was over maxResultBytes and cut to
	// fit (resultPolicy "truncate"); read the rest with ReadResult.
	Truncated *Truncation `json:"truncated,omitempty"`
}

// Truncation describes a cut call result (PROTOCOL.md §10.1). Handle is
// empty when nothing of the text was cut or it was too large to keep.
type Truncation struct {
	OriginalBytes int64  `json:"originalBytes"` // bytes of the server's response line
	Handle        string `json:"handle,omitempty"`
	Offset        int64  `json:"offset,omitempty"`     // byte offset of the cut part in the full text
	Length        int64  `json:"length,omitempty"`     // bytes cut
	TotalBytes    int64  `json:"totalBytes,omitempty"` // bytes of the full text
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
		ToolFormats    []ToolFormat `json:"toolFormats"`
		Strict         bool         `json:"strict"`
		ResultPolicies []string     `json:"resultPolicies"`
		ResultsRead    bool         `json:"resultsRead"`
		Transports     []string     `json:"transports"`
		Cancellation   bool         `json:"cancellation"`
		ConfigDialects []string     `json:"configDialects"`
		Trust          bool         `json:"trust"`
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
	// Trust is the approved launch digest under Options.RequireTrust: the
	// Data["digest"] of the CodeTrustRequired error (see Error.TrustDigest).
	Trust string
}

// ListToolsOptions are the optional params of tools/list.
type ListToolsOptions struct {
	Format  ToolFormat // default: the session ToolFormat
	Servers []string   // default: every server
	// Strict sets OpenAI strict mode for this listing; nil means the
	// session default (Options.Strict).
	Strict *bool
}

// CallOptions are the optional params of tools/call.
type CallOptions struct {
	// Timeout for the server's answer (sent as timeoutMs, rounded up to
	// whole milliseconds); 0 means the server's toolTimeoutSeconds.
	// Failing it gives CodeToolTimeout. A context deadline, by contrast,
	// cancels the call (CodeCancelled).
	Timeout time.Duration
	// Format of the result's Output; empty means the session ToolFormat.
	Format ToolFormat
}

// LoadRequest is the params of servers/load: exactly one of Path, JSON and
// Text must be set.
type LoadRequest struct {
	Path string // a config file (any dialect) or a directory to scan
	// JSON is an inline config document: anything that encodes to a JSON
	// object (a map, a struct, a json.RawMessage).
	JSON any
	Text string // an inline config document as text (TOML, YAML or JSON)

	Dialect string            // e.g. "claude-desktop"; empty: detected
	Inputs  map[string]string // values of ${input:ID}
	Trust   map[string]string // approved launch digests by server name
	NoWait  bool              // answer at once; outcomes come as notifications
}

// LoadResult is the servers/load result.
type LoadResult struct {
	Added         []ServerStatus `json:"added"`
	Diagnostics   []Diagnostic   `json:"diagnostics"`
	TrustRequired []TrustRequest `json:"trustRequired"` // held back by RequireTrust
}

// Diagnostic is one problem found loading a config (PROTOCOL.md Appendix).
// Severity "error" means the server (or, without Server, the whole file)
// was not loaded; "warning" means it was loaded anyway.
type Diagnostic struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"` // unreadable, syntax, unknown-field, command-not-found, invalid, ...
	File     string `json:"file,omitempty"`
	Path     string `json:"path"` // JSON path of the field, "" for the whole file
	Server   string `json:"server,omitempty"`
	Message  string `json:"message"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
}

// TrustRequest is a server held back by RequireTrust: the data of the
// CodeTrustRequired error AddServer would get, plus Name. Approve it by
// passing Digest back (LoadRequest.Trust[Name], AddServerOptions.Trust).
type TrustRequest struct {
	Name        string   `json:"name"`
	Server      string   `json:"server"`
	Digest      string   `json:"digest"` // "sha256:<hex>"
	CommandLine string   `json:"commandLine"`
	Command     string   `json:"command"`
	Args        []string `json:"args"`
	Cwd         *string  `json:"cwd"`
	EnvNames    []string `json:"envNames"`
	URL         string   `json:"url,omitempty"`
	HeaderNames []string `json:"headerNames,omitempty"`
	Source      string   `json:"source"`
	Warnings    []string `json:"warnings"`
}

// TestServerOptions are the optional params of servers/test.
type TestServerOptions struct {
	Name  string // the name it is started under (default "test"); never registered
	Trust string // approved launch digest under RequireTrust
}

// TestReport is the servers/test result: what one start of a config found.
type TestReport struct {
	State           ServerState `json:"state"` // StateReady or StateError
	Transport       string      `json:"transport"`
	ServerInfo      *ServerInfo `json:"serverInfo,omitempty"`
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	Instructions    string      `json:"instructions,omitempty"`
	Tools           []string    `json:"tools"` // names on the server, listing order
	ToolsCount      int         `json:"toolsCount"`
	Timings         struct {
		StartupMs float64  `json:"startupMs"`
		ListMs    *float64 `json:"listMs,omitempty"` // ready only
	} `json:"timings"`
	StderrTail string `json:"stderrTail"`
	PID        int    `json:"pid,omitempty"`   // the process tested; exited by now
	Error      *Error `json:"error,omitempty"` // why the start failed
}

// ReadResultOptions are the optional params of results/read.
type ReadResultOptions struct {
	Offset int64 // byte offset into the full text (default 0)
	Length int64 // bytes wanted; 0 means the sidecar's default and cap, 256 KiB
}

// ResultChunk is the results/read result.
type ResultChunk struct {
	Text       string `json:"text"`
	Offset     int64  `json:"offset"` // where Text starts (snapped to a character boundary)
	Length     int64  `json:"length"` // bytes of Text
	TotalBytes int64  `json:"totalBytes"`
	EOF        bool   `json:"eof"` // Offset+Length == TotalBytes
}
