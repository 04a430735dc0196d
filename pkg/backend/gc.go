package backend

import "runtime/debug"

// ServerGCPercent is the garbage collector's target for a long-running
// server (policyd): the heap may grow to five times what is live before a
// collection, not twice (Go's default, GOGC=100). A server's live heap is
// small (the catalog, the clause library, the store's codecs: about 16
// MB), so the default collects every few dozen requests and spends a
// tenth of the CPU of a generate run doing it; the price is memory, about
// 80 MB at that live size (docs/DECISIONS.md 34).
const ServerGCPercent = 400

// ServerGC sets ServerGCPercent, unless the environment sets GOGC, which
// then rules as the Go runtime documents. It returns the percentage in
// force.
func ServerGC(getenv func(string) string) int {
	if getenv("GOGC") != "" {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	debug.SetGCPercent(ServerGCPercent)
	return ServerGCPercent
}
