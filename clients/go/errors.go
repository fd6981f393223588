// errors.go owns the client's one error type, *Error, the codes only the
// client raises (the protocol's are in generated.go) and its wire form (the JSON-RPC error object of PROTOCOL.md §12).

package client

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Codes raised by this client itself (never sent by the sidecar). Their
// RPCCode is 0. CodeCancelled is also raised by the client, for a cancelled
// context.
const (
	// CodeBinaryNotFound: no mcp-sidecar binary was found; the message lists
	// every place that was searched (Data["searched"]).
	CodeBinaryNotFound = "BINARY_NOT_FOUND"
	// CodeSpawnFailed: the binary was found but could not be started.
	CodeSpawnFailed = "SPAWN_FAILED"
	// CodeClosed: the call was made after Close began.
	CodeClosed = "CLOSED"
	// CodeSidecarExited: the sidecar exited (or closed its stdout) without
	// Close, or with a non-zero status; Data["exit"] describes how.
	CodeSidecarExited = "SIDECAR_EXITED"
	// CodeKilled: Close had to kill the sidecar because it did not exit
	// within Options.CloseTimeout after shutdown.
	CodeKilled = "KILLED"
	// CodeLineTooLarge: the sidecar wrote a line over Options.MaxLineBytes
	// (Data["limit"], Data["size"]). The call it answered fails; when the
	// line does not say which call that is, the client is closed.
	CodeLineTooLarge = "LINE_TOO_LARGE"
	// CodeInvalidMessage: the sidecar wrote a line that is not a JSON-RPC
	// message (the client is closed; the message quotes the line's start),
	// or a response with neither result nor error (that call fails).
	CodeInvalidMessage = "INVALID_MESSAGE"
)

// Error is the only error type returned by this package's calls (wrapped
// errors from the standard library are reachable through Unwrap).
//
// Branch on Code (stable strings, the Code* constants); an unknown Code from
// a newer sidecar can be handled by RPCCode. Data holds error.data as
// decoded by encoding/json (numbers are float64), e.g. Data["stderrTail"],
// Data["server"], Data["violations"].
//
// errors.Is(err, &Error{Code: CodeToolNotFound}) matches by Code. A
// cancelled call (CodeCancelled caused by the context) also matches
// errors.Is(err, context.Canceled) or context.DeadlineExceeded.
type Error struct {
	Code    string         // stable string code (error.data.code or a client code)
	Message string         // human-readable, names the cause
	Data    map[string]any // error.data, including "code" (client errors too)
	RPCCode int            // numeric JSON-RPC code; 0 for client-only codes

	cause error // wrapped error (context error, exec error, I/O error)
}

func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("mcp-sidecar: %s", e.Message)
	}
	return fmt.Sprintf("mcp-sidecar: %s: %s", e.Code, e.Message)
}

// Unwrap returns the underlying cause, if any (e.g. context.Canceled).
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same Code (a target
// without Code matches any *Error).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == "" || t.Code == e.Code
}

// StderrTail returns Data["stderrTail"] (the failed server's stderr tail) or "".
func (e *Error) StderrTail() string {
	s, _ := e.Data["stderrTail"].(string)
	return s
}

// TrustDigest returns Data["digest"] (the launch digest a CodeTrustRequired
// error asks the host to approve) or "".
func (e *Error) TrustDigest() string {
	s, _ := e.Data["digest"].(string)
	return s
}

// IsCode reports whether err is (or wraps) an *Error with this Code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// wireError is the JSON-RPC error object: {code, message, data}.
type wireError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

// MarshalJSON writes the JSON-RPC error object form (as in a status's lastError).
func (e *Error) MarshalJSON() ([]byte, error) {
	data := e.Data
	if e.Code != "" {
		if _, has := data["code"]; !has {
			data = make(map[string]any, len(e.Data)+1)
			for k, v := range e.Data {
				data[k] = v
			}
			data["code"] = e.Code
		}
	}
	return json.Marshal(wireError{Code: e.RPCCode, Message: e.Message, Data: data})
}

// UnmarshalJSON reads the JSON-RPC error object form.
func (e *Error) UnmarshalJSON(b []byte) error {
	var w wireError
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = *fromWire(w)
	return nil
}

// fromWire builds an *Error from a JSON-RPC error object; a missing
// data.code is derived from the numeric code when it is a known one.
func fromWire(w wireError) *Error {
	e := &Error{Message: w.Message, Data: w.Data, RPCCode: w.Code}
	if code, ok := w.Data["code"].(string); ok {
		e.Code = code
	} else {
		for _, known := range protocolCodes {
			if known.rpc == w.Code {
				e.Code = known.code
				break
			}
		}
	}
	return e
}

// clientError builds a client-side *Error; Data starts as {"code": code},
// like the sidecar's errors.
func clientError(code string, cause error, format string, args ...any) *Error {
	return &Error{
		Code:    code,
		Message: fmt.Sprintf(format, args...),
		Data:    map[string]any{"code": code},
		RPCCode: rpcCodes[code],
		cause:   cause,
	}
}
