//! Every bound the sidecar applies, in one place, with the reason for its value.
//!
//! Per-server values here are defaults; a server's config may override them (see `config::ServerSpec`).

use std::time::Duration;

/// Longest line accepted from the host on stdin (`--max-line-bytes` overrides it).
pub const DEFAULT_HOST_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Longest JSON-RPC message accepted from one MCP server (`maxMessageBytes`).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 2 * 1024 * 1024;

/// Largest tool result accepted from one MCP server (`maxResultBytes`); seed 000 fixes 256 KiB.
/// Under `resultPolicy: "truncate"` it is the budget a larger result is cut to instead.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 256 * 1024;

/// Total bytes of full texts kept for `results/read` (truncated results); least recently read
/// goes first. A text larger than this is not kept at all.
pub const RESULT_STORE_MAX_BYTES: usize = 64 * 1024 * 1024;

/// How long a kept full text lives after it was stored or last read.
pub const RESULT_STORE_TTL: Duration = Duration::from_secs(10 * 60);

/// Most bytes one `results/read` returns (and what it returns without `length`).
pub const RESULT_READ_MAX_BYTES: usize = 256 * 1024;

// Bounds of schema conversion (nesting depth, `$ref` chain length, nodes produced per tool) live
// with the pure conversion code in `convert::schema::notes`, which imports nothing of the crate.

/// Time allowed for spawn + `initialize` + `notifications/initialized` + every page of `tools/list`.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Time allowed for one `tools/call` unless the host passes `timeoutMs`.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// The hard bound of a call whose timeout restarts on progress (`resetTimeoutOnProgress`) when
/// neither the host (`maxTotalTimeoutMs`) nor the config (`maxTotalTimeoutSeconds`) gives one (or
/// the call's own timeout, if longer): a server that reports progress forever cannot hold a call
/// forever.
pub const DEFAULT_MAX_TOTAL_TOOL_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Bytes of each server's stderr kept for status and error reports.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// Size of one read from a server's stderr pipe; stderr is drained in chunks, never by line,
/// so a server that floods stderr without newlines costs a fixed amount of memory.
pub const STDERR_CHUNK_BYTES: usize = 8 * 1024;

/// Pages of `tools/list` followed before a server is declared broken (a cursor loop must end).
pub const TOOLS_LIST_MAX_PAGES: usize = 64;

/// Longest `tools/search` query (and `search_tools` meta-tool query), in bytes: a query is cut
/// into terms and looked up once each, so this bounds a search's work.
pub const SEARCH_QUERY_MAX_BYTES: usize = 4096;

/// Matches `tools/search` returns without a `limit`, and the most it returns with one.
pub const SEARCH_DEFAULT_LIMIT: usize = 10;
pub const SEARCH_MAX_LIMIT: usize = 100;

/// Tools accepted from one server; beyond this the server is rejected rather than trusted.
pub const MAX_TOOLS_PER_SERVER: usize = 4096;

/// Stop sequence: after closing a server's stdin, how long it may take to exit on its own.
pub const STOP_AFTER_STDIN_CLOSE: Duration = Duration::from_secs(1);

/// Stop sequence: after SIGTERM to the process group, how long before SIGKILL.
pub const STOP_AFTER_SIGTERM: Duration = Duration::from_secs(2);

/// Stop sequence: after SIGKILL, how long to wait for the kernel to report the exit.
pub const STOP_AFTER_SIGKILL: Duration = Duration::from_secs(2);

/// Messages queued for the single stdout writer before producers wait (backpressure on the host).
pub const HOST_OUTBOX_CAPACITY: usize = 1024;

/// Bytes of lines queued for the single stdout writer before producers wait: with
/// [`HOST_OUTBOX_CAPACITY`], what waits for a peer that does not read is bounded in bytes as well
/// as in messages. A longer line waits until the queue is empty.
pub const HOST_OUTBOX_BYTES: usize = 8 * 1024 * 1024;

/// Bytes of answers the host's requests may hold at once, made and not yet queued for the writer.
/// A request reserves [`HOST_ANSWER_RESERVE_BYTES`] of it before its handler runs (waiting while
/// none is left) and fits the reservation to its answer once made; so a host that does not read
/// holds back the calls that would make answers, not only the lines it has yet to read.
pub const HOST_ANSWER_BYTES: usize = 128 * 1024 * 1024;

/// What a request reserves of [`HOST_ANSWER_BYTES`] before it runs (128 requests at once before
/// the next waits; `ping`, `servers/remove`, `servers/logout` and `logging/setLevel`, whose
/// answers are a few bytes, reserve nothing): a `tools/call` answer carries its result up to three
/// times (`content`, `text`, `output`), and 1 MiB holds that for the default `maxResultBytes`. An
/// answer found larger gives its reservation back and waits for its whole size.
pub const HOST_ANSWER_RESERVE_BYTES: usize = 1024 * 1024;

/// Once the session stops (stdin ended, a signal, `shutdown`): how long a write to stdout may make
/// no progress before the writer gives up and drops what is left, so a peer that closed stdin and
/// never reads cannot hold the sidecar's exit. A peer that keeps reading, however slowly, gets all.
pub const STDOUT_STALL_AT_STOP: Duration = Duration::from_secs(2);

/// Requests from the host in flight at once (`--max-inflight` overrides it). Past it the sidecar
/// reads no more of stdin until one is answered: the host's writes block (pushback, no error).
pub const DEFAULT_HOST_MAX_INFLIGHT: usize = 4096;

/// Bytes of request lines the host's requests in flight hold between them; past it, as past
/// [`DEFAULT_HOST_MAX_INFLIGHT`], the reader waits. A line larger than this waits for all of it.
pub const HOST_INFLIGHT_LINE_BYTES: usize = 64 * 1024 * 1024;

/// `tools/call`s in flight on one server at once (`maxInflight` overrides it); past it a call is
/// refused with OVERLOADED, so that one stalled server cannot take every slot of the session.
pub const DEFAULT_SERVER_MAX_INFLIGHT: usize = 1024;

/// Registry events (status and tools changes) kept one by one while they wait for the host; past
/// this many waiting, a server's new status replaces its last one waiting and tools changes fold
/// together (`supervisor::events`), so a host that does not read cannot make them pile up.
pub const EVENTS_QUEUED_BEFORE_COALESCING: usize = 256;

/// Requests the sidecar has sent the host and waits on (a server's sampling, elicitation or roots
/// request, asked of the host). Past it a new one is not sent: the server is answered -32000 at
/// once, so servers cannot pile questions up on a host that does not answer.
pub const HOST_REQUESTS_MAX_OUTSTANDING: usize = 256;

/// Bytes of the sidecar's requests waiting for the host's answers (as sent: a sampling request
/// carries its messages); past it a new one is refused at once (-32000), as past
/// [`HOST_REQUESTS_MAX_OUTSTANDING`], so large questions cannot pile up on a host that does not
/// read or answer.
pub const HOST_REQUESTS_MAX_BYTES: usize = 32 * 1024 * 1024;

/// Bytes of one server's questions waiting for the host's answers; past it that server's next one
/// is refused at once, so one server cannot take all of [`HOST_REQUESTS_MAX_BYTES`].
pub const SERVER_REQUESTS_MAX_BYTES: usize = 8 * 1024 * 1024;

/// How long the sidecar waits for the host to answer one of its requests unless the host says
/// otherwise (`initialize` `answerTimeoutMs`): long enough for a person to answer an elicitation,
/// bounded so that nothing waits forever. The server is then answered -32001 and the host gets
/// `notifications/cancelled`.
pub const DEFAULT_HOST_ANSWER_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Longest `answerTimeoutMs` a host may set.
pub const MAX_HOST_ANSWER_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// Requests from one server session waiting for their answer at once (sampling, elicitation,
/// roots); past it the server is answered -32000 at once, so one server cannot take every slot of
/// [`HOST_REQUESTS_MAX_OUTSTANDING`].
pub const SERVER_REQUESTS_MAX_INFLIGHT: usize = 32;

/// Rounds of one 2026-07-28 request answered with `input_required` (each a new request carrying the
/// inputs asked for); past it the request fails with `PROTOCOL_ERROR` naming the bound. A server
/// that keeps asking is looping, and each round may have asked a person.
pub const INPUT_REQUIRED_MAX_ROUNDS: usize = 10;

/// `inputRequests` in one `input_required` result; more is a protocol error (each becomes a
/// question to the host, and the host's own bound is shared by every server).
pub const INPUT_REQUESTS_MAX: usize = 16;

/// Lines of the host's stdin read ahead of dispatch (read buffer, bytes).
pub const HOST_READ_BUFFER_BYTES: usize = 64 * 1024;

/// Bytes queued for one server's stdin before senders wait (the server is not reading).
pub const SERVER_WRITE_BUFFER_BYTES: usize = 4 * 1024 * 1024;

/// Read buffer for a server's stdout (per server: kept small, 20 servers must fit in a few MB).
pub const SERVER_READ_BUFFER_BYTES: usize = 8 * 1024;

/// Longest server name, in bytes of UTF-8 (a name of another alphabet takes 2-4 a character);
/// what providers see is its bounded prefix (`convert::server_prefix`).
pub const MAX_SERVER_NAME_BYTES: usize = 128;

/// `mcp` mode: how long a config reload waits after the first sign of an edit (a file event,
/// SIGHUP) before reading, so the several events of one save make one reload.
pub const CONFIG_RELOAD_SETTLE: Duration = Duration::from_millis(150);

// ----- supervision -----

/// Restart backoff: the delay before the first automatic restart (`restartBackoffMs` overrides it);
/// each further failure inside [`CRASH_LOOP_WINDOW`] doubles it.
pub const DEFAULT_RESTART_BACKOFF: Duration = Duration::from_secs(1);

/// Restart backoff never waits longer than this, whatever the doubling says.
pub const MAX_RESTART_BACKOFF: Duration = Duration::from_secs(30);

/// Each backoff delay is multiplied by a random factor in `[1 - J, 1 + J]` so that servers that
/// failed together do not restart in lockstep.
pub const RESTART_JITTER: f64 = 0.2;

/// The longest a modern server's `tools/list` `ttlMs` is honoured: a larger hint is held to this,
/// so a list is checked again at least this often while the host keeps asking for it.
pub const MAX_LIST_TTL: Duration = Duration::from_secs(24 * 3600);

/// After a failed background re-list of a stale list (the stale list is kept), the first wait
/// before trying again; each further failure doubles it, up to [`MAX_RELIST_BACKOFF`], times a
/// random factor in `1 ± RESTART_JITTER`.
pub const RELIST_BACKOFF: Duration = Duration::from_secs(1);

/// The longest wait between failed background re-lists.
pub const MAX_RELIST_BACKOFF: Duration = Duration::from_secs(300);

/// Failures within [`CRASH_LOOP_WINDOW`] that make a crash loop: the server is left in `error` and
/// only `servers/restart` starts it again.
pub const CRASH_LOOP_FAILURES: usize = 5;

/// The sliding window in which failures are counted (also: a server up this long starts over at the
/// first backoff step).
pub const CRASH_LOOP_WINDOW: Duration = Duration::from_secs(60);

/// Longest wait for the answer to a keepalive `ping` (the wait is `keepaliveSeconds`, clamped to
/// [`KEEPALIVE_PING_TIMEOUT_MIN`, `KEEPALIVE_PING_TIMEOUT`]).
pub const KEEPALIVE_PING_TIMEOUT: Duration = Duration::from_secs(10);

/// Shortest wait for a keepalive answer: a busy machine must not turn a slow `pong` into a restart.
pub const KEEPALIVE_PING_TIMEOUT_MIN: Duration = Duration::from_secs(1);

/// Call latencies kept per server for `p50LatencyMs` (a ring: the most recent calls only).
pub const LATENCY_SAMPLES: usize = 256;

/// Largest schema-cache file read back from disk; a bigger one is treated as a miss.
pub const SCHEMA_CACHE_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Largest era verdict file read back (`store::era_verdicts`): a few fields; anything longer is a
/// miss.
pub const ERA_VERDICT_MAX_BYTES: u64 = 4096;

/// Largest config file, plugin manifest or env file read (`servers/load`, `--config`, `inspect`).
pub const CONFIG_FILE_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Bytes of a process's `/proc/PID/environ` read while looking for its origin marker.
pub const PROC_ENVIRON_MAX_BYTES: u64 = 1024 * 1024;

/// Rounds of find-and-kill for escaped descendants (each round catches what forked during the last).
pub const ESCAPEE_SWEEP_ROUNDS: usize = 4;

/// Poll interval while waiting for a process that is not our child to die where no exit event exists
/// (kernels without pidfds, Unixes without `/proc`); elsewhere a pidfd wakes the waiter.
pub const DEATH_POLL_INTERVAL: Duration = Duration::from_millis(10);

/// How long the sidecar waits for the guardian to exit after `bye`.
pub const GUARDIAN_EXIT_WAIT: Duration = Duration::from_secs(1);

/// Bytes read from one cgroupfs file (`cgroup.procs`, `cgroup.events`) or from
/// `/proc/self/mountinfo` and `/proc/self/cgroup` while finding the cgroup2 hierarchy.
pub const CGROUP_FILE_MAX_BYTES: u64 = 1024 * 1024;

/// Cgroups walked below one server's (or the sidecar's) cgroup when listing, killing or removing
/// it: a server may create cgroups of its own where it may write.
pub const CGROUP_WALK_MAX_DIRS: usize = 1024;

// ----- remote (HTTP) servers -----

/// Messages read from a remote server and not yet taken by its session (backpressure on the reads).
pub const HTTP_INBOUND_QUEUE: usize = 64;

/// Messages queued for a remote server before senders wait.
pub const HTTP_OUTBOUND_QUEUE: usize = 64;

/// Wait before resuming a dropped event stream when the server gave no `retry:`.
pub const SSE_DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// Longest `retry:` honoured; a server cannot park a request for longer per reconnect.
pub const SSE_MAX_RETRY: Duration = Duration::from_secs(30);

/// Reconnects of one event stream in a row without receiving an event; then it is given up.
pub const SSE_MAX_RECONNECTS: usize = 5;

/// Longest `Mcp-Session-Id` accepted (it is echoed on every request).
pub const HTTP_SESSION_ID_MAX_BYTES: usize = 1024;

/// Bytes of an HTTP error body quoted in an error message.
pub const HTTP_ERROR_EXCERPT_BYTES: usize = 512;

/// Same-origin redirects followed per request (cross-origin ones are refused outright).
pub const HTTP_MAX_REDIRECTS: usize = 5;

/// Time allowed for `DELETE` of the session on stop (within the stop sequence's first step).
pub const HTTP_DELETE_TIMEOUT: Duration = Duration::from_millis(900);

// ----- OAuth for remote servers -----

/// Longest answer read from an OAuth endpoint (metadata, registration, token): small JSON documents.
pub const OAUTH_MAX_RESPONSE_BYTES: usize = 256 * 1024;

/// Time allowed for one request to an OAuth endpoint (metadata, registration, token).
pub const OAUTH_HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// An access token is refreshed this long before it expires (at most half its lifetime, so a
/// short-lived token is not refreshed on every request).
pub const OAUTH_REFRESH_SKEW: Duration = Duration::from_secs(60);

/// How long a login waits for the browser step (the host's answer or the loopback callback).
pub const OAUTH_LOGIN_TIMEOUT: Duration = Duration::from_secs(600);

/// Authorizations (logins and scope step-ups) in a row without a request succeeding in between;
/// then the server needs a login asked for by the host or a person (no authorization loop).
pub const OAUTH_MAX_AUTHORIZATIONS: usize = 3;

/// Step-up logins one request may go through (`403 insufficient_scope`, then a login, then the
/// request again); then it fails.
pub const OAUTH_STEP_UPS_PER_REQUEST: usize = 2;

/// Longest access or refresh token accepted (one is sent in a header with every request).
pub const OAUTH_MAX_TOKEN_BYTES: usize = 16 * 1024;

/// Scopes kept for one server (its challenges accumulate over step-ups).
pub const OAUTH_MAX_SCOPES: usize = 64;

/// Largest token store file read.
pub const OAUTH_STORE_MAX_BYTES: u64 = 1024 * 1024;

/// Connections the loopback callback listener serves at once.
pub const OAUTH_CALLBACK_MAX_CONNECTIONS: usize = 8;

/// Time a connection to the loopback callback listener has to send its request.
pub const OAUTH_CALLBACK_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Largest request head the loopback callback listener reads.
pub const OAUTH_CALLBACK_MAX_HEAD_BYTES: usize = 16 * 1024;

// ----- resources, prompts, completion, server logs -----

/// Pages of `resources/list`, `resources/templates/list` or `prompts/list` followed on one server
/// within one listing (seed 003 caps it too); past it that server's listing ends with an error
/// entry rather than following a cursor loop forever.
pub const SURFACE_LIST_MAX_PAGES: usize = 64;

/// Items after which a host page of a listing ends (at the next downstream page boundary); the
/// rest follows through the sidecar's `nextCursor`.
pub const SURFACE_PAGE_ITEMS: usize = 500;

/// Bytes of downstream answers after which a host page of a listing ends (at a page boundary), so
/// a page of huge items from many servers cannot grow one answer without bound.
pub const SURFACE_PAGE_BYTES: usize = 4 * 1024 * 1024;

/// Longest resource URI accepted from the host (`resources/read`, `subscribe`) or forwarded from a
/// server (`notifications/resources/updated`).
pub const RESOURCE_URI_MAX_BYTES: usize = 8 * 1024;

/// Resource subscriptions kept per server (re-subscribed after each restart).
pub const RESOURCE_SUBSCRIPTIONS_MAX: usize = 1024;

/// Values of one `completion/complete` answer passed on (the MCP limit); more are cut and
/// `hasMore` is set.
pub const COMPLETION_MAX_VALUES: usize = 100;

/// Bytes of one server log message's `data` (as compact JSON) passed to the host; a longer one is
/// cut to a string of this many bytes, so a log storm cannot hold large messages in the queue.
pub const SERVER_LOG_MAX_BYTES: usize = 16 * 1024;

/// While the host is not reading, distinct `notifications/resources/updated` kept waiting per
/// server; past it they fold into one without a `uri` ("re-read your subscriptions").
pub const RESOURCE_UPDATES_WAITING_PER_SERVER: usize = 16;

/// Distinct tool names whose definitions one server's ledger remembers (to report a definition
/// that changed, and under `pinTools` the accepted one). Past it, without pinning, names no longer
/// listed are forgotten; under pinning, a tool never seen before is held for the host's acceptance
/// like a changed one, so churning names cannot push accepted definitions out.
pub const PINNED_TOOL_NAMES_MAX: usize = 4 * MAX_TOOLS_PER_SERVER;

// ----- the aggregate as one MCP server (`mcp-sidecar mcp`) -----

/// Changes of the aggregate (its tool list) waiting for each listening client; one that falls
/// further behind is told once that the list changed, which is all it needs to know.
pub const AGGREGATE_NOTICES_QUEUE: usize = 64;

/// Resource URIs, URI templates and prompt names whose owning server the aggregate remembers from
/// its listings (`mcp` mode); past it they are forgotten and a request naming one asks the servers
/// again, so a server listing without end cannot grow the map.
pub const AGGREGATE_OWNERS_MAX: usize = 64 * 1024;

/// Resource URIs one `mcp` client (a legacy session, or one `subscriptions/listen`) may be
/// subscribed to at once.
pub const AGGREGATE_SUBSCRIPTIONS_MAX: usize = RESOURCE_SUBSCRIPTIONS_MAX;

/// The servers' log messages waiting for each client that takes them (`mcp` mode); past it the
/// oldest are dropped and the client is told how many, in a warning of the sidecar's own.
pub const AGGREGATE_LOGS_QUEUE: usize = 256;

/// Longest `instructions` the aggregate gives a client: every server's own, each under its name,
/// cut at this many bytes (they go into a model's system prompt).
pub const AGGREGATE_INSTRUCTIONS_MAX_BYTES: usize = 32 * 1024;

/// Longest `initialize`, `server/discover` or a list waits for the config's servers to start while
/// they load, so that the instructions and tools of those quick to start are in it; past it, it
/// answers with those ready (hosts give a connection a few seconds) and the slow ones are
/// announced as they become ready (`mcp --wait-for-servers`: lists wait for every server).
pub const AGGREGATE_INITIALIZE_WAIT: Duration = Duration::from_secs(3);

/// Longest a server's question waits for the aggregate's client's answer (a person may be answering
/// an elicitation); then the server gets -32001.
pub const AGGREGATE_ANSWER_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The sidecar's requests one client of the aggregate may have to answer at once; past it a server's
/// question is refused at once (-32000).
pub const AGGREGATE_REQUESTS_MAX_OUTSTANDING: usize = 256;

/// 2026-07-28 calls parked at once while their clients answer a server's questions
/// (`input_required`); past it a question is refused at once.
pub const AGGREGATE_PARKED_MAX: usize = 256;

/// Connections the HTTP endpoint serves at once; past it a new one takes the slot of the
/// connection that has waited or read a body longest (one serving keeps its slot), else it waits in
/// the listen queue.
pub const AGGREGATE_HTTP_MAX_CONNECTIONS: usize = 256;

/// GET streams of legacy sessions open at once (each holds a connection for as long as it lasts);
/// past it a GET is refused 503, so streams never take every connection from requests.
pub const AGGREGATE_HTTP_MAX_STREAMS: usize = 128;

/// Time a connection may wait for its next request's head (new, or idle after a response); by
/// default the same as [`AGGREGATE_HTTP_HEADER_TIMEOUT`], which hyper also counts from the end of
/// the previous response (`--http-idle-timeout-ms` can only shorten it).
pub const AGGREGATE_HTTP_IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Time a client has to send a request's body once its head is in.
pub const AGGREGATE_HTTP_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Bytes of request bodies being read, across every connection, held at once; a body takes its
/// bytes as they arrive (a body that only trickles holds only what it sent).
pub const AGGREGATE_HTTP_READING_BYTES: usize = 64 * 1024 * 1024;

/// Legacy (2025-era) sessions kept at once; past it the least recently used idle one is ended.
pub const AGGREGATE_HTTP_MAX_SESSIONS: usize = 1024;

/// Bytes of a `--replica` name (the prefix of every session id it makes; a pod name is at most 63).
pub const MAX_REPLICA_NAME_BYTES: usize = 63;

/// Time a client has to send a request's headers (a connection that trickles them is dropped).
pub const AGGREGATE_HTTP_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Bytes of a request's head (request line and headers) read before it is refused.
pub const AGGREGATE_HTTP_MAX_HEAD_BYTES: usize = 64 * 1024;

/// Messages queued on one response stream (SSE) before the request producing them waits: a client
/// that does not read holds back only its own request.
pub const AGGREGATE_HTTP_STREAM_QUEUE: usize = 64;

/// How long `mcp --http` lets the requests in flight finish once a stop begins (SIGTERM, the end of
/// the pipe that started it) before it answers those left with `SHUTTING_DOWN`
/// (`--drain-timeout-ms`): below Kubernetes' default grace of 30 s.
pub const AGGREGATE_HTTP_DRAIN_TIMEOUT: Duration = Duration::from_secs(25);

/// Servers `/readyz` names in its 503 body (the rest are counted): a probe's answer stays small
/// however many servers a config holds.
pub const AGGREGATE_READYZ_MAX_NAMES: usize = 32;

// ----- tasks (MCP 2025-11-25: tools that must run as a task) -----

/// Wait between two `tasks/get` when the server suggests no `pollInterval` (a
/// `notifications/tasks/status` for the task ends the wait early).
pub const TASK_POLL_INTERVAL_DEFAULT: Duration = Duration::from_secs(1);

/// Shortest wait between two `tasks/get`, whatever `pollInterval` the server suggests (a server
/// asking for 0 would have the sidecar spin).
pub const TASK_POLL_INTERVAL_MIN: Duration = Duration::from_millis(20);

/// Longest wait between two `tasks/get`, whatever `pollInterval` the server suggests, so a task
/// that ends is noticed within this long even without a status notification.
pub const TASK_POLL_INTERVAL_MAX: Duration = Duration::from_secs(5);

/// `tasks/get` sent for one task at most; past it the call fails (PROTOCOL_ERROR) and the task is
/// cancelled. The call's own timeout usually ends it long before.
pub const TASK_MAX_POLLS: usize = 100_000;

/// Time one `tasks/get` has for its answer (a status is not work: a server that cannot say it in
/// this long is not answering).
pub const TASK_GET_TIMEOUT: Duration = Duration::from_secs(30);

/// Time the `tasks/cancel` of a task whose call ended (timeout, host cancel) waits for the
/// server's answer before it is forgotten; nobody waits on it.
pub const TASK_CANCEL_WAIT: Duration = Duration::from_secs(10);

/// Longest task id accepted from a server; a longer one is a protocol error.
pub const TASK_ID_MAX_BYTES: usize = 1024;

/// Bytes of a task's `statusMessage` quoted in an error (the rest is cut).
pub const TASK_STATUS_MESSAGE_MAX_BYTES: usize = 1024;

// ----- configuration loading (`servers/load`, `--config`, `servers/add`) -----

/// Most `args` one server may have. A command line longer than a few hundred words is not a
/// config someone wrote; a hostile repository's 1.3 million one-letter args cost 100 bytes of
/// memory each before anything is approved (the kernel's own `ARG_MAX` would refuse them later).
pub const CONFIG_ARGS_MAX: usize = 1024;

/// Most bytes one server's `args` hold together (after `${…}` expansion): Linux gives a whole
/// command line and environment 2 MiB, and the trust request shows every byte of it twice.
pub const CONFIG_ARGS_MAX_BYTES: usize = 256 * 1024;

/// Most entries of one server's `env` (and of any other map of strings in its config: `headers`).
pub const CONFIG_ENV_MAX: usize = 1024;

/// Most bytes of one server's `env` (names and values together, an `envFile`'s included): a
/// process gets 2 MiB of args and environment on Linux, and a value of a few megabytes read from an
/// env file would be held by every server naming it.
pub const CONFIG_ENV_MAX_BYTES: usize = 256 * 1024;

/// Most items of any other list in a server's config (`includeTools`, `secretEnv`, …): as many as
/// a server may have tools.
pub const CONFIG_LIST_MAX: usize = MAX_TOOLS_PER_SERVER;

/// Most fields one server entry of a config file may have (each unknown one is a diagnostic; every
/// dialect defines fewer than 100).
pub const CONFIG_ENTRY_MAX_FIELDS: usize = 256;

/// Bytes of config files and plugin manifests one `servers/load` (or one `--config` path) reads
/// together; the files past it are not read, each reported with an error naming this bound. One
/// file alone is bounded by [`CONFIG_FILE_MAX_BYTES`], a folder scan by 256 files.
pub const CONFIG_LOAD_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Most servers one `servers/load` (or one `--config` path) adds; the rest of each file past it
/// is reported in one error. Each server costs a trust request and a supervisor whatever its
/// config's size, so a few megabytes of two-line servers would otherwise cost gigabytes.
pub const CONFIG_LOAD_MAX_SERVERS: usize = 1024;

/// Largest `servers/load` answer (its statuses, trust requests and diagnostics as JSON); what does
/// not fit is left out and one error diagnostic counts it, so a repository of hostile configs
/// cannot make the host read tens of megabytes.
pub const SERVERS_LOAD_ANSWER_MAX_BYTES: usize = 8 * 1024 * 1024;

/// Pages of a listing (`resources`, `prompts`) the commands for people follow across every
/// server; each page is bounded already ([`SURFACE_PAGE_ITEMS`], [`SURFACE_PAGE_BYTES`]).
pub const CLI_SURFACE_MAX_PAGES: usize = 256;

/// Egress proxy (`sandbox.network.allow`): the largest request head a server may send it (request
/// line and headers; a larger one is answered 431 and the connection closed). Proxy requests are a
/// line and a few headers; 8 KiB is the smallest buffer hyper accepts, and a common server default.
pub const EGRESS_HEAD_MAX_BYTES: usize = 8 * 1024;

/// Egress proxy: headers in one request head.
pub const EGRESS_MAX_HEADERS: usize = 64;

/// Egress proxy: time a request head may take to arrive whole (a slow-loris head is cut off).
pub const EGRESS_HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// Egress proxy: connections open at once per proxy (one proxy per server); one more is answered
/// 503 and closed rather than left waiting in the listen queue.
pub const EGRESS_MAX_CONNECTIONS: usize = 64;

/// Egress proxy: a tunnel or forwarded exchange with no byte either way for this long is closed.
pub const EGRESS_IDLE_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Egress proxy: time to resolve an allowed host and connect to it.
pub const EGRESS_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Egress proxy: one read of a tunnel, each way.
pub const EGRESS_TUNNEL_BUFFER_BYTES: usize = 16 * 1024;

/// Egress proxy: the largest response head accepted from a host a plain request was forwarded to.
pub const EGRESS_RESPONSE_HEAD_MAX_BYTES: usize = 64 * 1024;

/// Egress proxy: patterns in one allow list, and hosts counted separately in its statistics (the
/// rest are counted under `(other)`), so a server naming ever new hosts costs a fixed amount.
pub const EGRESS_MAX_PATTERNS: usize = 256;
pub const EGRESS_STATS_MAX_HOSTS: usize = 256;

/// Largest `--access` file the gateway reads (its clients, their token sources and rules).
pub const ACCESS_FILE_MAX_BYTES: u64 = 1024 * 1024;

/// Most clients one `--access` file names.
pub const ACCESS_MAX_CLIENTS: usize = 1024;

/// Largest token file a client of the `--access` file names (one token per line: several during a
/// rotation).
pub const ACCESS_TOKEN_FILE_MAX_BYTES: u64 = 64 * 1024;

/// Bytes of a call's (masked) arguments one audit line holds; longer ones are cut, the line
/// saying how long they were.
pub const AUDIT_ARGUMENTS_MAX_BYTES: usize = 4096;

/// Distinct tool names one server's call-duration histogram keeps a series for on `/metrics`;
/// calls of the tools past it share `tool="_other"`. A server can list any number of tools, and
/// each series costs memory here and in every scraper.
pub const METRICS_TOOLS_PER_SERVER: usize = 100;

/// Distinct servers `/metrics` keeps call series for; the rest share `server="_other"`. Servers
/// come from the config (and `servers/add`), so this is a net, not the usual bound.
pub const METRICS_SERVERS_MAX: usize = 1024;

/// Largest package archive (an npm tarball, a PyPI wheel or sdist) the sidecar downloads for a
/// `package` server; it is hashed as it arrives and refused past this.
pub const PACKAGE_ARCHIVE_MAX_BYTES: u64 = 128 * 1024 * 1024;

/// Largest registry metadata document read for one package version (npm's version document,
/// PyPI's JSON for one release, an attestation bundle).
pub const PACKAGE_METADATA_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// How long a `package` server's first fetch may take in all: metadata, archive, and the package
/// manager installing its dependencies. It blocks that server's start only.
pub const PACKAGE_FETCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// Bytes of a package manager's stderr kept for the error of a failed install (the rest is read
/// and dropped, so the tool never blocks on a full pipe).
pub const PACKAGE_TOOL_OUTPUT_BYTES: usize = 64 * 1024;

/// Distinct access rule sets whose `tools/list` listing the gateway keeps ready as text per
/// catalog; past it the oldest is dropped (and rebuilt when its client lists again).
pub const UPSTREAM_LISTINGS_MAX: usize = 64;

/// Largest `oauth.tokenFile` read (a bare token, or a token store record).
pub const OAUTH_TOKEN_FILE_MAX_BYTES: u64 = 256 * 1024;
