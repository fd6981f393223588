// options.go owns Start's options and their defaults.

package client

import (
	"io"
	"os"
	"time"
)

// Defaults applied by Start.
const (
	DefaultNotificationBuffer = 256
	DefaultCloseTimeout       = 5 * time.Second
)

// Options configure Start. The zero value is usable.
type Options struct {
	// BinaryPath is the mcp-sidecar binary; empty means discovery (see
	// FindBinary: $MCP_SIDECAR_BIN, next to the executable, the module's
	// bin/, a source checkout's target/, then PATH).
	BinaryPath string
	// Args are extra sidecar arguments, e.g. "--log", "debug".
	Args []string
	// Env is the sidecar's environment (os/exec form "K=V"); nil inherits
	// the host's. Servers only ever see an allowlist of it (PROTOCOL.md §6).
	Env []string
	// Dir is the sidecar's working directory; empty means the host's.
	Dir string
	// Stderr receives the sidecar's stderr (logs only; never parsed, never
	// mixed with stdout). Nil means os.Stderr; io.Discard gives the sidecar
	// the null device. An *os.File is handed to the sidecar as is; any
	// other writer is fed through a pipe by a goroutine of this process, so
	// it must not block, and it goes away with the host process.
	Stderr io.Writer

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

	// NotificationBuffer bounds the Notifications channel (default 256).
	// When it is full the oldest queued notification is dropped and
	// DroppedNotifications counts it.
	NotificationBuffer int
	// MaxLineBytes bounds one line read from the sidecar (default 64 MiB).
	MaxLineBytes int
	// CloseTimeout is how long Close waits for the sidecar to answer
	// shutdown and exit before killing it (default 5 s).
	CloseTimeout time.Duration

	// afterWrite, when set (tests only), is called by the writer goroutine
	// after each line is written to the sidecar's stdin (id 0: notification).
	afterWrite func(method string, id int64)
}

func (o Options) withDefaults() Options {
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.NotificationBuffer <= 0 {
		o.NotificationBuffer = DefaultNotificationBuffer
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	return o
}
