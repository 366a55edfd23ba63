package mcpface

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler serves the face over MCP's streamable HTTP transport: each
// MCP session (Mcp-Session-Id) gets its own hostd session, deleted when
// the client ends the MCP session or leaves it idle for idle. Requests
// whose Host is not a loopback name (DNS rebinding) and cross-origin
// browser requests are refused; who may connect at all is the
// listener's business. A request body over maxBody bytes is refused.
func (f *Face) HTTPHandler(idle time.Duration, maxBody int64) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server },
		&mcp.StreamableHTTPOptions{SessionTimeout: idle})
	return http.NewCrossOriginProtection().Handler(http.MaxBytesHandler(h, maxBody))
}
