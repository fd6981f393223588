package adapterkit

import (
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

func TestMessagesReadOneBlockOrAnArray(t *testing.T) {
	history, err := Messages([]byte(`[{"role":"user","content":{"type":"text","text":"a"}},
		{"role":"assistant","content":[{"type":"image","data":"AA==","mimeType":"image/png"}]},
		{"role":"user","content":"nope"}]`))
	if err != nil || len(history) != 3 {
		t.Fatalf("%v %v", history, err)
	}
	one, err := history[0].Blocks(0)
	if err != nil || len(one) != 1 || one[0].Text != "a" {
		t.Fatalf("%v %v", one, err)
	}
	two, err := history[1].Blocks(1)
	if err != nil || len(two) != 1 || two[0].MimeType != "image/png" || two[0].Data != "AA==" {
		t.Fatalf("%v %v", two, err)
	}
	if _, err := history[2].Blocks(2); err == nil || err.Error() != "message 2: content is neither a block nor an array of blocks" {
		t.Fatalf("%v", err)
	}
	if _, err := Messages([]byte(`{}`)); err == nil || !strings.HasPrefix(err.Error(), "messages: ") {
		t.Fatalf("%v", err)
	}
}

func TestSamplingMessagesReadsTheRequest(t *testing.T) {
	var req client.SamplingParams
	if err := json.Unmarshal([]byte(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}`), &req); err != nil {
		t.Fatal(err)
	}
	history, err := SamplingMessages(&req)
	if err != nil || len(history) != 1 || history[0].Role != "user" {
		t.Fatalf("%v %v", history, err)
	}
}

func TestDefinitionsRejectsWhatOkRejects(t *testing.T) {
	type def struct {
		Name string `json:"name"`
	}
	list := &client.ToolList{Tools: []client.Tool{{Name: "a", Definition: json.RawMessage(`{"name":"a"}`)}}}
	defs, err := Definitions(list, "x", "y", func(d *def) bool { return d.Name != "" })
	if err != nil || len(defs) != 1 || defs[0].Name != "a" {
		t.Fatalf("%v %v", defs, err)
	}
	list.Tools[0].Definition = json.RawMessage(`{}`)
	_, err = Definitions(list, "x", "y", func(d *def) bool { return d.Name != "" })
	if err == nil || err.Error() != "x: tool a: not an y definition: {}" {
		t.Fatalf("%v", err)
	}
}

func TestEachRunsAllAndReturnsTheFirstErrorByIndex(t *testing.T) {
	var ran atomic.Int32
	first, second := errors.New("first"), errors.New("second")
	err := Each(4, func(i int) error {
		ran.Add(1)
		switch i {
		case 1:
			return first
		case 3:
			return second
		}
		return nil
	})
	if err != first || ran.Load() != 4 {
		t.Fatalf("%v after %d", err, ran.Load())
	}
	if err := Each(0, func(int) error { return first }); err != nil {
		t.Fatal(err)
	}
}
