// helpers_test.go owns what the tests share: the sidecar with the fixture
// server, and a scripted llms.Model that checks what the agent sends it.

package langchaingo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/tmc/langchaingo/llms"
)

// testBinary returns $env or the checkout's target/debug/name, absolute.
func testBinary(t *testing.T, env, name string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join("..", "..", "..", "..", "target", "debug", name)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("%s not found (%v): run `cargo build --workspace` in the repository root or set %s", name, err, env)
	}
	return abs
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startSidecar starts a sidecar with the fixture server "fixture" (its
// ask and progress tools included); Close runs at cleanup.
func startSidecar(t *testing.T, handlers client.Handlers) *client.Client {
	t.Helper()
	ctx := testCtx(t)
	c, err := client.Start(ctx, client.Options{
		BinaryPath: testBinary(t, "MCP_SIDECAR_BIN", "mcp-sidecar"),
		Stderr:     io.Discard,
		Handlers:   handlers,
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	st, err := c.AddServer(ctx, "fixture", client.ServerConfig{
		Command: testBinary(t, "MCP_FIXTURE_BIN", "mcp-fixture"), Args: []string{"--client-requests", "--surface"}}, nil)
	if err != nil || st.State != client.StateReady {
		t.Fatalf("AddServer: %v %+v", err, st)
	}
	return c
}

// turn is one scripted model turn: it sees the messages and options the
// agent sent and returns the choice.
type turn func(t *testing.T, msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentChoice

// scriptedModel is an llms.Model that plays its turns in order.
type scriptedModel struct {
	t     *testing.T
	mu    sync.Mutex
	turns []turn
	next  int
}

func (m *scriptedModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	if m.next >= len(m.turns) {
		m.t.Errorf("the model was asked a %d. time", m.next+1)
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "out of script"}}}, nil
	}
	choice := m.turns[m.next](m.t, msgs, opts)
	m.next++
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// toolCalls is a choice that calls name(arguments) for each pair.
func toolCalls(pairs ...string) *llms.ContentChoice {
	choice := &llms.ContentChoice{}
	for i := 0; i+1 < len(pairs); i += 2 {
		choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: fmt.Sprintf("call_%d", i/2+1), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: pairs[i], Arguments: pairs[i+1]}})
	}
	return choice
}

// toolResponses renders every tool message of msgs as "id=content" joined
// with " | " (the functions agent sends each call as its own AI message and
// tool message).
func toolResponses(msgs []llms.MessageContent) string {
	var out []string
	for _, msg := range msgs {
		for _, part := range msg.Parts {
			if r, ok := part.(llms.ToolCallResponse); ok && msg.Role == llms.ChatMessageTypeTool {
				out = append(out, r.ToolCallID+"="+r.Content)
			}
		}
	}
	return strings.Join(out, " | ")
}

// arg1 is the arguments of an OpenAIFunctionsAgent tool: one string.
func arg1(input string) string {
	raw, _ := json.Marshal(map[string]string{"__arg1": input})
	return string(raw)
}
