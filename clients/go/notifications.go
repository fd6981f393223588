// notifications.go owns the notifications the sidecar sends the host and
// their typed views; queue.go owns the bounded channel that delivers them
// (overflow policy: drop the oldest).

package client

import "encoding/json"

// Notification methods sent by the sidecar (PROTOCOL.md §5).
const (
	MethodServersChanged   = "notifications/servers/changed"
	MethodToolsChanged     = "notifications/tools/changed"
	MethodResourcesChanged = "notifications/resources/changed"
	MethodResourcesUpdated = "notifications/resources/updated"
	MethodPromptsChanged   = "notifications/prompts/changed"
	// Not delivered on Notifications: server logs go to Client.Logs,
	// progress to CallOptions.Progress, and the sidecar's cancellation of
	// its own request to the handler's context.
	MethodServerLog = "notifications/server/log"
	MethodProgress  = "notifications/progress"
	MethodCancelled = "notifications/cancelled"
)

// Notification is one notification from the sidecar. Params is always set;
// for the known methods the matching typed field is decoded too (the others
// are nil). Unknown methods (from a newer sidecar) are delivered with Params
// only.
type Notification struct {
	Method           string
	Params           json.RawMessage
	ServersChanged   *ServersChanged  // MethodServersChanged
	ToolsChanged     *ToolsChanged    // MethodToolsChanged
	ResourcesChanged *ListChanged     // MethodResourcesChanged: list resources again
	ResourcesUpdated *ResourceUpdated // MethodResourcesUpdated: a subscribed resource changed
	PromptsChanged   *ListChanged     // MethodPromptsChanged: list prompts again
}

// ListChanged is the params of notifications/resources/changed and
// notifications/prompts/changed: that server's list changed.
type ListChanged struct {
	Server string `json:"server"`
}

// decodeNotification builds a Notification; a known method whose params do
// not decode keeps only Params.
func decodeNotification(method string, params json.RawMessage) Notification {
	n := Notification{Method: method, Params: params}
	switch method {
	case MethodServersChanged:
		var p ServersChanged
		if json.Unmarshal(params, &p) == nil {
			n.ServersChanged = &p
		}
	case MethodToolsChanged:
		var p ToolsChanged
		if json.Unmarshal(params, &p) == nil {
			n.ToolsChanged = &p
		}
	case MethodResourcesChanged, MethodPromptsChanged:
		var p ListChanged
		if json.Unmarshal(params, &p) == nil {
			if method == MethodResourcesChanged {
				n.ResourcesChanged = &p
			} else {
				n.PromptsChanged = &p
			}
		}
	case MethodResourcesUpdated:
		var p ResourceUpdated
		if json.Unmarshal(params, &p) == nil {
			n.ResourcesUpdated = &p
		}
	}
	return n
}
