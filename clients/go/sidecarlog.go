// sidecarlog.go owns the sidecar's own log lines (its stderr) as this
// client reads them by default: the flags that set their level and format at
// spawn, and each line of --log-format json handed to an *slog.Logger as a
// record with the sidecar's level, message, timestamp and fields — whichever
// of the sidecar's two JSON shapes the line has (the message under "fields",
// or at the top level beside the event's and its spans' fields).

package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"
)

// DefaultLogLevel is the sidecar's log filter when neither Options.LogLevel,
// "--log" in Options.Args nor MCP_SIDECAR_LOG in its environment sets one.
const DefaultLogLevel = "warn"

// LevelTrace is the slog level of the sidecar's TRACE lines (below
// slog.LevelDebug, which its DEBUG lines get).
const LevelTrace = slog.LevelDebug - 4

// maxLogLineBytes bounds one stderr line: the rest of a longer one is
// dropped (logs only; nothing to resynchronise).
const maxLogLineBytes = 64 << 10

// logFlags are the sidecar flags added after the caller's args: "--log
// <level>" (Options.LogLevel, else DefaultLogLevel unless the sidecar's
// environment sets MCP_SIDECAR_LOG) and, when this client reads the lines,
// "--log-format json". A flag the caller's args already have is left to
// them (the sidecar refuses one given twice).
func logFlags(args, env []string, level string, structured bool) []string {
	var flags []string
	if !hasFlag(args, "--log") {
		if strings.EqualFold(level, LogWarning) {
			// MCP's name of the level (LogWarning, for ServerLogs) would be a
			// filter for a module named "warning": the sidecar would log nothing.
			level = "warn"
		}
		if level == "" && !envSet(env, "MCP_SIDECAR_LOG") {
			level = DefaultLogLevel
		}
		if level != "" {
			flags = append(flags, "--log", level)
		}
	}
	if structured && !hasFlag(args, "--log-format") {
		flags = append(flags, "--log-format", "json")
	}
	return flags
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// envSet reports whether name is set non-empty in env (os/exec form; nil:
// the host's own environment, which the sidecar then inherits).
func envSet(env []string, name string) bool {
	if env == nil {
		return os.Getenv(name) != ""
	}
	value := ""
	for _, kv := range env { // the last one wins, as in os/exec
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			value = v
		}
	}
	return value != ""
}

// readSidecarLog hands every line of r to logger until r ends, then closes
// done.
func readSidecarLog(r io.Reader, logger *slog.Logger, done chan<- struct{}) {
	defer close(done)
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := readBoundedLine(br, maxLogLineBytes)
		if len(strings.TrimSpace(line)) > 0 {
			logLine(logger, line)
		}
		if err != nil {
			return
		}
	}
}

// readBoundedLine returns the next line without its "\n" (and "\r"), at
// most max bytes of it; the rest of a longer line is read and dropped.
func readBoundedLine(br *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if room := max - len(b); room > 0 {
			b = append(b, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		return s, err
	}
}

// logLine hands one line to logger as a record, when its level is enabled.
func logLine(logger *slog.Logger, line string) {
	ctx := context.Background()
	rec := parseLogLine(line)
	if !logger.Enabled(ctx, rec.Level) {
		return
	}
	_ = logger.Handler().Handle(ctx, rec) // a handler's write error has nowhere to go
}

// recordKeys are a JSON line's keys that are the record's own, never
// attributes.
var recordKeys = map[string]bool{
	"timestamp": true, "level": true, "message": true, "fields": true,
	"span": true, "spans": true, "threadName": true, "threadId": true,
}

// parseLogLine reads one stderr line as a record. A line that is not a JSON
// object (a panic message) is kept whole as the message of an ERROR record.
func parseLogLine(line string) slog.Record {
	var event map[string]any
	if err := json.Unmarshal([]byte(line), &event); err != nil || event == nil {
		return slog.NewRecord(time.Now(), slog.LevelError, line, 0)
	}
	fields := map[string]any{}
	// Outermost span first, so an event's own field wins over a span's.
	spans, _ := event["spans"].([]any)
	if span, ok := event["span"].(map[string]any); ok && spans == nil {
		spans = []any{span}
	}
	for _, s := range spans {
		span, _ := s.(map[string]any)
		for k, v := range span {
			if k != "name" {
				fields[k] = v
			}
		}
	}
	for k, v := range event {
		if !recordKeys[k] {
			fields[k] = v
		}
	}
	message, hasMessage := event["message"]
	if nested, ok := event["fields"].(map[string]any); ok {
		for k, v := range nested {
			if k == "message" {
				if !hasMessage {
					message, hasMessage = v, true
				}
				continue
			}
			fields[k] = v
		}
	}
	text, ok := message.(string)
	if !ok && hasMessage {
		b, _ := json.Marshal(message)
		text = string(b)
	}
	when := time.Now()
	if ts, ok := event["timestamp"].(string); ok {
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			when = t
		}
	}
	level, _ := event["level"].(string)
	rec := slog.NewRecord(when, slogLevel(level), text, 0)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same line, the same attributes in the same order
	for _, k := range keys {
		rec.AddAttrs(slog.Any(k, fields[k]))
	}
	return rec
}

// slogLevel maps the sidecar's level names (tracing's) to slog levels.
func slogLevel(level string) slog.Level {
	switch strings.ToUpper(level) {
	case "ERROR":
		return slog.LevelError
	case "WARN":
		return slog.LevelWarn
	case "DEBUG":
		return slog.LevelDebug
	case "TRACE":
		return LevelTrace
	default:
		return slog.LevelInfo
	}
}
