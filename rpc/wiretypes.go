package rpc

import "github.com/hostd-dev/hostd/rpc/wire"

// The wire types live in package wire, where clients import them without
// the server; the names below keep the method table and its handlers
// reading as they always have. They are the same types, not copies.
type (
	HostInfo            = wire.HostInfo
	ReviewHealth        = wire.ReviewHealth
	ExternalRoot        = wire.ExternalRoot
	SessionCreateParams = wire.SessionCreateParams
	SessionRef          = wire.SessionRef
	SessionIDParams     = wire.SessionIDParams
	SessionList         = wire.SessionList
	SetWorkspaceParams  = wire.SetWorkspaceParams
	ExecuteParams       = wire.ExecuteParams
	Stats               = wire.Stats
	ConnectionStats     = wire.ConnectionStats
	QueueStats          = wire.QueueStats
	ReviewStats         = wire.ReviewStats
	SessionDump         = wire.SessionDump
	PathDump            = wire.PathDump
	VersionDump         = wire.VersionDump
	ReviewListParams    = wire.ReviewListParams
	ReviewList          = wire.ReviewList
	ReviewSessions      = wire.ReviewSessions
	RollbackParams      = wire.RollbackParams
	RollbackResult      = wire.RollbackResult
	RewindParams        = wire.RewindParams
	RewindResult        = wire.RewindResult
	CallStats           = wire.CallStats
	NoParams            = wire.NoParams
	Empty               = wire.Empty
	Code                = wire.Code
)

// The error codes, by the names the handlers use.
var (
	CodeParseError       = wire.CodeParseError
	CodeInvalidRequest   = wire.CodeInvalidRequest
	CodeMethodNotFound   = wire.CodeMethodNotFound
	CodeInvalidParams    = wire.CodeInvalidParams
	CodeInternal         = wire.CodeInternal
	CodeShuttingDown     = wire.CodeShuttingDown
	CodeSessionNotFound  = wire.CodeSessionNotFound
	CodeWorkspaceInvalid = wire.CodeWorkspaceInvalid
	CodeRollbackConflict = wire.CodeRollbackConflict
	CodeReviewNotFound   = wire.CodeReviewNotFound
	CodeUnknownTool      = wire.CodeUnknownTool
	CodeSessionLimit     = wire.CodeSessionLimit
	CodeOverloaded       = wire.CodeOverloaded
	CodeResultTooLarge   = wire.CodeResultTooLarge
	CodeRequestCancelled = wire.CodeRequestCancelled
)

// ErrFrame reports a frame header that closes the connection (wire.ErrFrame).
var ErrFrame = wire.ErrFrame

// errorData is error.data.
type errorData = wire.ErrorData
