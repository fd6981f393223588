// example_errors_test.go owns the error-handling example of the README: the
// function toolMessage between the markers is the README's code block, word
// for word (TestReadmeShowsTheErrorExample), and Example_errorHandling runs
// it against a real sidecar and fixture server, so the README's code compiles
// and does what its comments say.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

// README: error handling (begin)
// toolMessage is what the model is told after a tool call, or the error
// that ends the agent's run.
func toolMessage(res *client.CallResult, err error) (string, error) {
	var e *client.Error
	switch {
	case err == nil:
		return res.OutputString(), nil // res.IsError (the tool failed) is a result too
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "", err // our ctx ended: the sidecar was told to cancel the call (Code CANCELLED)
	case errors.Is(err, &client.Error{Code: client.CodeInvalidArguments}):
		errors.As(err, &e)
		return fmt.Sprintf("invalid arguments: %s (%v)", e.Message, e.Data["violations"]), nil
	case client.IsCode(err, client.CodeToolTimeout), client.IsCode(err, client.CodeServerUnavailable):
		return "try again later: " + err.Error(), nil
	case errors.As(err, &e) && e.RPCCode != 0: // refused by the sidecar: the model can adapt
		return fmt.Sprintf("error %s: %s", e.Code, e.Message), nil
	default: // CLOSED, SIDECAR_EXITED, ...: the client's own, the run cannot go on
		return "", err
	}
}

// README: error handling (end)

func Example_errorHandling() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Start(ctx, client.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(context.Background())
	if _, err := c.AddServer(ctx, "fx", client.ServerConfig{Command: fixture()}, nil); err != nil {
		fmt.Println(err)
		return
	}
	show := func(msg string, err error) {
		if err != nil {
			fmt.Printf("stop: %v\n", errors.Is(err, context.DeadlineExceeded))
			return
		}
		fmt.Println(strings.SplitN(msg, ":", 2)[0]) // the message's kind; the rest names the cause
	}
	show(toolMessage(c.CallTool(ctx, "mcp__fx__echo", map[string]any{"message": "hi"}, nil)))
	show(toolMessage(c.CallTool(ctx, "mcp__fx__echo", map[string]any{"text": "hi"}, nil)))
	show(toolMessage(c.CallTool(ctx, "mcp__fx__sleep", map[string]any{"ms": 10_000}, &client.CallOptions{Timeout: 50 * time.Millisecond})))
	show(toolMessage(c.CallTool(ctx, "mcp__fx__nope", nil, nil)))
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	show(toolMessage(c.CallTool(short, "mcp__fx__sleep", map[string]any{"ms": 10_000}, nil)))
	// Output:
	// hi
	// invalid arguments
	// try again later
	// error TOOL_NOT_FOUND
	// stop: true
}

// fixture is the fixture server: $MCP_FIXTURE_BIN, else the checkout's debug build.
func fixture() string {
	if p := os.Getenv("MCP_FIXTURE_BIN"); p != "" {
		return p
	}
	p, _ := filepath.Abs(filepath.Join("..", "..", "target", "debug", "mcp-fixture"))
	return p
}

// TestReadmeShowsTheErrorExample keeps the README's error-handling block the
// code above, which the example compiles and runs.
func TestReadmeShowsTheErrorExample(t *testing.T) {
	src, err := os.ReadFile("example_errors_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile(`(?s)// README: error handling \(begin\)\n(.*?)\n// README: error handling \(end\)`).FindSubmatch(src)
	if code == nil {
		t.Fatal("the markers are gone from example_errors_test.go")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(strings.TrimSpace(string(code[1])), "\t", "    ") // the README indents with spaces
	for _, block := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1) {
		if strings.TrimSpace(string(block[1])) == want {
			return
		}
	}
	t.Fatalf("README.md has no ```go block that is toolMessage as in example_errors_test.go:\n%s", want)
}
