// types.go owns the behaviour of the host protocol v1 types generated in
// generated.go (ServerConfig.Extra, ToolList.Definitions, ContentBlock,
// CallResult.OutputString) and the option structs of the calls.

package client

import (
	"bytes"
	"encoding/json"
	"time"
)

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

// OutputString returns Output decoded when it is a JSON string (openai
// formats), else Output's raw JSON text.
func (r *CallResult) OutputString() string {
	var s string
	if bytes.HasPrefix(bytes.TrimSpace(r.Output), []byte(`"`)) && json.Unmarshal(r.Output, &s) == nil {
		return s
	}
	return string(r.Output)
}

// SearchHit is one entry of a tools/search result: the tool's entry, its
// score (higher is better) and whether the query named it exactly.
type SearchHit struct {
	Tool  Tool
	Score float64
	Exact bool
}

// Hits decodes Tools, best match first.
func (r *SearchResult) Hits() ([]SearchHit, error) {
	hits := make([]SearchHit, len(r.Tools))
	for i, raw := range r.Tools {
		var rank struct {
			Score float64 `json:"score"`
			Exact bool    `json:"exact"`
		}
		if err := json.Unmarshal(raw, &hits[i].Tool); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &rank); err != nil {
			return nil, err
		}
		hits[i].Score, hits[i].Exact = rank.Score, rank.Exact
	}
	return hits, nil
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
	// Defer sets this listing's deferral (PROTOCOL.md §9.7); nil means
	// each server's and the session's rule.
	Defer *bool
}

// SearchToolsOptions are the optional params of tools/search.
type SearchToolsOptions struct {
	Limit   int        // most entries returned, 1-100; 0 means 10
	Servers []string   // default: every server
	Format  ToolFormat // default: the session ToolFormat
	Strict  *bool      // nil: the session default
}

// ToolRef names one definition of a tool: what tools/accept accepts.
type ToolRef struct {
	Server string `json:"server"`
	Tool   string `json:"tool"` // its name on the server
	Hash   string `json:"hash"`
}

// LoginOptions are the optional params of servers/login.
type LoginOptions struct {
	// NoWait answers as soon as the login waits for the browser (the
	// status carries AuthorizationURL) or has ended.
	NoWait bool
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
	// Progress, when set, asks for the server's progress (progress: true)
	// and is called with each update (notifications/progress) on the
	// calling goroutine, before CallTool returns. Like the sidecar, it
	// skips to the latest update when it falls behind; the last update
	// read before the result is always delivered. None is delivered after
	// the call ends.
	Progress func(ProgressUpdate)
	// ResetTimeoutOnProgress makes each progress update restart the
	// call's timeout (nil: the server's config); MaxTotalTimeout bounds
	// the call whatever its progress (0: the server's config).
	ResetTimeoutOnProgress *bool
	MaxTotalTimeout        time.Duration
	// TraceParent and TraceState: the W3C trace context the call belongs
	// to, passed on to the server (and the parent of the sidecar's span
	// when it exports traces); empty: none.
	TraceParent string
	TraceState  string
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

// TestServerOptions are the optional params of servers/test.
type TestServerOptions struct {
	Name  string // the name it is started under (default "test"); never registered
	Trust string // approved launch digest under RequireTrust
}

// ReadResultOptions are the optional params of results/read.
type ReadResultOptions struct {
	Offset int64 // byte offset into the full text (default 0)
	Length int64 // bytes wanted; 0 means the sidecar's default and cap, 256 KiB
}
