// errors_test.go owns the unit tests of *Error: wire decoding and encoding,
// matching, and client-side errors.

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestErrorWireRoundTrip(t *testing.T) {
	raw := `{"code":-32013,"message":"server a exited","data":{"code":"SERVER_UNAVAILABLE","server":"a","stderrTail":"boom","exit":{"code":3,"signal":null}}}`
	var e Error
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		t.Fatal(err)
	}
	if e.Code != CodeServerUnavailable || e.RPCCode != -32013 || e.StderrTail() != "boom" || e.Data["server"] != "a" {
		t.Fatalf("%+v", e)
	}
	out, err := json.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal([]byte(raw), &a)
	_ = json.Unmarshal(out, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("round trip: %s", out)
	}
}

func TestErrorCodeFromNumberWhenDataCodeMissing(t *testing.T) {
	e := fromWire(wireError{Code: -32020, Message: "no tool"})
	if e.Code != CodeToolNotFound {
		t.Fatalf("got %q", e.Code)
	}
	if e := fromWire(wireError{Code: -32600, Message: "bad"}); e.Code != CodeInvalidRequest {
		t.Fatalf("-32600 got %q", e.Code)
	}
	if e := fromWire(wireError{Code: -32099, Message: "new", Data: map[string]any{"code": "FUTURE_CODE"}}); e.Code != "FUTURE_CODE" || e.RPCCode != -32099 {
		t.Fatalf("unknown code kept: %+v", e)
	}
}

func TestErrorMatching(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := fmt.Errorf("wrapped: %w", cancelledError(ctx, "tools/call"))
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeCancelled || e.RPCCode != -32800 || e.Data["code"] != CodeCancelled {
		t.Fatalf("%+v", e)
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, &Error{Code: CodeCancelled}) || !errors.Is(err, &Error{}) {
		t.Fatal("Is")
	}
	if errors.Is(err, &Error{Code: CodeClosed}) || IsCode(errors.New("plain"), CodeClosed) {
		t.Fatal("false match")
	}
	closed := clientError(CodeClosed, nil, "closed")
	if closed.RPCCode != 0 || closed.Data["code"] != CodeClosed {
		t.Fatalf("%+v", closed)
	}
}
