//go:build hostdtesthooks

package blocks

// A build with the hostdtesthooks tag (the end-to-end tests' hostd)
// honours TestHookEnv in its parse workers. Release builds leave the
// hook out entirely.
func init() { parseHook = hookFromEnv() }
