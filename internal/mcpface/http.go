package mcpface

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the face over streamable HTTP.
type HTTPOptions struct {
	// Token is the secret every request must carry as
	// "Authorization: Bearer TOKEN" (NewToken makes one). A loopback port
	// is open to every user of the machine; the token, in a file only
	// this user can read, is what tells this user's clients apart.
	Token string
	// TokenFile is where the token is, named in the refusal so a client's
	// user knows where to look.
	TokenFile string
	// Idle ends an MCP session, and its hostd session, after this long
	// without a request.
	Idle time.Duration
	// MaxBody refuses a request body over this many bytes.
	MaxBody int64
}

// NewToken is a fresh secret of 256 random bits, as 64 hex digits.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// minTokenBytes refuses a token too short to stand as the only credential.
const minTokenBytes = 32

// HTTPHandler serves the face over MCP's streamable HTTP transport: each
// MCP session (Mcp-Session-Id) gets its own hostd session, deleted when
// the client ends the MCP session or leaves it idle. A request without
// the token is answered 401 before anything reads its body; requests
// whose Host is not a loopback name (DNS rebinding) and cross-origin
// browser requests are answered 403. Which connections are accepted at
// all is the listener's business.
func (f *Face) HTTPHandler(opts HTTPOptions) (http.Handler, error) {
	if len(opts.Token) < minTokenBytes {
		return nil, errors.New("the MCP HTTP face needs a token of at least 32 characters (NewToken)")
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server },
		&mcp.StreamableHTTPOptions{SessionTimeout: opts.Idle, MaxRequestBodyBytes: opts.MaxBody})
	return http.NewCrossOriginProtection().Handler(&tokenCheck{next: h, token: []byte(opts.Token), file: opts.TokenFile}), nil
}

// tokenCheck answers 401 to a request that does not carry the token.
type tokenCheck struct {
	next  http.Handler
	token []byte
	file  string
}

func (t *tokenCheck) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The comparison takes the same time whatever the bytes sent, so the
	// token cannot be guessed a byte at a time.
	if subtle.ConstantTimeCompare(bearer(r.Header.Get("Authorization")), t.token) == 1 {
		t.next.ServeHTTP(w, r)
		return
	}
	where := "in the token file hostd mcp named when it started"
	if t.file != "" {
		where = "in " + t.file
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="hostd mcp"`)
	// The body is not read: close the connection rather than drain it.
	w.Header().Set("Connection", "close")
	http.Error(w, "hostd mcp serves only requests with the header \"Authorization: Bearer TOKEN\"; the token is "+where+" (a new one at every start)", http.StatusUnauthorized)
}

// bearer is the credential of an Authorization header of the Bearer
// scheme (whose name is case-insensitive, RFC 7235); nil for any other.
func bearer(h string) []byte {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	return []byte(strings.TrimSpace(cred))
}
