// options.go owns Start's options and their defaults.

package client

import (
	"io"
	"log/slog"
	"time"
)

// Defaults applied by Start.
const (
	DefaultNotificationBuffer = 256
	DefaultLogBuffer          = 256
	DefaultCloseTimeout       = 5 * time.Second
)

// Options configure Start. The zero value is usable.
type Options struct {
	// BinaryPath is the mcp-sidecar binary; empty means discovery (see
	// FindBinary: $MCP_SIDECAR_BIN, next to the executable, the module's
	// bin/, a source checkout's target/, then PATH).
	BinaryPath string
	// Args are extra sidecar arguments.
	Args []string
	// Env is the sidecar's environment (os/exec form "K=V"); nil inherits
	// the host's. Servers only ever see an allowlist of it (PROTOCOL.md §6).
	Env []string
	// Dir is the sidecar's working directory; empty means the host's.
	Dir string
	// Stderr, when set, receives the sidecar's stderr as raw text lines
	// (logs only, never mixed with stdout) instead of Logger: io.Discard
	// gives the sidecar the null device, an *os.File is handed to the
	// sidecar as is, and any other writer is fed through a pipe by a
	// goroutine of this process, so it must not block, and it goes away
	// with the host process.
	Stderr io.Writer
	// Logger receives the sidecar's own logs when Stderr is nil (the
	// default): the sidecar writes JSON lines, and each becomes a record of
	// this logger with the sidecar's level (TRACE is LevelTrace), message,
	// timestamp, and fields as attributes (e.g. "server"). Nil means
	// slog.Default() as it is when Start is called, whose handler drops
	// records below its level.
	Logger *slog.Logger
	// LogLevel is the sidecar's log filter (--log): "error", "warn" (or
	// LogWarning), "info", "debug", "trace", "off", or a filter such as
	// "mcp_sidecar=debug". Empty means DefaultLogLevel ("warn"), unless
	// MCP_SIDECAR_LOG is set in the sidecar's environment; "--log" in Args
	// wins over both.
	LogLevel string

	// Session options sent in initialize; zero values take the sidecar's
	// defaults (openai, "mcp__{server}__{tool}", 64, not strict, no trust
	// gate).
	ToolFormat    ToolFormat
	NameTemplate  string
	MaxNameLength int
	ClientInfo    *ClientInfo
	// Strict makes OpenAI strict mode the session default for ListTools
	// and for the fingerprints of notifications/tools/changed.
	Strict bool
	// RequireTrust makes every server need the host's approval of its
	// launch digest before it starts (CodeTrustRequired; PROTOCOL.md §12).
	RequireTrust bool
	// AnswerTimeout bounds how long the sidecar waits for a handler's
	// answer (answerTimeoutMs, rounded up to whole milliseconds; 0: the
	// sidecar's 10 minutes). Past it the handler's ctx is cancelled.
	AnswerTimeout time.Duration
	// TokenStorage is where OAuth tokens of remote servers are kept:
	// "file" (the default) or "memory".
	TokenStorage string
	// Defer makes listings defer every server's tools (PROTOCOL.md §9.7);
	// DeferAboveTokens (when set) defers once a listing's estimated tokens
	// exceed it.
	Defer            bool
	DeferAboveTokens *int
	// ResourcesAsTools and PinTools are the session defaults of the
	// server config fields of the same names (PROTOCOL.md §15.7, §16).
	ResourcesAsTools bool
	PinTools         bool
	// ServerLogs is the session's log level (LogDebug ... LogEmergency):
	// servers' messages at or above it arrive on Logs. Empty: none until
	// SetLogLevel.
	ServerLogs string

	// Handlers answer the sidecar's requests to the host (sampling,
	// elicitation, roots, OAuth browser step) and declare the matching
	// capabilities; see Handlers. Roots, when non-nil (even empty),
	// declares roots: the list roots/list is answered with until SetRoots.
	Handlers Handlers
	Roots    []Root

	// NotificationBuffer bounds the Notifications channel (default 256).
	// When it is full the oldest queued notification is dropped and
	// DroppedNotifications counts it.
	NotificationBuffer int
	// LogBuffer bounds the Logs channel (default 256), with the same
	// drop-the-oldest policy, counted by DroppedLogs.
	LogBuffer int
	// MaxLineBytes bounds one line read from the sidecar (default 64 MiB);
	// a longer line fails with CodeLineTooLarge.
	MaxLineBytes int
	// CloseTimeout is how long Close waits for the sidecar to answer
	// shutdown and exit before killing it (default 5 s).
	CloseTimeout time.Duration

	// afterWrite, when set (tests only), is called by the writer goroutine
	// after each line is written to the sidecar's stdin (id 0: notification).
	afterWrite func(method string, id int64)
	// afterHandled, when set (tests only), is called once per request from
	// the sidecar when it is finished: answered, or not (cancelled).
	afterHandled func(method string, answered bool)
}

// Log levels of Options.ServerLogs and SetLogLevel (MCP's, lowest first).
const (
	LogDebug     = "debug"
	LogInfo      = "info"
	LogNotice    = "notice"
	LogWarning   = "warning"
	LogError     = "error"
	LogCritical  = "critical"
	LogAlert     = "alert"
	LogEmergency = "emergency"
)

// sessionParams adds the optional session params of initialize that are set.
func (o Options) sessionParams(params map[string]any) {
	if o.AnswerTimeout > 0 {
		params["answerTimeoutMs"] = int64((o.AnswerTimeout + time.Millisecond - 1) / time.Millisecond)
	}
	if o.TokenStorage != "" {
		params["tokenStorage"] = o.TokenStorage
	}
	if o.Defer {
		params["defer"] = true
	}
	if o.DeferAboveTokens != nil {
		params["deferAboveTokens"] = *o.DeferAboveTokens
	}
	if o.ResourcesAsTools {
		params["resourcesAsTools"] = true
	}
	if o.PinTools {
		params["pinTools"] = true
	}
	if o.ServerLogs != "" {
		params["serverLogs"] = o.ServerLogs
	}
}

func (o Options) withDefaults() Options {
	if o.Stderr == nil && o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.NotificationBuffer <= 0 {
		o.NotificationBuffer = DefaultNotificationBuffer
	}
	if o.LogBuffer <= 0 {
		o.LogBuffer = DefaultLogBuffer
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	return o
}
