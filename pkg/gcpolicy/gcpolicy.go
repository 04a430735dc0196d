// Package gcpolicy sets Go's garbage collector for Policygen's long-running
// processes: policyd and the Lambda functions.
//
// Their live heap is small (the catalog, the clause library, the AWS
// clients or the bolt store's codecs: 4-16 MB) and each request allocates
// about its document again (25 KB for the standard privacy policy, 220 KB
// for the largest). At Go's default (GOGC=100, a collection each time the
// heap doubles) the collector marks that live heap every hundred-odd
// requests and runs its write barriers while it marks. Timed on two
// processors, the standard document took 55-87 µs at GOGC=100, 44-71 µs
// at 400 and 39-65 µs with the collector off (docs/DECISIONS.md 34 and
// 39). Memory is what pays: the heap may grow to five times what is live,
// under 100 MB, where a Lambda function has 256 MB or more.
package gcpolicy

import (
	"runtime/debug"
	"strconv"
)

// Percent is the collector's target: the heap may grow to five times what
// is live before a collection.
const Percent = 400

// Set sets Percent, unless the environment sets GOGC, which then rules as
// the Go runtime documents. In a Lambda function (the runtime sets
// AWS_LAMBDA_FUNCTION_MEMORY_SIZE, in MB) it also sets a soft memory limit
// of seven eighths of the function's memory, unless GOMEMLIMIT is set: as
// the heap nears the limit the collector runs sooner than Percent says,
// instead of the function running out of memory. It returns the
// percentage and the limit in force (math.MaxInt64 when there is none).
func Set(getenv func(string) string) (percent int, limit int64) {
	if getenv("GOGC") != "" {
		percent = debug.SetGCPercent(-1)
		debug.SetGCPercent(percent)
	} else {
		debug.SetGCPercent(Percent)
		percent = Percent
	}
	if mb, err := strconv.ParseInt(getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"), 10, 64); err == nil && mb > 0 && getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(mb << 20 / 8 * 7)
	}
	return percent, debug.SetMemoryLimit(-1)
}
