// Command benchtargets runs the measurements behind the performance
// targets of issue 9 (and the generation bounds of issue 8) and prints each
// target beside the figure measured in the same run, as a Markdown table
// for docs/BENCHMARKS.md. `make bench` runs it after the benchmarks.
//
// It shells out to `go test` (benchmarks and TestGenerateWriteUnits, which
// needs DynamoDB Local: `make dynamodb-local`) and to cmd/loadrun, and
// parses their standard output; a figure it cannot find is reported as
// missing, never guessed.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/policygen/policygen/pkg/gcpolicy"
)

func main() {
	if err := run(os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchtargets:", err)
		os.Exit(1)
	}
}

// pgoProfile is the CPU profile the shipped binaries are built with (the
// Makefile's PGO): the generation benchmarks and loadrun's in-process
// server are built with it too, so that they time what ships.
const pgoProfile = "pgo/generate.pgo"

// row is one line of the table.
type row struct{ target, limit, measured, verdict string }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func run(stdout, stderr io.Writer) error {
	var rows []row
	// Five runs of each, in five rounds: the verdict goes by the median,
	// so that one disturbed second on a shared machine neither passes nor
	// fails a target, and the table shows the spread. The three formats
	// are timed one after another in each round, and the formats' ratio
	// is taken within each round: go test -count would time each format
	// five times in a row, so that the ratio would compare different
	// minutes of a machine whose speed drifts.
	var gen strings.Builder
	var ratios []float64
	for range rounds {
		out, err := commandEnv(stderr, shippedGC, "go", "test", "-pgo", pgoProfile, "-run", "^$", "-bench", "BenchmarkGenerateFormats", "-benchmem", "-count", "1", "./pkg/policy")
		if err != nil {
			return err
		}
		gen.WriteString(out)
		if r, ok := formatRatio(parseBench(out)); ok {
			ratios = append(ratios, r)
		}
	}
	// The largest documents likewise, in rounds: with -count 5 each
	// document's five runs came one after another, so that one slow
	// stretch of the machine (tens of seconds) could hold all five runs of
	// one document and none of the next (the HTML one at 287-339 µs, the
	// Markdown one before it at 268-308 µs, in one run of make bench);
	// in rounds, such a stretch slows one run of each.
	for range rounds {
		largest, err := commandEnv(stderr, shippedGC, "go", "test", "-pgo", pgoProfile, "-run", "^$", "-bench", "BenchmarkGenerateLargest|BenchmarkResultString", "-benchmem", "-count", "1", "./pkg/policy")
		if err != nil {
			return err
		}
		gen.WriteString(largest)
	}
	rows = append(rows, generationRows(parseBench(gen.String()), ratios)...)
	// The same documents at Go's default collector, beside them: what
	// the collector setting is worth, and what a process that does not
	// set it would see.
	defaultGC, err := commandEnv(stderr, "GOGC=100", "go", "test", "-pgo", pgoProfile, "-run", "^$", "-bench", "BenchmarkGenerateFormats", "-benchmem", "-count", "1", "./pkg/policy")
	if err != nil {
		return err
	}
	rows = append(rows, defaultGCRow(parseBench(defaultGC)))
	// Cold starts in rounds as well, and for the same reason: on the
	// twelfth to fifteenth sessions' machine one pass of the same two
	// binaries moved by about ±0.3 ms from minute to minute, more than the
	// fallback's whole excess, and more copies per pass did not narrow it
	// (docs/DECISIONS.md 47). Each round is one whole BenchmarkInit.
	var initOut strings.Builder
	for range rounds {
		out, err := command(stderr, "go", "test", "-run", "^$", "-bench", "BenchmarkInit", "./functions")
		if err != nil {
			return err
		}
		initOut.WriteString(out)
	}
	rows = append(rows, coldStartRows(parseBench(initOut.String()))...)
	units, err := command(stderr, "go", "test", "-count=1", "-run", "TestGenerateWriteUnits", "-v", "./pkg/store/dynamo")
	if err != nil {
		return err
	}
	rows = append(rows, unitRows(units)...)
	load, err := command(stderr, "go", "run", "-pgo", pgoProfile, "./cmd/loadrun", "--compare", "--workers", "32", "--duration", "10s", "--requests", "100000")
	if err != nil {
		return err
	}
	rows = append(rows, throughputRow(load))

	fmt.Fprintln(stdout, "| target | limit | measured | verdict |")
	fmt.Fprintln(stdout, "| --- | --- | --- | --- |")
	for _, r := range rows {
		fmt.Fprintf(stdout, "| %s | %s | %s | %s |\n", r.target, r.limit, r.measured, r.verdict)
	}
	return nil
}

// shippedGC is the collector setting the shipped processes run with
// (gcpolicy.Set): generation is timed under it, as it is built with the
// profile they are built with. The go command and the compiler it runs
// see it too, which changes nothing they produce; being last in the
// environment, it wins over a GOGC the caller set.
var shippedGC = "GOGC=" + strconv.Itoa(gcpolicy.Percent)

// command runs a command, echoing its output to stderr, and returns it.
func command(stderr io.Writer, name string, args ...string) (string, error) {
	return commandEnv(stderr, "", name, args...)
}

// commandEnv is command with one more environment variable, env
// ("NAME=value"), unless env is empty.
func commandEnv(stderr io.Writer, env, name string, args ...string) (string, error) {
	fmt.Fprintf(stderr, "$ %s\n", strings.TrimSpace(env+" "+name+" "+strings.Join(args, " ")))
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	if env != "" {
		cmd.Env = append(os.Environ(), env)
	}
	cmd.Stdout = io.MultiWriter(&out, stderr)
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return out.String(), nil
}

// benchLine matches a Go benchmark result line.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parseBench maps each benchmark (without the -GOMAXPROCS suffix) to its
// metrics by unit ("ns/op", "B/op", "excess-ms", ...). A benchmark run
// more than once (go test -count, or outputs joined) gets each metric's
// median, "runs" says how many runs, and "<unit>-min" and "<unit>-max" how
// far apart they were.
func parseBench(out string) map[string]map[string]float64 {
	runs := map[string]map[string][]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		if runs[m[1]] == nil {
			runs[m[1]] = map[string][]float64{}
		}
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				runs[m[1]][f[i+1]] = append(runs[m[1]][f[i+1]], v)
			}
		}
	}
	res := map[string]map[string]float64{}
	for name, metrics := range runs {
		res[name] = map[string]float64{}
		for unit, vs := range metrics {
			slices.Sort(vs)
			res[name][unit] = median(vs)
			res[name][unit+"-min"], res[name][unit+"-max"] = vs[0], vs[len(vs)-1]
			if unit == "ns/op" {
				res[name]["runs"] = float64(len(vs))
			}
		}
	}
	return res
}

// median of sorted vs (the mean of the middle two for an even count).
func median(vs []float64) float64 {
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// timing is a benchmark's time per operation, with the spread of its runs
// when it ran more than once.
func timing(m map[string]float64) string {
	if m["runs"] > 1 {
		return fmt.Sprintf("%s (median of %.0f runs, %.0f-%.0f)", us(m["ns/op"]), m["runs"], m["ns/op-min"]/1e3, m["ns/op-max"]/1e3)
	}
	return us(m["ns/op"])
}

func us(ns float64) string { return fmt.Sprintf("%.0f µs", ns/1e3) }
func kb(b float64) string  { return fmt.Sprintf("%.0f KB", b/1e3) }

// rounds is how many times the generation benchmarks run: in each round
// the standard document's formats one after another, and the largest
// documents one after another.
const rounds = 5

// formats are the output formats of the standard document's benchmark.
var formats = []string{"markdown", "html", "text"}

// formatRatio is the slowest format's time over the fastest's in one run
// of the standard document's benchmark.
func formatRatio(b map[string]map[string]float64) (float64, bool) {
	var times []float64
	for _, f := range formats {
		m, ok := b["BenchmarkGenerateFormats/"+f]
		if !ok || m["ns/op"] <= 0 {
			return 0, false
		}
		times = append(times, m["ns/op"])
	}
	return slices.Max(times) / slices.Min(times), true
}

// generationRows: issue 9 target 1 (the standard document at most 100 µs
// and 32 KB in every format, no format over 1.5 times the cheapest, every
// document under 3 times 100 µs) and issue 8's bounds (any document under
// 1 ms and 300 KB, a multi-jurisdiction one under 2 ms). ratios are the
// formats' ratios of the rounds that timed them one after another; the
// verdict goes by their median. Without rounds, the ratio is that of the
// formats' medians.
func generationRows(b map[string]map[string]float64, ratios []float64) []row {
	var rows []row
	for _, f := range formats {
		m, ok := b["BenchmarkGenerateFormats/"+f]
		if !ok {
			rows = append(rows, row{"generate the standard EU policy, " + f, "100 µs, 32 KB", "missing", "NOT met"})
			continue
		}
		rows = append(rows, row{"generate the standard EU policy, " + f, "100 µs, 32 KB",
			timing(m) + ", " + kb(m["B/op"]), verdict(m["ns/op"] <= 100e3 && m["B/op"] <= 32e3)})
	}
	if len(ratios) == 0 {
		if r, ok := formatRatio(b); ok {
			ratios = []float64{r}
		}
	}
	if len(ratios) > 0 {
		rs := slices.Sorted(slices.Values(ratios))
		ratio := median(rs)
		measured := fmt.Sprintf("%.2f", ratio)
		if len(rs) > 1 {
			measured += fmt.Sprintf(" (median of %d rounds, %.2f-%.2f)", len(rs), rs[0], rs[len(rs)-1])
		}
		rows = append(rows, row{"slowest format / fastest", "1.5", measured, verdict(ratio <= 1.5)})
	}
	var names []string
	for name := range b {
		if strings.HasPrefix(name, "BenchmarkGenerateLargest/") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		m := b[name]
		doc := strings.TrimPrefix(name, "BenchmarkGenerateLargest/")
		limitNS, limit := 1e6, "1 ms, 300 KB (issue 8); 300 µs (issue 9)"
		// "multi/..." is the largest multi-jurisdiction document in
		// Markdown, "multi-html/..." and "multi-text/..." the same
		// document in the other formats.
		isMulti := strings.HasPrefix(doc, "multi")
		if isMulti {
			limitNS, limit = 2e6, "2 ms (issue 8); 300 µs (issue 9)"
		}
		ok8 := m["ns/op"] <= limitNS && (isMulti || m["B/op"] <= 300e3)
		ok9 := m["ns/op"] <= 300e3
		v := "issue 8 " + verdict(ok8) + "; issue 9 " + verdict(ok9)
		rows = append(rows, row{"largest document " + doc + fmt.Sprintf(" (%.0f bytes)", m["doc-bytes"]), limit, timing(m) + ", " + kb(m["B/op"]), v})
	}
	// What the new string of the largest document's size costs alone:
	// part of the multi row's time, which no change to the engine
	// removes while Generate returns the text as a string.
	if m, ok := b["BenchmarkResultString"]; ok {
		rows = append(rows, row{fmt.Sprintf("of which a new string of the largest document's size, alone (%.0f bytes)", m["doc-bytes"]), "reported", timing(m), "-"})
	}
	return rows
}

// defaultGCRow reports the standard document in each format at Go's
// default collector (GOGC=100), for comparison with the rows above; the
// verdicts go by the setting the shipped processes run with.
func defaultGCRow(b map[string]map[string]float64) row {
	var parts []string
	for _, f := range formats {
		if m, ok := b["BenchmarkGenerateFormats/"+f]; ok {
			parts = append(parts, fmt.Sprintf("%s %.0f µs", f, m["ns/op"]/1e3))
		}
	}
	measured := strings.Join(parts, ", ")
	if measured == "" {
		measured = "missing"
	}
	return row{"generate the standard EU policy at Go's default collector (GOGC=100), one run", "reported", measured, "-"}
}

// coldStartRows: issue 9 target 2, each function's exec-to-first-/next at
// most 1.5 ms over the hello-world binary's (the fallback 0.5 ms), judged on
// the median of the rounds' excesses, as the generation targets are on the
// median of their runs.
func coldStartRows(b map[string]map[string]float64) []row {
	var names []string
	for name := range b {
		if strings.HasPrefix(name, "BenchmarkInit/") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var rows []row
	for _, name := range names {
		fn := strings.TrimPrefix(name, "BenchmarkInit/")
		limit := 1.5
		if strings.Contains(fn, "Fallback") {
			limit = 0.5
		}
		m := b[name]
		measured := fmt.Sprintf("%.2f ms", m["excess-ms"])
		if m["runs"] > 1 {
			measured += fmt.Sprintf(" (median of %.0f rounds, %.2f to %.2f)", m["runs"], m["excess-ms-min"], m["excess-ms-max"])
		}
		rows = append(rows, row{"cold start " + fn + fmt.Sprintf(" (%.1f MB)", m["MB"]), fmt.Sprintf("%.1f ms over hello-world", limit),
			measured, verdict(m["excess-ms"] <= limit)})
	}
	if len(rows) == 0 {
		rows = append(rows, row{"cold start", "1.5 ms over hello-world", "missing", "NOT met"})
	}
	return rows
}

// unitLine matches TestGenerateWriteUnits's per-operation log lines.
var unitLine = regexp.MustCompile(`units_test\.go:\d+: (.+?): (\d+) RCU, (\d+) WCU`)

// unitRows: issue 9 target 3, a generate at most 12 write units (the
// largest figure the test logged), with the other operations reported.
func unitRows(out string) []row {
	worst := map[string][2]int{}
	for _, m := range unitLine.FindAllStringSubmatch(out, -1) {
		r, _ := strconv.Atoi(m[2])
		w, _ := strconv.Atoi(m[3])
		cur := worst[m[1]]
		worst[m[1]] = [2]int{max(cur[0], r), max(cur[1], w)}
	}
	if _, ok := worst["generate"]; !ok {
		return []row{{"DynamoDB write units a generate", "12 WCU", "missing", "NOT met"}}
	}
	var ops []string
	for op := range worst {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	var rows []row
	for _, op := range ops {
		w := worst[op]
		if strings.HasPrefix(op, "generate") {
			rows = append(rows, row{"DynamoDB " + op + " (largest case)", "12 WCU", fmt.Sprintf("%d WCU", w[1]), verdict(w[1] <= 12)})
			continue
		}
		rows = append(rows, row{"DynamoDB " + op + " (largest case)", "reported", fmt.Sprintf("%d RCU, %d WCU", w[0], w[1]), "-"})
	}
	return rows
}

// ratioLine is loadrun --compare's verdict line.
var ratioLine = regexp.MustCompile(`generate/trivial throughput: 1/([0-9.]+)`)

// throughputRow: issue 9 target 4, generate on policyd with bbolt at least
// a tenth of a trivial handler's throughput on the same server.
func throughputRow(out string) row {
	m := ratioLine.FindStringSubmatch(out)
	if m == nil {
		return row{"policyd generate / trivial handler throughput", "1/10", "missing", "NOT met"}
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return row{"policyd generate / trivial handler throughput", "1/10", "1/" + m[1], verdict(v <= 10)}
}
