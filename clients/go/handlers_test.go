// handlers_test.go covers the host's handlers for the sidecar's requests
// beyond the shared scenarios: declared capabilities, cancellation by the
// sidecar, failing and panicking handlers, many handlers at once, and
// (with a wire-level fake where the real sidecar cannot send the request)
// unregistered methods and auth/authorize.

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// askResult calls the fixture's ask tool and returns its structured content.
func askResult(t *testing.T, c *Client, ctx context.Context, args map[string]any) map[string]any {
	t.Helper()
	res, err := c.CallTool(ctx, "mcp__a__ask", args, nil)
	if err != nil {
		t.Fatalf("ask %v: %v", args["method"], err)
	}
	var out map[string]any
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatalf("ask %v: structured content %s: %v", args["method"], res.StructuredContent, err)
	}
	return out
}

var samplingAsk = map[string]any{"method": MethodSampling,
	"params": map[string]any{"messages": []any{}, "maxTokens": 5}}

func clientCapabilities(t *testing.T, c *Client) string {
	t.Helper()
	res, err := c.CallTool(testCtx(t, 10*time.Second), "mcp__a__client_state", nil, nil)
	if err != nil {
		t.Fatalf("client_state: %v", err)
	}
	var state struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(res.StructuredContent, &state); err != nil {
		t.Fatal(err)
	}
	return string(state.Capabilities)
}

// The handlers set declare exactly their capabilities to the servers;
// auth is the sidecar's own and is not passed on. Nothing set: only the
// sidecar's own tasks capability.
func TestHandlersDeclareCapabilities(t *testing.T) {
	none := startClient(t, Options{})
	addFixture(t, none, "a", "--client-requests")
	if got := clientCapabilities(t, none); got != `{"tasks":{}}` {
		t.Errorf("no handlers: capabilities %s, want {\"tasks\":{}}", got)
	}

	noop := func(context.Context, *SamplingParams) (*SamplingResult, error) { return nil, nil }
	all := startClient(t, Options{
		Handlers: Handlers{
			Sampling: noop, SamplingContext: true, SamplingTools: true,
			Elicitation:    func(context.Context, *ElicitationRequest) (*ElicitationResult, error) { return nil, nil },
			ElicitationURL: true,
			Authorize:      func(context.Context, *AuthorizeParams) (*AuthorizeResult, error) { return nil, nil },
		},
		Roots: []Root{},
	})
	addFixture(t, all, "a", "--client-requests")
	want := `{"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true},"sampling":{"context":{},"tools":{}},"tasks":{}}`
	if got := clientCapabilities(t, all); got != want {
		t.Errorf("capabilities %s, want %s", got, want)
	}
}

// The sidecar's notifications/cancelled (the server withdrew its request)
// cancels the handler's context, and the handler's late result is not sent.
func TestHandlerCancelledBySidecar(t *testing.T) {
	entered, cancelled := make(chan struct{}), make(chan struct{})
	handled := make(chan bool, 1)
	c := startClient(t, Options{
		Handlers: Handlers{Sampling: func(ctx context.Context, _ *SamplingParams) (*SamplingResult, error) {
			close(entered)
			<-ctx.Done() // only the cancellation ends this handler
			close(cancelled)
			return &SamplingResult{Role: "assistant", Content: TextContent("too late"), Model: "m"}, nil
		}},
		afterHandled: func(method string, answered bool) { handled <- answered },
	})
	addFixture(t, c, "a", "--client-requests")
	ctx := testCtx(t, 15*time.Second)
	args := map[string]any{"method": MethodSampling, "withdrawAfterMs": 100,
		"params": map[string]any{"messages": []any{}, "maxTokens": 5}}
	out := askResult(t, c, ctx, args)
	if out["withdrawn"] != true {
		t.Fatalf("ask = %v, want withdrawn", out)
	}
	for _, ch := range []chan struct{}{entered, cancelled} {
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("the handler's context was not cancelled")
		}
	}
	select {
	case answered := <-handled:
		if answered {
			t.Fatal("an answer was sent for a request the sidecar cancelled")
		}
	case <-ctx.Done():
		t.Fatal("the handler did not finish")
	}
}

// A handler's *Error is the answer as given; any other error and a panic
// are -32603 with their message; the client goes on serving.
func TestHandlerFailures(t *testing.T) {
	c := startClient(t, Options{Handlers: Handlers{
		Sampling: func(ctx context.Context, req *SamplingParams) (*SamplingResult, error) {
			if req.MaxTokens == 1 {
				return nil, HandlerError(-1, "no, thanks", map[string]any{"why": "user"})
			}
			return nil, errors.New("the model is down")
		},
		Elicitation: func(context.Context, *ElicitationRequest) (*ElicitationResult, error) {
			panic("handler bug")
		},
	}})
	addFixture(t, c, "a", "--client-requests")
	ctx := testCtx(t, 15*time.Second)
	check := func(args map[string]any, code float64, message string, data any) {
		t.Helper()
		out := askResult(t, c, ctx, args)
		e, _ := out["error"].(map[string]any)
		if e == nil || e["code"] != code || fmt.Sprint(e["message"]) == "" {
			t.Fatalf("%v answered %v, want error %v", args["method"], out, code)
		}
		if msg := fmt.Sprint(e["message"]); !strings.Contains(msg, message) {
			t.Errorf("message %q does not contain %q", msg, message)
		}
		if data != nil && fmt.Sprint(e["data"]) != fmt.Sprint(data) {
			t.Errorf("data %v, want %v", e["data"], data)
		}
	}
	check(samplingAsk, -32603, "the model is down", nil)
	check(map[string]any{"method": MethodSampling, "params": map[string]any{"messages": []any{}, "maxTokens": 1}},
		-1, "no, thanks", map[string]any{"why": "user"})
	check(map[string]any{"method": MethodElicitation, "params": map[string]any{"message": "?", "requestedSchema": map[string]any{"type": "object"}}},
		-32603, "handler bug", nil)
}

// Handlers run concurrently: every one waits until all of them are in
// flight, which only completes if none blocks another (or the reader).
func TestManyConcurrentHandlers(t *testing.T) {
	const n = 16
	var inFlight atomic.Int32
	all := make(chan struct{})
	c := startClient(t, Options{Handlers: Handlers{
		Sampling: func(ctx context.Context, req *SamplingParams) (*SamplingResult, error) {
			if inFlight.Add(1) == n {
				close(all)
			}
			select {
			case <-all:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &SamplingResult{Role: "assistant", Content: TextContent(fmt.Sprint(req.MaxTokens)), Model: "m"}, nil
		},
	}})
	addFixture(t, c, "a", "--client-requests")
	ctx := testCtx(t, 20*time.Second)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			args := map[string]any{"method": MethodSampling, "params": map[string]any{"messages": []any{}, "maxTokens": 100 + i}}
			res, err := c.CallTool(ctx, "mcp__a__ask", args, nil)
			if err != nil {
				errs[i] = err
				return
			}
			var out struct {
				Result SamplingResult `json:"result"`
			}
			if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
				errs[i] = err
				return
			}
			if want := string(TextContent(fmt.Sprint(100 + i))); string(out.Result.Content) != want {
				errs[i] = fmt.Errorf("call %d got content %s, want %s", i, out.Result.Content, want)
			}
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := inFlight.Load(); got != n {
		t.Fatalf("%d handler calls, want %d", got, n)
	}
}

// Roots: the handler sees the list SetRoots set; SetRoots announces it and
// the server asks again. Without roots declared, SetRoots is refused.
func TestSetRoots(t *testing.T) {
	plain := startClient(t, Options{})
	if err := plain.SetRoots(testCtx(t, 5*time.Second), []Root{{Uri: "file:///x"}}); !IsCode(err, CodeInvalidParams) {
		t.Fatalf("SetRoots without roots declared: %v, want INVALID_PARAMS", err)
	}

	c := startClient(t, Options{Roots: []Root{{Uri: "file:///one"}}})
	addFixture(t, c, "a", "--client-requests")
	ctx := testCtx(t, 15*time.Second)
	out := askResult(t, c, ctx, map[string]any{"method": MethodRootsList})
	if got := fmt.Sprint(out["result"]); got != "map[roots:[map[uri:file:///one]]]" {
		t.Fatalf("roots/list = %s", got)
	}
	if err := c.SetRoots(ctx, []Root{{Uri: "file:///two", Name: "two"}}); err != nil {
		t.Fatal(err)
	}
	out = askResult(t, c, ctx, map[string]any{"method": MethodRootsList})
	if got := fmt.Sprint(out["result"]); got != "map[roots:[map[name:two uri:file:///two]]]" {
		t.Fatalf("roots/list after SetRoots = %s", got)
	}
}

// wireClient is a client with no process: the test feeds it the sidecar's
// lines (dispatch) and reads what it writes from writeQ. Only for requests
// a real sidecar cannot be made to send.
func wireClient(t *testing.T, h Handlers) *Client {
	t.Helper()
	opts := Options{Handlers: h}.withDefaults()
	roots := &rootsState{}
	methods, _ := h.table(roots)
	c := &Client{
		opts: opts, pending: map[int64]chan response{}, progress: map[int64]progressSink{},
		writeQ: make(chan outgoing, 8), writerDone: make(chan struct{}),
		notifs: newDropOldestQueue[Notification](4), logs: newDropOldestQueue[ServerLog](4),
		server: newServer(methods), roots: roots,
	}
	t.Cleanup(c.server.stop)
	return c
}

// written waits for the next line the client writes and decodes it.
func written(t *testing.T, c *Client) map[string]any {
	t.Helper()
	select {
	case m := <-c.writeQ:
		var v map[string]any
		if err := json.Unmarshal(m.line, &v); err != nil {
			t.Fatalf("line %q: %v", m.line, err)
		}
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing written within 10 s")
		return nil
	}
}

// A request for a method with no handler is answered -32601, naming it.
func TestUnregisteredMethod(t *testing.T) {
	c := wireClient(t, Handlers{})
	c.dispatch([]byte(`{"jsonrpc":"2.0","id":"sidecar-7","method":"elicitation/create","params":{"server":"a"}}`))
	got := written(t, c)
	e, _ := got["error"].(map[string]any)
	if got["id"] != "sidecar-7" || e == nil || e["code"] != float64(-32601) || !strings.Contains(fmt.Sprint(e["message"]), "elicitation/create") {
		t.Fatalf("answer %v", got)
	}
}

// auth/authorize reaches the Authorize handler typed, and its result is
// the answer. (The real sidecar asks only during an OAuth login of a
// remote server.)
func TestAuthorizeHandler(t *testing.T) {
	var seen AuthorizeParams
	c := wireClient(t, Handlers{Authorize: func(ctx context.Context, req *AuthorizeParams) (*AuthorizeResult, error) {
		seen = *req
		return AuthorizeRedirected("http://127.0.0.1:5555/callback?code=c&state=s"), nil
	}})
	if _, caps := c.opts.Handlers.table(&rootsState{}); fmt.Sprint(caps) != "map[auth:map[]]" {
		t.Fatalf("capabilities %v, want auth only", caps)
	}
	c.dispatch([]byte(`{"jsonrpc":"2.0","id":"sidecar-1","method":"auth/authorize","params":{"server":"remote","url":"https://as.example/authorize?x=1","redirectUri":"http://127.0.0.1:5555/callback"}}`))
	got := written(t, c)
	want := `map[id:sidecar-1 jsonrpc:2.0 result:map[action:redirected redirectUrl:http://127.0.0.1:5555/callback?code=c&state=s]]`
	if fmt.Sprint(got) != want {
		t.Fatalf("answer %v, want %s", got, want)
	}
	if seen.Server != "remote" || seen.URL != "https://as.example/authorize?x=1" || seen.RedirectUri != "http://127.0.0.1:5555/callback" {
		t.Fatalf("handler saw %+v", seen)
	}
}

// A handler that returns neither result nor error is answered -32603.
func TestHandlerWithoutResult(t *testing.T) {
	c := wireClient(t, Handlers{Authorize: func(context.Context, *AuthorizeParams) (*AuthorizeResult, error) { return nil, nil }})
	c.dispatch([]byte(`{"jsonrpc":"2.0","id":"sidecar-2","method":"auth/authorize","params":{}}`))
	got := written(t, c)
	if e, _ := got["error"].(map[string]any); e == nil || e["code"] != float64(-32603) {
		t.Fatalf("answer %v, want -32603", got)
	}
}
