// Command agentloop is an offline agent loop over mcp-sidecar: it hands a
// model the tool list in OpenAI Chat Completions format, runs the tool call
// the model picks through the sidecar, and feeds the result back until the
// model answers. The "model" is a scripted fake, so it runs without network
// or API keys:
//
//	cargo build --workspace   # in the repository root
//	go run ./examples/agentloop
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

// message is an OpenAI Chat Completions message.
type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"` // a JSON object, as a string
	} `json:"function"`
}

// fakeModel stands in for a chat completion request with `tools`: on a user
// turn it calls the first tool whose name ends in "__echo" with the user's
// text; on a tool result it answers with that result.
func fakeModel(tools []json.RawMessage, history []message) (message, error) {
	last := history[len(history)-1]
	if last.Role == "tool" {
		return message{Role: "assistant", Content: "The tool answered: " + last.Content}, nil
	}
	for _, raw := range tools {
		var def struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &def); err != nil || def.Type != "function" {
			return message{}, fmt.Errorf("not an OpenAI tool definition: %s", raw)
		}
		if strings.HasSuffix(def.Function.Name, "__echo") {
			args, _ := json.Marshal(map[string]string{"message": last.Content})
			call := toolCall{ID: "call_1", Type: "function"}
			call.Function.Name, call.Function.Arguments = def.Function.Name, string(args)
			return message{Role: "assistant", ToolCalls: []toolCall{call}}, nil
		}
	}
	return message{Role: "assistant", Content: "I have no tool for that."}, nil
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

// run is the whole loop; it writes a transcript to out and returns the answer.
func run(ctx context.Context, out io.Writer, prompt string) (string, error) {
	fixture, err := fixturePath()
	if err != nil {
		return "", err
	}
	c, err := client.Start(ctx, client.Options{ToolFormat: client.FormatOpenAI}) // the sidecar's warnings: slog.Default()
	if err != nil {
		return "", err
	}
	defer c.Close(context.Background())

	st, err := c.AddServer(ctx, "fixture", client.ServerConfig{Command: fixture}, nil)
	if err != nil {
		return "", err
	}
	if st.State != client.StateReady {
		return "", fmt.Errorf("server %s is %s: %v", st.Name, st.State, st.LastError)
	}
	list, err := c.ListTools(ctx, nil)
	if err != nil {
		return "", err
	}
	tools := list.Definitions() // send as the request's "tools" array, unchanged
	fmt.Fprintf(out, "tools (%s): %d\n", list.Fingerprint[:15], len(tools))

	history := []message{{Role: "user", Content: prompt}}
	fmt.Fprintf(out, "user: %s\n", prompt)
	for turn := 0; turn < 4; turn++ {
		reply, err := fakeModel(tools, history)
		if err != nil {
			return "", err
		}
		history = append(history, reply)
		if len(reply.ToolCalls) == 0 {
			fmt.Fprintf(out, "assistant: %s\n", reply.Content)
			return reply.Content, nil
		}
		for _, call := range reply.ToolCalls {
			fmt.Fprintf(out, "assistant -> %s(%s)\n", call.Function.Name, call.Function.Arguments)
			res, err := c.CallTool(ctx, call.Function.Name, json.RawMessage(call.Function.Arguments), nil)
			content := ""
			var cerr *client.Error
			switch {
			case errors.As(err, &cerr) && cerr.Code != client.CodeCancelled:
				// Let the model see what went wrong (bad arguments, timeout, ...).
				content = fmt.Sprintf("error %s: %s", cerr.Code, cerr.Message)
			case err != nil:
				return "", err
			default:
				content = res.OutputString() // openai format: a string
			}
			fmt.Fprintf(out, "tool: %s\n", content)
			history = append(history, message{Role: "tool", ToolCallID: call.ID, Content: content})
		}
	}
	return "", errors.New("no answer after 4 turns")
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := run(ctx, os.Stdout, "hello from the agent loop"); err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
}
