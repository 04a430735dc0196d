package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/policygen/policygen/pkg/client"
)

// Bulk CSV columns (docs/CLI.md): "reference" and the generation request's
// fields by their JSON names. Booleans read true/false/yes/no/1/0;
// thirdPartyServices and shippingRegions are ";"-separated lists; retention and
// transferSafeguards hold JSON objects, minimumAge and dispatchDays numbers and
// subscriptions false or an object. Empty cells are left out.
var (
	boolColumns = map[string]bool{"collectsPayments": true, "collectsUserData": true, "usesAnalytics": true,
		"onlineOnly": true, "consentBanner": true, "sellsMinorsData": true, "ccpaThresholdsMet": true, "optOutLink": true,
		"servesQuebec": true, "smallProcessingAgent": true, "affiliateLinks": true,
		"sellsSensitiveData": true, "sellsBiometricData": true,
		"directedToChildren": true} // COPPA (issue 8, part j6)
	// JSON cells: objects, and the numbers and true/false/objects of
	// minimumAge and subscriptions.
	jsonColumns = map[string]bool{"retention": true, "transferSafeguards": true, "minimumAge": true, "subscriptions": true,
		"dispatchDays":     true, // shipping policy (issue 8, t4)
		"refundWindowDays": true} // refund policy (issue 8, t3)
	// ";"-separated lists.
	listColumns   = map[string]bool{"thirdPartyServices": true, "shippingRegions": true}
	stringColumns = map[string]bool{"type": true, "businessName": true, "websiteUrl": true, "businessType": true,
		"language": true, "jurisdiction": true, "memberState": true, "contactEmail": true, "postalAddress": true,
		"phone": true, "tollFreeNumber": true, "establishedIn": true, "dpoContact": true, "euRepresentative": true,
		"ukRepresentative": true, "hostingProvider": true, "format": true, "effectiveDate": true,
		"privacyOfficer": true, "governingLaw": true,
		"returnShippingPaidBy": true} // refund policy (issue 8, t3)
)

// maxBatch is the most items one bulk request may hold.
const maxBatch = 100

// batchSize splits n rows into about ten batches (at least 10 rows, at most
// maxBatch each), so that a short file shows progress too.
func batchSize(n int) int {
	return min(maxBatch, max(10, (n+9)/10))
}

// maxAttempts bounds the tries of one batch (the same Idempotency-Key each time).
const maxAttempts = 5

type bulkRow struct {
	line      int
	reference string
	request   json.RawMessage
	err       error // a row the CLI could not read
}

func (c *cli) bulk(ctx context.Context, args []string) error {
	fs, base := newFlags("bulk")
	csvPath := fs.String("csv", "", "CSV file, one row per client site")
	outPath := fs.String("out", "", "results CSV (default: <csv>.results.csv)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if _, err := c.flags(fs, args); err != nil {
		return err
	}
	if *csvPath == "" {
		return fmt.Errorf("%w: bulk needs --csv FILE", errUsage)
	}
	if *outPath == "" {
		*outPath = strings.TrimSuffix(*csvPath, ".csv") + ".results.csv"
	}
	f, err := os.Open(*csvPath)
	if err != nil {
		return err
	}
	rows, err := readRows(f)
	f.Close()
	if err != nil {
		return err
	}
	api, err := c.client(*base)
	if err != nil {
		return err
	}
	out, err := os.Create(*outPath)
	if err != nil {
		return err
	}
	defer out.Close()
	w := csv.NewWriter(out)
	_ = w.Write([]string{"line", "reference", "status", "policyId", "policyStatus", "riskScore", "error"})

	var bar *progressbar.ProgressBar
	if !*quiet {
		bar = progressbar.NewOptions(len(rows), progressbar.OptionSetWriter(c.stderr),
			progressbar.OptionSetDescription("generating"), progressbar.OptionShowCount(),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(c.stderr) }))
	}
	created, failed := 0, 0
	record := func(r bulkRow, status int, id, pstatus, score, msg string) {
		_ = w.Write([]string{strconv.Itoa(r.line), r.reference, strconv.Itoa(status), id, pstatus, score, msg})
		if status == http.StatusCreated {
			created++
		} else {
			failed++
		}
	}
	var pending []bulkRow
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		results, err := c.sendBatch(ctx, api, pending)
		if err != nil {
			return err
		}
		for i, res := range results.Results {
			r := pending[i]
			switch {
			case res.Policy != nil:
				record(r, res.Status, res.Policy.Id, string(res.Policy.Status), strconv.Itoa(res.Policy.RiskScore), "")
			case res.Problem != nil:
				record(r, res.Status, "", "", "", problemText(*res.Problem))
			default:
				record(r, res.Status, "", "", "", "no result")
			}
		}
		if bar != nil {
			_ = bar.Add(len(pending))
		}
		pending = pending[:0]
		return nil
	}
	size := batchSize(len(rows))
	for _, r := range rows {
		if r.err != nil {
			record(r, 0, "", "", "", r.err.Error())
			if bar != nil {
				_ = bar.Add(1)
			}
			continue
		}
		pending = append(pending, r)
		if len(pending) == size {
			if err := flush(); err != nil {
				w.Flush()
				return err
			}
		}
	}
	if err := flush(); err != nil {
		w.Flush()
		return err
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%d created, %d failed; results in %s\n", created, failed, *outPath)
	return nil
}

func problemText(p client.Problem) string {
	msg := p.Code + ": " + p.Detail
	if p.Errors != nil {
		for _, fe := range *p.Errors {
			msg += "; " + fe.Field + ": " + fe.Message
		}
	}
	return msg
}

// sendBatch posts one batch, retrying network failures, 409 (the same
// batch still running), 429 rate_limited and 5xx with the same
// Idempotency-Key, so a retry never generates twice.
func (c *cli) sendBatch(ctx context.Context, api *client.ClientWithResponses, rows []bulkRow) (*client.BulkResponse, error) {
	var items []string
	for _, r := range rows {
		ref, _ := json.Marshal(r.reference)
		items = append(items, fmt.Sprintf(`{"reference":%s,"request":%s}`, ref, r.request))
	}
	body := []byte(`{"items":[` + strings.Join(items, ",") + `]}`)
	sum := sha256.Sum256(body)
	key := "policygen-bulk-" + hex.EncodeToString(sum[:16])
	var last error
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		resp, err := api.BulkGeneratePoliciesWithBodyWithResponse(ctx, &client.BulkGeneratePoliciesParams{IdempotencyKey: &key}, "application/json", bytes.NewReader(body))
		wait := attempt
		switch {
		case err != nil:
			last = err
		case resp.JSON200 != nil:
			return resp.JSON200, nil
		case resp.StatusCode() == http.StatusConflict, resp.StatusCode() >= 500,
			resp.StatusCode() == http.StatusTooManyRequests && !strings.Contains(string(resp.Body), "quota_exceeded"):
			last = apiError(resp.StatusCode(), resp.Body)
			if s, err := strconv.Atoi(resp.HTTPResponse.Header.Get("Retry-After")); err == nil {
				wait = min(s, 30)
			}
		default:
			return nil, apiError(resp.StatusCode(), resp.Body)
		}
		if attempt < maxAttempts {
			if err := c.sleep(ctx, wait); err != nil {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("batch failed after %d attempts: %w", maxAttempts, last)
}

func sleepSeconds(ctx context.Context, n int) error {
	t := time.NewTimer(time.Duration(n) * time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// readRows reads the CSV: a header of column names, then one site per row.
// A row the CLI cannot turn into a request is kept with its error, so that
// it appears in the results rather than stopping the run.
func readRows(r io.Reader) ([]bulkRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read CSV header: %w", err)
	}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		header[i] = h
		if h != "reference" && !boolColumns[h] && !jsonColumns[h] && !stringColumns[h] && !listColumns[h] {
			return nil, fmt.Errorf("%w: unknown CSV column %q (docs/CLI.md lists the columns)", errUsage, h)
		}
	}
	var rows []bulkRow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		row := bulkRow{line: line}
		if err != nil {
			row.err = err
			rows = append(rows, row)
			continue
		}
		req := map[string]any{}
		for i, cell := range rec {
			if i >= len(header) {
				row.err = fmt.Errorf("more cells than columns")
				break
			}
			col, cell := header[i], strings.TrimSpace(cell)
			if cell == "" {
				continue
			}
			switch {
			case col == "reference":
				row.reference = cell
			case boolColumns[col]:
				b, ok := map[string]bool{"true": true, "yes": true, "1": true, "false": false, "no": false, "0": false}[strings.ToLower(cell)]
				if !ok {
					row.err = fmt.Errorf("%s: %q is not true or false", col, cell)
				}
				req[col] = b
			case jsonColumns[col]:
				req[col] = json.RawMessage(cell)
				if !json.Valid([]byte(cell)) {
					row.err = fmt.Errorf("%s: not a JSON object", col)
				}
			case listColumns[col]:
				var list []string
				for _, s := range strings.Split(cell, ";") {
					if s = strings.TrimSpace(s); s != "" {
						list = append(list, s)
					}
				}
				req[col] = list
			default:
				req[col] = cell
			}
		}
		// A privacy policy unless the row says otherwise.
		if _, ok := req["type"]; !ok {
			req["type"] = "privacy"
		}
		if row.err == nil {
			row.request, row.err = json.Marshal(req)
		}
		rows = append(rows, row)
	}
	return rows, nil
}
