// Package client is the Go thin client of mcp-sidecar: it spawns the sidecar
// binary, speaks host protocol v1 (JSON-RPC 2.0, one message per line) on its
// stdin/stdout, and exposes every method as a typed call taking a
// context.Context.
//
//	c, err := client.Start(ctx, client.Options{ToolFormat: client.FormatOpenAI})
//	if err != nil { ... }
//	defer c.Close(context.Background())
//	st, err := c.AddServer(ctx, "fx", client.ServerConfig{Command: "mcp-fixture"}, nil)
//	tools, err := c.ListTools(ctx, nil)
//	res, err := c.CallTool(ctx, "mcp__fx__echo", map[string]any{"message": "hi"}, nil)
//
// The protocol is specified in proto/PROTOCOL.md of the mcp-sidecar
// repository; this package follows it and adds nothing to the wire.
//
// # Files
//
// Each file owns one job: doc.go (this overview), discover.go (finding the
// binary), linereader.go (bounded line reading of the sidecar's stdout),
// generated.go (the protocol's types and error codes, generated from
// proto/schema by clients/codegen/generate.py), errors.go (the one error
// type and the client's own codes), types.go (methods of the generated
// types and the call options), options.go (Start options and defaults), client.go (process,
// request ids, pending responses, cancellation), writer.go (the goroutine
// owning stdin), reader.go (the goroutine draining stdout), methods.go (the
// typed calls of servers and tools), surface.go (resources, prompts,
// completion, log levels), notifications.go (the notifications and their
// typed views), queue.go (the bounded drop-oldest queue behind
// Notifications and Logs), progress.go (routing progress to its call),
// handlers.go (the host's handlers for the sidecar's requests and the
// capabilities they declare), sidecarlog.go (the sidecar's own log lines
// as slog records), serve.go (running them: one mechanism for
// every method), roots.go (the roots list and SetRoots), close.go
// (shutdown, wait, kill) and generate.go (the go generate step that ships a
// locally built binary in bin/).
//
// # Concurrency
//
// A Client is safe for use by many goroutines at once. Requests get unique
// integer ids and responses are matched by id, so they may complete in any
// order. One writer goroutine owns the sidecar's stdin; one reader goroutine
// always drains its stdout, so a slow consumer of one call never blocks
// another call or the sidecar.
//
// # Requests from the sidecar
//
// Options.Handlers answer the requests servers send their client
// (sampling/createMessage, elicitation/create, roots/list) and the
// sidecar's own auth/authorize; each one set declares its capability in
// initialize, and none set declares nothing. Each request runs its handler
// on its own goroutine, so the reader never waits for one; the sidecar's
// notifications/cancelled cancels the handler's context and nothing is
// sent.
//
// # Cancellation
//
// Cancelling (or timing out) the context of a call returns at once with an
// *Error whose Code is CodeCancelled and which matches
// errors.Is(err, context.Canceled) (or context.DeadlineExceeded); the
// client then sends notifications/cancelled {requestId} so the sidecar stops
// the work (and, for tools/call, tells the MCP server). A late response is
// dropped.
//
// # The sidecar's own logs
//
// By default the sidecar logs at level warn, as JSON lines on its stderr
// that the client reads and hands to Options.Logger (slog.Default() when
// nil) as records with the sidecar's level, message, timestamp and fields.
// Options.LogLevel changes the level; Options.Stderr takes the raw text
// instead.
//
// # Lifetime and the missing-Close case (design note)
//
// Close sends shutdown and closes stdin behind it, waits for the sidecar to
// exit and kills it after Options.CloseTimeout. There is deliberately no finalizer: a finalizer runs
// at an unpredictable time (or never, at process exit), cannot wait for a
// child, and would hide a missing Close. Instead the design relies on the
// operating system: the client holds the only write end of the sidecar's
// stdin (the pipe is close-on-exec, so no other child inherits it). When the
// host process exits or dies for any reason, the kernel closes that end, the
// sidecar reads EOF, stops every MCP server (process groups included) and
// exits 0. A Client that is merely dropped while the host keeps running
// leaks the sidecar until the host exits: call Close.
package client
