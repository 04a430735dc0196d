package main

import (
	"strings"
	"testing"
)

func TestParsers(t *testing.T) {
	bench := parseBench(`goos: linux
BenchmarkGenerateFormats/markdown-2   	    1512	    90000 ns/op	  30000 B/op	    1392 allocs/op
BenchmarkGenerateFormats/html-2       	    1843	   120000 ns/op	  31000 B/op	    1384 allocs/op
BenchmarkGenerateFormats/text-2       	    1512	    95000 ns/op	  29000 B/op	    1348 allocs/op
BenchmarkGenerateLargest/single/privacy/US-CA-2 	 819	 1572392 ns/op	 40552 doc-bytes	 715851 B/op	 5016 allocs/op
BenchmarkInit/FallbackFunction-2 	 20	 5000000 ns/op	 4700000 baseline-ns	 0.30 excess-ms	 8.5 MB
BenchmarkInit/GetPolicyFunction-2 	 20	 5000000 ns/op	 4700000 baseline-ns	 1.60 excess-ms	 10.1 MB
`)
	gen := generationRows(bench, nil)
	if len(gen) != 5 {
		t.Fatalf("generation rows = %+v", gen)
	}
	if gen[0].verdict != "met" || gen[1].verdict != "NOT met" || gen[3].measured != "1.33" || gen[3].verdict != "met" {
		t.Errorf("generation rows = %+v", gen)
	}
	if !strings.Contains(gen[4].verdict, "issue 8 NOT met") || gen[4].measured != "1572 µs, 716 KB" {
		t.Errorf("largest row = %+v", gen[4])
	}
	// The new string of the largest document's size is reported after
	// the documents, with no verdict.
	withCopy := parseBench(`BenchmarkGenerateLargest/multi/privacy/EU+US-CA 	 3000	 350000 ns/op	 140807 doc-bytes	 160000 B/op	 35 allocs/op
BenchmarkResultString-2 	 15000	 81000 ns/op	 140807 doc-bytes	 147456 B/op	 1 allocs/op
`)
	if rows := generationRows(withCopy, nil); len(rows) < 2 || !strings.HasPrefix(rows[len(rows)-2].target, "largest document multi/") ||
		rows[len(rows)-1].target != "of which a new string of the largest document's size, alone (140807 bytes)" || rows[len(rows)-1].measured != "81 µs" || rows[len(rows)-1].verdict != "-" {
		t.Errorf("rows with the result string = %+v", rows)
	}
	// The largest document in another format is bound as the Markdown one
	// is: 2 ms for issue 8 (a multi-jurisdiction document), 300 µs for
	// issue 9.
	html := parseBench(`BenchmarkGenerateLargest/multi-html/privacy/EU+US-CA-2 	 3000	 1200000 ns/op	 161265 doc-bytes	 400000 B/op	 20 allocs/op
`)
	if rows := generationRows(html, nil); len(rows) != 4 || rows[3].target != "largest document multi-html/privacy/EU+US-CA (161265 bytes)" ||
		!strings.HasPrefix(rows[3].limit, "2 ms") || rows[3].verdict != "issue 8 met; issue 9 NOT met" {
		t.Errorf("rows of the largest document in HTML = %+v", rows)
	}
	cold := coldStartRows(bench)
	if len(cold) != 2 || cold[0].verdict != "met" || cold[1].verdict != "NOT met" || !strings.Contains(cold[0].limit, "0.5") {
		t.Errorf("cold start rows = %+v", cold)
	}
	// Cold starts in rounds: the median of the rounds' excesses decides,
	// the spread shows.
	rounds := parseBench(`BenchmarkInit/FallbackFunction-2 	 20	 5000000 ns/op	 4700000 baseline-ns	 0.57 excess-ms	 10.5 MB
BenchmarkInit/FallbackFunction-2 	 20	 5000000 ns/op	 4700000 baseline-ns	 0.21 excess-ms	 10.5 MB
BenchmarkInit/FallbackFunction-2 	 20	 5000000 ns/op	 4700000 baseline-ns	 -0.04 excess-ms	 10.5 MB
`)
	if r := coldStartRows(rounds); len(r) != 1 || r[0].measured != "0.21 ms (median of 3 rounds, -0.04 to 0.57)" || r[0].verdict != "met" {
		t.Errorf("cold start row from three rounds = %+v", r)
	}
	units := unitRows(`    units_test.go:198: generate: 0 RCU, 8 WCU
    units_test.go:198: generate with Idempotency-Key: 0 RCU, 13 WCU
    units_test.go:198: get: 1 RCU, 0 WCU
    units_test.go:198: generate: 0 RCU, 10 WCU`)
	if len(units) != 3 || units[0].measured != "10 WCU" || units[0].verdict != "met" || units[1].verdict != "NOT met" || units[2].measured != "1 RCU, 0 WCU" {
		t.Errorf("unit rows = %+v", units)
	}
	// Several runs of one benchmark: the median decides, the spread shows.
	runs := parseBench(`BenchmarkGenerateFormats/markdown-2 	 1000	 130000 ns/op	 27000 B/op	 20 allocs/op
BenchmarkGenerateFormats/markdown-2 	 1000	 90000 ns/op	 27000 B/op	 20 allocs/op
BenchmarkGenerateFormats/markdown-2 	 1000	 95000 ns/op	 27000 B/op	 20 allocs/op
`)
	if md := generationRows(runs, nil)[0]; md.measured != "95 µs (median of 3 runs, 90-130), 27 KB" || md.verdict != "met" {
		t.Errorf("row from three runs = %+v", md)
	}
	// The formats' ratio is taken within each round, and its median decides:
	// here the formats' medians (90, 110, 60) would give 1.83, while no
	// round is over 1.5.
	var ratios []float64
	for _, round := range []string{
		"BenchmarkGenerateFormats/markdown-2 1000 90000 ns/op\nBenchmarkGenerateFormats/html-2 1000 100000 ns/op\nBenchmarkGenerateFormats/text-2 1000 80000 ns/op\n",
		"BenchmarkGenerateFormats/markdown-2 1000 60000 ns/op\nBenchmarkGenerateFormats/html-2 1000 66000 ns/op\nBenchmarkGenerateFormats/text-2 1000 60000 ns/op\n",
		"BenchmarkGenerateFormats/markdown-2 1000 95000 ns/op\nBenchmarkGenerateFormats/html-2 1000 110000 ns/op\nBenchmarkGenerateFormats/text-2 1000 55000 ns/op\n",
	} {
		r, ok := formatRatio(parseBench(round))
		if !ok {
			t.Fatalf("no ratio in round %q", round)
		}
		ratios = append(ratios, r)
	}
	if _, ok := formatRatio(parseBench("BenchmarkGenerateFormats/markdown-2 1000 90000 ns/op\n")); ok {
		t.Error("a round without every format gave a ratio")
	}
	if r := generationRows(map[string]map[string]float64{}, ratios); len(r) != 4 || r[3].measured != "1.25 (median of 3 rounds, 1.10-2.00)" || r[3].verdict != "met" {
		t.Errorf("ratio row from rounds = %+v", r)
	}
	defaultGC := "BenchmarkGenerateFormats/markdown-2 1000 121500 ns/op 25000 B/op\nBenchmarkGenerateFormats/text-2 1000 98400 ns/op 25000 B/op\n"
	if r := defaultGCRow(parseBench(defaultGC)); r.measured != "markdown 122 µs, text 98 µs" || r.verdict != "-" {
		t.Errorf("default collector row = %+v", r)
	}
	if r := defaultGCRow(parseBench("")); r.measured != "missing" {
		t.Errorf("default collector row without figures = %+v", r)
	}
	if r := throughputRow("generate/trivial throughput: 1/25.4 (issue 9 target: at least 1/10: NOT met)"); r.measured != "1/25.4" || r.verdict != "NOT met" {
		t.Errorf("throughput row = %+v", r)
	}
	if r := throughputRow("nothing"); r.measured != "missing" {
		t.Errorf("missing throughput row = %+v", r)
	}
}
