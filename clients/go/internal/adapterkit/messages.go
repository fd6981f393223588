package adapterkit

import (
	"encoding/json"
	"fmt"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

// Message is one MCP message (a SamplingMessage or PromptMessage): its
// content is one block or an array of blocks, read by Blocks.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Block is one content block of a Message.
type Block struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// Blocks reads the content of message i; its error reads "message <i>: ...".
func (m Message) Blocks(i int) ([]Block, error) {
	var blocks []Block
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		var one Block
		if err := json.Unmarshal(m.Content, &one); err != nil {
			return nil, fmt.Errorf("message %d: content is neither a block nor an array of blocks", i)
		}
		blocks = []Block{one}
	}
	return blocks, nil
}

// Messages reads MCP messages; its error reads "messages: ...".
func Messages(raw []byte) ([]Message, error) {
	var history []Message
	if err := json.Unmarshal(raw, &history); err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	return history, nil
}

// SamplingMessages reads the messages of a sampling request; its error
// reads "sampling messages: ...".
func SamplingMessages(req *client.SamplingParams) ([]Message, error) {
	raw, err := json.Marshal(req.Messages)
	if err != nil {
		return nil, err
	}
	history, err := Messages(raw)
	if err != nil {
		return nil, fmt.Errorf("sampling %w", err)
	}
	return history, nil
}
