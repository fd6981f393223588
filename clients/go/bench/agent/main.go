// Command agent is one side of the framework benchmark (see ../run.sh): an
// agent process that starts the MCP servers of -servers and offers their
// tools to one framework, either through mcp-sidecar and this repository's
// adapter (-via sidecar) or through the framework's own MCP route (-via
// native): the official Go MCP SDK, one session per server, with
// anthropic-sdk-go's mcp.NewBetaTools for anthropic-sdk-go and the few lines
// of glue a user writes for openai-go and LangChainGo, which ship no MCP
// client.
//
// It prints "ready <tools>" once the first tool list is in the framework's
// types, then "calls <n> <seconds>" after n sequential calls of -tool
// through the framework's tool interface, then "hold", and waits to be
// killed (the driver sends SIGKILL and counts what it left behind).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	anthropicmcp "github.com/anthropics/anthropic-sdk-go/mcp"
	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/adapters/anthropicgo"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/adapters/langchaingo"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/adapters/openaigo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tmc/langchaingo/tools"
)

// server is one entry of the servers file (the mcpServers shape).
type server struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// caller is one tool, called through the framework's interface.
type caller func(ctx context.Context) error

func main() {
	framework := flag.String("framework", "openai-go", "openai-go, anthropic-sdk-go or langchaingo")
	via := flag.String("via", "sidecar", "sidecar or native")
	serversFile := flag.String("servers", "", "JSON file: {name: {command, args, env}}")
	tool := flag.String("tool", "everything/echo", "server/tool called in the loop")
	argsJSON := flag.String("args", `{"message":"hi"}`, "the call's arguments")
	calls := flag.Int("calls", 200, "sequential calls")
	flag.Parse()

	raw, err := os.ReadFile(*serversFile)
	fail(err)
	var servers map[string]server
	fail(json.Unmarshal(raw, &servers))
	serverName, toolName, _ := strings.Cut(*tool, "/")
	ctx := context.Background()

	var count int
	var call caller
	if *via == "sidecar" {
		count, call = viaSidecar(ctx, *framework, servers, serverName, toolName, *argsJSON)
	} else {
		count, call = viaNative(ctx, *framework, servers, serverName, toolName, *argsJSON)
	}
	fmt.Printf("ready %d\n", count)

	start := time.Now()
	for i := 0; i < *calls; i++ {
		fail(call(ctx))
	}
	fmt.Printf("calls %d %.6f\n", *calls, time.Since(start).Seconds())
	fmt.Println("hold")
	select {}
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// viaSidecar starts the sidecar, loads every server and lists the tools
// through the adapter.
func viaSidecar(ctx context.Context, framework string, servers map[string]server, serverName, toolName, args string) (int, caller) {
	c, err := client.Start(ctx, client.Options{Stderr: io.Discard})
	fail(err)
	res, err := c.LoadServers(ctx, client.LoadRequest{JSON: map[string]any{"mcpServers": servers}})
	fail(err)
	for _, d := range res.Diagnostics {
		if d.Severity == "error" {
			fail(fmt.Errorf("servers file: %s", d.Message))
		}
	}
	if len(res.Added) != len(servers) {
		fail(fmt.Errorf("%d of %d servers added", len(res.Added), len(servers)))
	}
	for _, st := range res.Added {
		if st.State != client.StateReady {
			fail(fmt.Errorf("server %s is %s: %v", st.Name, st.State, st.LastError))
		}
	}
	exposed := "mcp__" + serverName + "__" + toolName
	switch framework {
	case "openai-go":
		ts := openaigo.New(c)
		list, err := ts.ChatTools(ctx)
		fail(err)
		toolCall := chatToolCall(exposed, args)
		return len(list), func(ctx context.Context) error {
			_, err := ts.ChatToolMessages(ctx, []openai.ChatCompletionMessageToolCallUnion{toolCall})
			return err
		}
	case "anthropic-sdk-go":
		list, err := anthropicgo.New(c).BetaTools(ctx)
		fail(err)
		return len(list), betaCaller(list, exposed, args)
	default:
		list, err := langchaingo.New(c).Tools(ctx)
		fail(err)
		return len(list), langchainCaller(list, exposed, args)
	}
}

// viaNative connects one MCP SDK session per server, all at once, and
// lists each one's tools.
func viaNative(ctx context.Context, framework string, servers map[string]server, serverName, toolName, args string) (int, caller) {
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	sort.Strings(names)
	sessions := make(map[string]*mcp.ClientSession, len(servers))
	listed := make(map[string][]*mcp.Tool, len(servers))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := servers[name]
			cmd := exec.Command(spec.Command, spec.Args...)
			cmd.Env = os.Environ()
			for k, v := range spec.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			mc := mcp.NewClient(&mcp.Implementation{Name: "bench-agent", Version: "0"}, nil)
			session, err := mc.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			fail(err)
			res, err := session.ListTools(ctx, nil)
			fail(err)
			mu.Lock()
			sessions[name], listed[name] = session, res.Tools
			mu.Unlock()
		}()
	}
	wg.Wait()
	session := sessions[serverName]
	switch framework {
	case "openai-go":
		// The glue a user writes: tools named server__tool, calls routed back.
		var params []openai.ChatCompletionToolUnionParam
		for _, name := range names {
			for _, t := range listed[name] {
				schema, _ := json.Marshal(t.InputSchema)
				var parameters map[string]any
				_ = json.Unmarshal(schema, &parameters)
				params = append(params, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
					Name: name + "__" + t.Name, Description: openai.String(t.Description), Parameters: parameters}))
			}
		}
		toolCall := chatToolCall(serverName+"__"+toolName, args)
		return len(params), func(ctx context.Context) error {
			fn := toolCall.AsFunction().Function
			srv, name, _ := strings.Cut(fn.Name, "__")
			res, err := sessions[srv].CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(fn.Arguments)})
			if err != nil {
				return err
			}
			var text []string
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					text = append(text, t.Text)
				}
			}
			_ = openai.ToolMessage(strings.Join(text, "\n"), toolCall.ID)
			return nil
		}
	case "anthropic-sdk-go":
		var all []anthropic.BetaTool
		var target []anthropic.BetaTool
		for _, name := range names {
			list, err := anthropicmcp.NewBetaTools(listed[name], sessions[name])
			fail(err)
			all = append(all, list...)
			if name == serverName {
				target = list
			}
		}
		return len(all), betaCaller(target, toolName, args)
	default:
		var all []tools.Tool
		for _, name := range names {
			for _, t := range listed[name] {
				all = append(all, &nativeTool{session: sessions[name], name: t.Name, description: t.Description})
			}
		}
		return len(all), langchainCaller([]tools.Tool{&nativeTool{session: session, name: toolName}}, toolName, args)
	}
}

func chatToolCall(name, args string) openai.ChatCompletionMessageToolCallUnion {
	raw, _ := json.Marshal(map[string]any{"id": "call_1", "type": "function",
		"function": map[string]string{"name": name, "arguments": args}})
	var call openai.ChatCompletionMessageToolCallUnion
	fail(json.Unmarshal(raw, &call))
	return call
}

func betaCaller(list []anthropic.BetaTool, name, args string) caller {
	for _, t := range list {
		if t.Name() == name {
			return func(ctx context.Context) error {
				_, err := t.Execute(ctx, json.RawMessage(args))
				return err
			}
		}
	}
	fail(fmt.Errorf("no tool %s", name))
	return nil
}

func langchainCaller(list []tools.Tool, name, args string) caller {
	for _, t := range list {
		if t.Name() == name {
			return func(ctx context.Context) error {
				_, err := t.Call(ctx, args)
				return err
			}
		}
	}
	fail(fmt.Errorf("no tool %s", name))
	return nil
}

// nativeTool is the glue a LangChainGo user writes over an MCP SDK session.
type nativeTool struct {
	session           *mcp.ClientSession
	name, description string
}

func (n *nativeTool) Name() string        { return n.name }
func (n *nativeTool) Description() string { return n.description }

func (n *nativeTool) Call(ctx context.Context, input string) (string, error) {
	res, err := n.session.CallTool(ctx, &mcp.CallToolParams{Name: n.name, Arguments: json.RawMessage(input)})
	if err != nil {
		return "", err
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	return strings.Join(text, "\n"), nil
}
