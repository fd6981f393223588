// tools.go owns the tools as tools.Tool, the string-in, string-out
// interface LangChainGo's agents call.

package langchaingo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/tools"
)

// Tools lists the tools as tools.Tool. Each one's description ends with
// its input schema, since LangChainGo's agents hand the model one string
// argument: Call takes a JSON object of the arguments or, for a tool whose
// schema has exactly one string property, that string alone.
func (t *Toolset) Tools(ctx context.Context) ([]tools.Tool, error) {
	defs, err := t.definitions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Tool, len(defs))
	for i, def := range defs {
		out[i] = &tool{set: t, def: def}
	}
	return out, nil
}

type tool struct {
	set *Toolset
	def definition
}

var _ tools.Tool = (*tool)(nil)

func (x *tool) Name() string { return x.def.Function.Name }

func (x *tool) Description() string {
	schema, _ := json.Marshal(x.def.Function.Parameters)
	input := "Input: a JSON object matching the schema " + string(schema)
	if x.def.Function.Description == "" {
		return input
	}
	return x.def.Function.Description + "\n" + input
}

// Call runs the tool with input, the arguments as the model wrote them.
func (x *tool) Call(ctx context.Context, input string) (string, error) {
	args, ok := x.arguments(input)
	if !ok {
		schema, _ := json.Marshal(x.def.Function.Parameters)
		return fmt.Sprintf("error INVALID_ARGUMENTS: the input of %s must be a JSON object matching %s", x.Name(), schema), nil
	}
	return x.set.call(ctx, x.Name(), args)
}

// arguments reads input as a JSON object, or as the value of the only
// property when that is a string and input is not an object.
func (x *tool) arguments(input string) (json.RawMessage, bool) {
	trimmed := strings.TrimSpace(input)
	if trimmed == "" {
		return nil, true
	}
	var object map[string]any
	if json.Unmarshal([]byte(trimmed), &object) == nil && object != nil {
		return json.RawMessage(trimmed), true
	}
	props, _ := x.def.Function.Parameters["properties"].(map[string]any)
	if len(props) != 1 {
		return nil, false
	}
	for name, raw := range props {
		if prop, _ := raw.(map[string]any); prop["type"] == "string" {
			args, err := json.Marshal(map[string]string{name: input})
			return args, err == nil
		}
	}
	return nil, false
}
