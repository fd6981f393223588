// scenarios_test.go owns the shared behaviour suite: it loads
// ../../proto/scenarios/scenarios.json and runs every scenario in a fresh
// sidecar through the typed API, failing on any unknown op or field.

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

const scenariosPath = "../../proto/scenarios/scenarios.json"

type scenarioFile struct {
	Version   int        `json:"version"`
	Scenarios []scenario `json:"scenarios"`
}

type scenario struct {
	Name       string                     `json:"name"`
	Initialize scenarioInit               `json:"initialize"`
	Handlers   map[string]scenarioHandler `json:"handlers"`
	Steps      []json.RawMessage          `json:"steps"`
}

// scenarioHandler is what a scenario's handler for one method does: answer
// with a result, or fail with an error.
type scenarioHandler struct {
	Answer json.RawMessage `json:"answer"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type scenarioInit struct {
	ToolFormat    ToolFormat `json:"toolFormat"`
	NameTemplate  string     `json:"nameTemplate"`
	MaxNameLength int        `json:"maxNameLength"`
}

// step holds the fields of every op; stepFields says which each op allows.
type step struct {
	Op          string          `json:"op"`
	Name        string          `json:"name"`
	FixtureArgs []string        `json:"fixtureArgs"`
	Config      json.RawMessage `json:"config"`
	Wait        *bool           `json:"wait"`
	Format      ToolFormat      `json:"format"`
	Servers     []string        `json:"servers"`
	Tool        string          `json:"tool"`
	Arguments   json.RawMessage `json:"arguments"`
	TimeoutMs   int64           `json:"timeoutMs"`
	Count       int             `json:"count"`
	Message     string          `json:"message"`
	Method      string          `json:"method"`
	Server      string          `json:"server"`
	As          string          `json:"as"`
	Pids        []string        `json:"pids"`
	URI         string          `json:"uri"`
	Params      json.RawMessage `json:"params"`
	Level       string          `json:"level"`
	Query       string          `json:"query"`
	Limit       int             `json:"limit"`
	Roots       []Root          `json:"roots"`
	Progress    bool            `json:"progress"`
	LastProg    json.RawMessage `json:"expectLastProgress"`
	Expect      json.RawMessage `json:"expect"`
	ExpectCount *int            `json:"expectCount"`
	ExpectError string          `json:"expectError"`
}

var stepFields = map[string][]string{
	"addServer":          {"name", "fixtureArgs", "config", "wait", "expect", "expectError"},
	"removeServer":       {"name", "expect", "expectError"},
	"restartServer":      {"name", "expect", "expectError"},
	"listServers":        {"expect", "expectError"},
	"listTools":          {"format", "servers", "expect", "expectCount", "expectError"},
	"callTool":           {"tool", "arguments", "timeoutMs", "progress", "expectLastProgress", "expect", "expectError"},
	"callConcurrently":   {"tool", "count", "message"},
	"cancelCall":         {"tool", "arguments"},
	"expectNotification": {"method", "expect"},
	"rememberPid":        {"server", "as"},
	"shutdown":           {},
	"expectDead":         {"pids"},

	"listResources":         {"server", "expect", "expectError"},
	"listResourceTemplates": {"server", "expect", "expectError"},
	"listPrompts":           {"server", "expect", "expectError"},
	"readResource":          {"server", "uri", "expect", "expectError"},
	"subscribeResource":     {"server", "uri", "expect", "expectError"},
	"unsubscribeResource":   {"server", "uri", "expect", "expectError"},
	"getPrompt":             {"server", "name", "arguments", "expect", "expectError"},
	"complete":              {"params", "expect", "expectError"},
	"setLogLevel":           {"level", "server", "expect", "expectError"},
	"expectLog":             {"expect"},
	"expectNoLog":           {"expect"},
	"searchTools":           {"query", "limit", "expect", "expectError"},
	"serverStats":           {"expect", "expectError"},
	"setRoots":              {"roots"},
	"expectHandled":         {"method", "expect", "count"},
}

func loadScenarios(t *testing.T) scenarioFile {
	t.Helper()
	raw, err := os.ReadFile(scenariosPath)
	if err != nil {
		t.Fatalf("reading %s: %v", scenariosPath, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f scenarioFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("decoding %s (an unknown field fails here): %v", scenariosPath, err)
	}
	if f.Version != 1 {
		t.Fatalf("%s: unknown version %d", scenariosPath, f.Version)
	}
	if len(f.Scenarios) == 0 {
		t.Fatalf("%s: no scenarios", scenariosPath)
	}
	return f
}

// parseStep decodes one step, rejecting unknown ops and fields.
func parseStep(raw json.RawMessage) (step, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return step{}, err
	}
	var s step
	if err := json.Unmarshal(raw, &s); err != nil {
		return step{}, err
	}
	allowed, ok := stepFields[s.Op]
	if !ok {
		return step{}, fmt.Errorf("unknown op %q", s.Op)
	}
	for k := range keys {
		if k != "op" && !contains(allowed, k) {
			return step{}, fmt.Errorf("op %s: unknown field %q", s.Op, k)
		}
	}
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestScenarios(t *testing.T) {
	f := loadScenarios(t)
	sidecar, fixture := sidecarBin(t), fixtureBin(t)
	for _, sc := range f.Scenarios {
		// Parse every step first: an unknown op or field fails even if an
		// earlier step would have failed.
		steps := make([]step, len(sc.Steps))
		for i, raw := range sc.Steps {
			s, err := parseStep(raw)
			if err != nil {
				t.Fatalf("scenario %s step %d: %v", sc.Name, i, err)
			}
			steps[i] = s
		}
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			r := newRunner(t, sidecar, fixture, sc)
			for i, s := range steps {
				if err := r.run(s); err != nil {
					t.Fatalf("step %d (%s): %v", i, s.Op, err)
				}
			}
		})
	}
}

// runner runs one scenario's steps against one client.
type runner struct {
	t       *testing.T
	c       *Client
	fixture string
	sent    chan int64 // ids of tools/call lines written (for cancelCall)
	pids    map[string]int

	mu      sync.Mutex
	notifs  []Notification
	logs    []ServerLog
	handled map[string][]json.RawMessage // params each handler was called with, by method
	changed chan struct{}                // closed and replaced on every new event above
}

func newRunner(t *testing.T, sidecar, fixture string, sc scenario) *runner {
	r := &runner{t: t, fixture: fixture, sent: make(chan int64, 1), pids: map[string]int{},
		handled: map[string][]json.RawMessage{}, changed: make(chan struct{})}
	init := sc.Initialize
	handlers, roots, err := r.handlers(sc.Handlers)
	if err != nil {
		t.Fatalf("scenario %s: %v", sc.Name, err)
	}
	r.c = startClient(t, Options{
		BinaryPath:         sidecar,
		ToolFormat:         init.ToolFormat,
		NameTemplate:       init.NameTemplate,
		MaxNameLength:      init.MaxNameLength,
		Handlers:           handlers,
		Roots:              roots,
		NotificationBuffer: 4096,
		LogBuffer:          4096,
		afterWrite: func(method string, id int64) {
			if method == "tools/call" {
				select {
				case r.sent <- id:
				default:
				}
			}
		},
	})
	go func() {
		for n := range r.c.Notifications() {
			r.record(func() { r.notifs = append(r.notifs, n) })
		}
	}()
	go func() {
		for l := range r.c.Logs() {
			r.record(func() { r.logs = append(r.logs, l) })
		}
	}()
	return r
}

// record applies one event under the lock and wakes the waiters.
func (r *runner) record(add func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	add()
	close(r.changed)
	r.changed = make(chan struct{})
}

// handlers registers a scenario's handlers through the typed API: each
// records the params it was called with, then answers or fails as told.
// For roots/list the answer's roots are the initial Options.Roots.
func (r *runner) handlers(spec map[string]scenarioHandler) (Handlers, []Root, error) {
	var h Handlers
	var roots []Root
	for method, sh := range spec {
		sh := sh
		seen := func(params any) error {
			raw, err := json.Marshal(params)
			if err != nil {
				return err
			}
			r.record(func() { r.handled[method] = append(r.handled[method], raw) })
			if sh.Error != nil {
				return HandlerError(sh.Error.Code, sh.Error.Message, nil)
			}
			return nil
		}
		switch method {
		case MethodSampling:
			var answer SamplingResult
			if err := decodeStrict(sh.Answer, &answer); err != nil {
				return h, nil, fmt.Errorf("%s answer: %w", method, err)
			}
			h.Sampling = func(ctx context.Context, req *SamplingParams) (*SamplingResult, error) {
				if err := seen(req); err != nil {
					return nil, err
				}
				return &answer, nil
			}
		case MethodElicitation:
			var answer ElicitationResult
			if err := decodeStrict(sh.Answer, &answer); err != nil {
				return h, nil, fmt.Errorf("%s answer: %w", method, err)
			}
			h.Elicitation = func(ctx context.Context, req *ElicitationRequest) (*ElicitationResult, error) {
				if err := seen(req); err != nil {
					return nil, err
				}
				return &answer, nil
			}
		case MethodRootsList:
			var answer struct {
				Roots []Root `json:"roots"`
			}
			if err := decodeStrict(sh.Answer, &answer); err != nil {
				return h, nil, fmt.Errorf("%s answer: %w", method, err)
			}
			roots = answer.Roots
			if roots == nil {
				roots = []Root{}
			}
			h.Roots = func(ctx context.Context, req *RootsRequest) ([]Root, error) {
				if err := seen(req); err != nil {
					return nil, err
				}
				return req.Roots, nil // Options.Roots until setRoots replaces it
			}
		default:
			return h, nil, fmt.Errorf("no handler for %q in this runner", method)
		}
	}
	return h, roots, nil
}

// decodeStrict decodes a scenario's JSON into a typed value, refusing
// fields the type does not have (so nothing is silently lost). An absent
// answer (a handler that only fails) decodes to the zero value.
func decodeStrict(raw json.RawMessage, out any) error {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(out)
}

func (r *runner) ctx(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

func (r *runner) run(s step) error {
	ctx, cancel := r.ctx(20 * time.Second)
	defer cancel()
	switch s.Op {
	case "addServer":
		cfg, err := r.serverConfig(s)
		if err != nil {
			return err
		}
		var opts *AddServerOptions
		if s.Wait != nil && !*s.Wait {
			opts = &AddServerOptions{NoWait: true}
		}
		st, err := r.c.AddServer(ctx, s.Name, cfg, opts)
		return r.check(s, st, err)
	case "removeServer":
		err := r.c.RemoveServer(ctx, s.Name)
		return r.check(s, struct{}{}, err)
	case "restartServer":
		st, err := r.c.RestartServer(ctx, s.Name)
		return r.check(s, st, err)
	case "listServers":
		list, err := r.c.ListServers(ctx)
		return r.check(s, map[string]any{"servers": list}, err)
	case "listTools":
		var opts *ListToolsOptions
		if s.Format != "" || s.Servers != nil {
			opts = &ListToolsOptions{Format: s.Format, Servers: s.Servers}
		}
		list, err := r.c.ListTools(ctx, opts)
		if err == nil && s.ExpectCount != nil && len(list.Tools) != *s.ExpectCount {
			return fmt.Errorf("expected %d tools, got %d", *s.ExpectCount, len(list.Tools))
		}
		return r.check(s, list, err)
	case "callTool":
		return r.callTool(ctx, s)
	case "callConcurrently":
		return r.callConcurrently(ctx, s)
	case "cancelCall":
		return r.cancelCall(s)
	case "expectNotification":
		return r.expectNotification(s)
	case "rememberPid":
		list, err := r.c.ListServers(ctx)
		if err != nil {
			return err
		}
		for _, st := range list {
			if st.Name == s.Server && st.PID > 0 {
				r.pids[s.As] = st.PID
				return nil
			}
		}
		return fmt.Errorf("server %s has no pid in %+v", s.Server, list)
	case "shutdown":
		if err := r.c.Close(ctx); err != nil {
			return fmt.Errorf("Close: %w", err)
		}
		if code := r.c.ExitCode(); code != 0 {
			return fmt.Errorf("sidecar exit code %d", code)
		}
		return nil
	case "expectDead":
		var pids []int
		for _, name := range s.Pids {
			pid, ok := r.pids[name]
			if !ok {
				return fmt.Errorf("no pid remembered as %q", name)
			}
			pids = append(pids, pid)
		}
		waitDead(r.t, 5*time.Second, pids...)
		return nil
	case "listResources":
		res, err := r.c.ListResources(ctx, &ListOptions{Server: s.Server})
		return r.check(s, res, err)
	case "listResourceTemplates":
		res, err := r.c.ListResourceTemplates(ctx, &ListOptions{Server: s.Server})
		return r.check(s, res, err)
	case "listPrompts":
		res, err := r.c.ListPrompts(ctx, &ListOptions{Server: s.Server})
		return r.check(s, res, err)
	case "readResource":
		res, err := r.c.ReadResource(ctx, s.Server, s.URI, nil)
		return r.check(s, res, err)
	case "subscribeResource":
		return r.check(s, struct{}{}, r.c.SubscribeResource(ctx, s.Server, s.URI))
	case "unsubscribeResource":
		return r.check(s, struct{}{}, r.c.UnsubscribeResource(ctx, s.Server, s.URI))
	case "getPrompt":
		var args map[string]string
		if err := decodeStrict(s.Arguments, &args); err != nil {
			return fmt.Errorf("prompt arguments: %w", err)
		}
		res, err := r.c.GetPrompt(ctx, s.Server, s.Name, args, nil)
		return r.check(s, res, err)
	case "complete":
		var req CompleteRequest
		if err := decodeStrict(s.Params, &req); err != nil {
			return fmt.Errorf("complete params: %w", err)
		}
		res, err := r.c.Complete(ctx, req)
		return r.check(s, res, err)
	case "setLogLevel":
		res, err := r.c.SetLogLevel(ctx, s.Level, s.Server)
		return r.check(s, res, err)
	case "expectLog":
		return r.expectLog(s)
	case "expectNoLog":
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, l := range r.logs {
			if matchJSON(s.Expect, l) == nil {
				return fmt.Errorf("a log matching %s arrived: %+v", s.Expect, l)
			}
		}
		return nil
	case "searchTools":
		res, err := r.c.SearchTools(ctx, s.Query, &SearchToolsOptions{Limit: s.Limit})
		return r.check(s, res, err)
	case "serverStats":
		res, err := r.c.ServerStats(ctx)
		return r.check(s, res, err)
	case "setRoots":
		return r.c.SetRoots(ctx, s.Roots)
	case "expectHandled":
		return r.expectHandled(s)
	}
	return fmt.Errorf("unknown op %q", s.Op)
}

// callTool makes the call, with the progress callback when asked: it must
// have been called before the result, the last time matching
// expectLastProgress.
func (r *runner) callTool(ctx context.Context, s step) error {
	opts := &CallOptions{}
	if s.TimeoutMs > 0 {
		opts.Timeout = time.Duration(s.TimeoutMs) * time.Millisecond
	}
	var updates []ProgressUpdate // only the calling goroutine touches it
	if s.Progress {
		opts.Progress = func(u ProgressUpdate) { updates = append(updates, u) }
	}
	res, err := r.c.CallTool(ctx, s.Tool, s.Arguments, opts)
	if err := r.check(s, res, err); err != nil {
		return err
	}
	if len(s.LastProg) > 0 {
		if len(updates) == 0 {
			return errors.New("the progress callback was not called before the result")
		}
		if err := matchJSON(s.LastProg, updates[len(updates)-1]); err != nil {
			return fmt.Errorf("last progress: %w", err)
		}
	}
	return nil
}

// waitFor re-checks cond on every recorded event, up to 10 s.
func (r *runner) waitFor(what string, cond func() error) error {
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		err, changed := cond(), r.changed
		r.mu.Unlock()
		if err == nil {
			return nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Errorf("%s within 10 s: %v", what, err)
		}
	}
}

// expectLog waits for a log stream event matching expect.
func (r *runner) expectLog(s step) error {
	return r.waitFor("no log matching "+string(s.Expect), func() error {
		last := fmt.Errorf("%d logs, none matching", len(r.logs))
		for _, l := range r.logs {
			if last = matchJSON(s.Expect, l); last == nil {
				return nil
			}
		}
		return last
	})
}

// expectHandled waits until the handler for method has been called count
// times (default 1), the last call's params matching expect.
func (r *runner) expectHandled(s step) error {
	count := s.Count
	if count == 0 {
		count = 1
	}
	return r.waitFor(fmt.Sprintf("handler %s not called %d times", s.Method, count), func() error {
		calls := r.handled[s.Method]
		if len(calls) < count {
			return fmt.Errorf("called %d times", len(calls))
		}
		return matchJSON(s.Expect, calls[len(calls)-1])
	})
}

// serverConfig is {command: fixture, args: fixtureArgs, ...config}: known
// fields go to the typed struct, others (e.g. a misspelling) to Extra.
func (r *runner) serverConfig(s step) (ServerConfig, error) {
	cfg := ServerConfig{}
	if len(s.Config) > 0 {
		if err := json.Unmarshal(s.Config, &cfg); err != nil {
			return cfg, err
		}
		var all map[string]any
		if err := json.Unmarshal(s.Config, &all); err != nil {
			return cfg, err
		}
		known := map[string]bool{}
		st := reflect.TypeOf(ServerConfig{})
		for i := 0; i < st.NumField(); i++ {
			known[strings.Split(st.Field(i).Tag.Get("json"), ",")[0]] = true
		}
		for k, v := range all {
			if !known[k] {
				if cfg.Extra == nil {
					cfg.Extra = map[string]any{}
				}
				cfg.Extra[k] = v
			}
		}
	}
	if cfg.Command == "" {
		cfg.Command = r.fixture
	}
	if cfg.Args == nil {
		cfg.Args = s.FixtureArgs
	}
	return cfg, nil
}

// check applies expectError or expect to a typed result.
func (r *runner) check(s step, result any, err error) error {
	if s.ExpectError != "" {
		var e *Error
		if !errors.As(err, &e) {
			return fmt.Errorf("expected error %s, got result %+v (err %v)", s.ExpectError, result, err)
		}
		if e.Code != s.ExpectError {
			return fmt.Errorf("expected error %s, got %s: %s", s.ExpectError, e.Code, e.Message)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("unexpected error: %w", err)
	}
	if len(s.Expect) == 0 {
		return nil
	}
	return matchJSON(s.Expect, result)
}

func (r *runner) callConcurrently(ctx context.Context, s step) error {
	var wg sync.WaitGroup
	errs := make([]error, s.Count)
	for i := 0; i < s.Count; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			msg := fmt.Sprintf("%s-%d", s.Message, i)
			res, err := r.c.CallTool(ctx, s.Tool, map[string]any{"message": msg}, nil)
			switch {
			case err != nil:
				errs[i] = err
			case res.Text != msg:
				errs[i] = fmt.Errorf("call %d: text %q, want %q", i, res.Text, msg)
			}
		}(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// cancelCall starts the call, cancels its context as soon as the request
// line is written, and requires CodeCancelled within 2 s.
func (r *runner) cancelCall(s step) error {
	select { // steps are sequential: drop ids left by earlier calls
	case <-r.sent:
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.c.CallTool(ctx, s.Tool, s.Arguments, nil)
		done <- err
	}()
	select {
	case <-r.sent:
	case err := <-done:
		return fmt.Errorf("call ended before it was cancelled: %v", err)
	case <-time.After(5 * time.Second):
		return errors.New("the call was not written within 5 s")
	}
	cancel()
	select {
	case err := <-done:
		if !IsCode(err, CodeCancelled) || !errors.Is(err, context.Canceled) {
			return fmt.Errorf("expected CANCELLED matching context.Canceled, got %v", err)
		}
		return nil
	case <-time.After(2 * time.Second):
		return errors.New("cancelled call did not return within 2 s")
	}
}

// expectNotification waits up to 10 s for a matching notification received
// since the scenario started.
func (r *runner) expectNotification(s step) error {
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	var last error
	for {
		r.mu.Lock()
		notifs, changed := r.notifs, r.changed
		r.mu.Unlock()
		for _, n := range notifs {
			if n.Method != s.Method {
				continue
			}
			var params any = n.Params // the typed view when there is one
			switch {
			case n.ServersChanged != nil:
				params = n.ServersChanged
			case n.ToolsChanged != nil:
				params = n.ToolsChanged
			case n.ResourcesUpdated != nil:
				params = n.ResourcesUpdated
			case n.ResourcesChanged != nil:
				params = n.ResourcesChanged
			case n.PromptsChanged != nil:
				params = n.PromptsChanged
			}
			if last = matchJSON(s.Expect, params); last == nil {
				return nil
			}
		}
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Errorf("no %s matching %s within 10 s (%d notifications; last mismatch: %v)", s.Method, s.Expect, len(notifs), last)
		}
	}
}

// matchJSON matches a typed value (re-encoded) against a scenario pattern.
func matchJSON(pattern json.RawMessage, value any) error {
	var p any
	if err := json.Unmarshal(pattern, &p); err != nil {
		return err
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return match(p, v, "$")
}

// match: objects match key-wise (every pattern key present and matching),
// arrays element-wise with equal length, "<any>" any value, and
// "<contains:TEXT>" a string containing TEXT; other values by equality.
func match(pattern, value any, path string) error {
	switch p := pattern.(type) {
	case map[string]any:
		v, ok := value.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected an object, got %v", path, value)
		}
		keys := make([]string, 0, len(p))
		for k := range p {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			got, ok := v[k]
			if !ok {
				return fmt.Errorf("%s.%s: missing (got %v)", path, k, value)
			}
			if err := match(p[k], got, path+"."+k); err != nil {
				return err
			}
		}
		return nil
	case []any:
		v, ok := value.([]any)
		if !ok || len(v) != len(p) {
			return fmt.Errorf("%s: expected an array of %d, got %v", path, len(p), value)
		}
		for i := range p {
			if err := match(p[i], v[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case string:
		if p == "<any>" {
			return nil
		}
		if text, ok := strings.CutPrefix(p, "<contains:"); ok && strings.HasSuffix(text, ">") {
			s, isString := value.(string)
			if !isString || !strings.Contains(s, strings.TrimSuffix(text, ">")) {
				return fmt.Errorf("%s: expected a string containing %q, got %v", path, strings.TrimSuffix(text, ">"), value)
			}
			return nil
		}
	}
	if !reflect.DeepEqual(pattern, value) {
		return fmt.Errorf("%s: expected %v, got %v", path, pattern, value)
	}
	return nil
}

func TestMatcher(t *testing.T) {
	ok := func(p, v string) error {
		return matchJSON(json.RawMessage(p), json.RawMessage(v))
	}
	for _, c := range [][2]string{
		{`{"a":1}`, `{"a":1,"b":2}`},
		{`{"a":"<any>"}`, `{"a":null}`},
		{`{"a":"<contains:ell>"}`, `{"a":"hello"}`},
		{`[1,{"x":true}]`, `[1,{"x":true,"y":0}]`},
		{`{"servers":[]}`, `{"servers":[]}`},
	} {
		if err := ok(c[0], c[1]); err != nil {
			t.Errorf("%s vs %s: %v", c[0], c[1], err)
		}
	}
	for _, c := range [][2]string{
		{`{"a":1}`, `{"b":1}`},
		{`{"a":"<any>"}`, `{}`},
		{`[1]`, `[1,2]`},
		{`{"a":"<contains:z>"}`, `{"a":"hello"}`},
		{`{"servers":[]}`, `{"servers":null}`},
	} {
		if err := ok(c[0], c[1]); err == nil {
			t.Errorf("%s vs %s: matched", c[0], c[1])
		}
	}
	if _, err := parseStep(json.RawMessage(`{"op":"teleport"}`)); err == nil {
		t.Error("unknown op accepted")
	}
	if _, err := parseStep(json.RawMessage(`{"op":"listServers","color":"red"}`)); err == nil {
		t.Error("unknown field accepted")
	}
}
