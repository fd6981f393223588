// Command sampling is an offline agent loop in the other direction: an MCP
// server asks the host's model (sampling/createMessage), the sidecar
// forwards the request to this host, and a registered handler answers it
// with a stand-in "model" function (no network, no API keys). The server is
// the test fixture with --client-requests; its ask tool makes it send the
// request and returns what the host answered, so the whole round trip shows:
//
//	cargo build --workspace   # in the repository root
//	go run ./examples/sampling
//
// The sidecar is found by client.FindBinary; the MCP server is the test
// fixture ($MCP_FIXTURE_BIN, else the checkout's target/debug/mcp-fixture).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

// message is an MCP sampling message with a text content block.
type message struct {
	Role    string `json:"role"`
	Content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// model stands in for a chat completion: it answers the last user message
// by shouting it back, within maxTokens words.
func model(history []message, maxTokens int64) string {
	last := ""
	for _, m := range history {
		if m.Role == "user" && m.Content.Type == "text" {
			last = m.Content.Text
		}
	}
	words := strings.Fields(strings.ToUpper(last))
	if int64(len(words)) > maxTokens {
		words = words[:maxTokens]
	}
	return strings.Join(words, " ") + "!"
}

// fixturePath is $MCP_FIXTURE_BIN, else target/debug/mcp-fixture in the
// nearest directory above the working directory that has one.
func fixturePath() (string, error) {
	if p := os.Getenv("MCP_FIXTURE_BIN"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "target", "debug", "mcp-fixture")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no target/debug/mcp-fixture above the working directory: run `cargo build --workspace` in the repository root or set MCP_FIXTURE_BIN")
		}
		dir = parent
	}
}

// run does one round trip and writes its transcript to out; it returns the
// text the server got back from the host's model.
func run(ctx context.Context, out io.Writer, prompt string) (string, error) {
	fixture, err := fixturePath()
	if err != nil {
		return "", err
	}
	c, err := client.Start(ctx, client.Options{
		// Registering the handler declares sampling to every server.
		Handlers: client.Handlers{
			Sampling: func(ctx context.Context, req *client.SamplingParams) (*client.SamplingResult, error) {
				raw, err := json.Marshal(req.Messages)
				if err != nil {
					return nil, err
				}
				var history []message
				if err := json.Unmarshal(raw, &history); err != nil {
					return nil, client.HandlerError(-32602, "only text messages are understood here", nil)
				}
				fmt.Fprintf(out, "sidecar -> host: sampling/createMessage from %s (%d messages, maxTokens %d)\n",
					req.Server, len(history), req.MaxTokens)
				answer := model(history, req.MaxTokens)
				fmt.Fprintf(out, "host model: %s\n", answer)
				return &client.SamplingResult{Role: "assistant", Content: client.TextContent(answer),
					Model: "stand-in", StopReason: "endTurn"}, nil
			},
		},
	})
	if err != nil {
		return "", err
	}
	defer c.Close(context.Background())

	st, err := c.AddServer(ctx, "fixture", client.ServerConfig{Command: fixture, Args: []string{"--client-requests"}}, nil)
	if err != nil {
		return "", err
	}
	if st.State != client.StateReady {
		return "", fmt.Errorf("server %s is %s: %v", st.Name, st.State, st.LastError)
	}

	// The fixture's ask tool sends its client (the sidecar) this request;
	// a real server would do so in the middle of its own tool's work.
	ask := map[string]any{"method": client.MethodSampling, "params": map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}},
		"maxTokens": 20,
	}}
	fmt.Fprintf(out, "host -> server: mcp__fixture__ask(sampling/createMessage %q)\n", prompt)
	res, err := c.CallTool(ctx, "mcp__fixture__ask", ask, nil)
	if err != nil {
		return "", err
	}
	var got struct {
		Result *client.SamplingResult `json:"result"`
		Error  json.RawMessage        `json:"error"`
	}
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil || got.Result == nil {
		return "", fmt.Errorf("the server got no sampling result: %s %s", res.StructuredContent, got.Error)
	}
	var text struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(got.Result.Content, &text); err != nil {
		return "", err
	}
	fmt.Fprintf(out, "server got: %s (model %s)\n", text.Text, got.Result.Model)
	return text.Text, nil
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := run(ctx, os.Stdout, "what is the answer"); err != nil {
		fmt.Fprintln(os.Stderr, "sampling:", err)
		os.Exit(1)
	}
}
