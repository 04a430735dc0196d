package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"
)

// crashServer is policyd as a real process, so it can be killed with
// SIGKILL mid-request.
type crashServer struct {
	cmd  *exec.Cmd
	base string
	out  []string
}

func startProcess(t *testing.T, bin, db string) *crashServer {
	t.Helper()
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--store", "bolt:"+db)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &crashServer{cmd: cmd}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	listening := regexp.MustCompile(`listening on (http://\S+)`)
	for sc.Scan() {
		line := sc.Text()
		s.out = append(s.out, line)
		if m := listening.FindStringSubmatch(line); m != nil {
			s.base = m[1]
		}
		// The first start ends with the curl line; a restart with the hint.
		if regexp.MustCompile(`^curl |policyctl`).MatchString(line) {
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	if s.base == "" {
		t.Fatalf("policyd did not start: %q", s.out)
	}
	return s
}

// attempt is one generate request of the crash test, by its Idempotency-Key.
type attempt struct {
	key  string
	body string
	id   string // from a 201
	resp []byte // the 201's body
}

// TestCrashDuringGenerates kills policyd with SIGKILL while 8 clients
// generate, restarts it on the same file, and checks the promises of a
// 201 and of Idempotency-Key: every policy answered with 201 is readable
// with the same content; every request whose answer was lost, retried
// with its key, gets a 201; and the store then holds exactly one policy per
// key: no duplicates, nothing lost.
func TestCrashDuringGenerates(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real policyd")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "policyd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "data", "policygen.db")
	srv := startProcess(t, bin, db)
	var key string
	for _, l := range srv.out {
		if m := regexp.MustCompile(`^\s+(pol_live_\S+)$`).FindStringSubmatch(l); m != nil {
			key = m[1]
		}
	}
	if key == "" {
		t.Fatalf("no demo key in %q", srv.out)
	}

	client := &http.Client{Timeout: 10 * time.Second}
	var mu sync.Mutex
	var replays int
	post := func(base string, a *attempt) (int, []byte, error) {
		req, _ := http.NewRequest("POST", base+"/v1/policies/generate", bytes.NewReader([]byte(a.body)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", a.key)
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		if resp.Header.Get("Idempotent-Replayed") == "true" {
			mu.Lock()
			replays++
			mu.Unlock()
		}
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}

	const workers = 8
	var (
		attempts []*attempt
		ok201    int
		wg       sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				a := &attempt{key: fmt.Sprintf("crash-%d-%d", w, i),
					body: fmt.Sprintf(`{"type":"privacy","businessName":"Crash Test %d-%d","websiteUrl":"https://crash.example","businessType":"saas","jurisdiction":"EU","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["stripe"],"contactEmail":"privacy@crash.example"}`, w, i)}
				mu.Lock()
				attempts = append(attempts, a)
				mu.Unlock()
				code, b, err := post(srv.base, a)
				if err != nil {
					return // the server died under this request: its answer is lost
				}
				if code != http.StatusCreated {
					t.Errorf("%s: %d %s", a.key, code, b)
					return
				}
				var p struct{ ID string }
				json.Unmarshal(b, &p)
				mu.Lock()
				a.id, a.resp = p.ID, b
				ok201++
				n := ok201
				mu.Unlock()
				if n == 40 {
					// Mid-flight: the other workers have requests running.
					srv.cmd.Process.Signal(syscall.SIGKILL)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	srv.cmd.Wait()

	lost := 0
	for _, a := range attempts {
		if a.id == "" {
			lost++
		}
	}
	t.Logf("before the kill: %d requests sent, %d answered 201, %d answers lost", len(attempts), ok201, lost)
	if ok201 < 40 || lost == 0 {
		t.Fatalf("the kill came at the wrong moment: %d 201s, %d lost", ok201, lost)
	}

	srv = startProcess(t, bin, db)
	get := func(id string) (int, []byte) {
		req, _ := http.NewRequest("GET", srv.base+"/v1/policies/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	// Every 201 survived the kill, with its content.
	for _, a := range attempts {
		if a.id == "" {
			continue
		}
		code, b := get(a.id)
		var got, sent struct{ Content string }
		json.Unmarshal(b, &got)
		json.Unmarshal(a.resp, &sent)
		if code != http.StatusOK || got.Content != sent.Content || got.Content == "" {
			t.Errorf("policy %s (201 before the kill): %d, content equal: %v", a.id, code, got.Content == sent.Content)
		}
	}
	// Every lost answer, retried with its key: a 201 (the stored outcome if
	// the write had happened, a fresh policy if not).
	for _, a := range attempts {
		if a.id != "" {
			continue
		}
		code, b, err := post(srv.base, a)
		if err != nil || code != http.StatusCreated {
			t.Fatalf("retry of %s after restart: %d %v %s", a.key, code, err, b)
		}
		var p struct{ ID string }
		json.Unmarshal(b, &p)
		a.id = p.ID
	}
	// Exactly one policy per key.
	req, _ := http.NewRequest("GET", srv.base+"/v1/policies?limit=100", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	ids := map[string]bool{}
	for {
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Data       []struct{ ID string }
			NextCursor *string
		}
		json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		for _, p := range page.Data {
			if ids[p.ID] {
				t.Errorf("policy %s listed twice", p.ID)
			}
			ids[p.ID] = true
		}
		if page.NextCursor == nil {
			break
		}
		req.URL.RawQuery = "limit=100&cursor=" + *page.NextCursor
	}
	want := map[string]bool{}
	for _, a := range attempts {
		want[a.id] = true
	}
	t.Logf("after restart: %d lost answers retried (%d were stored before the kill and replayed), %d policies stored for %d keys",
		lost, replays, len(ids), len(attempts))
	if len(ids) != len(attempts) || len(want) != len(attempts) {
		t.Errorf("%d policies stored, %d distinct ids answered, for %d keys: want one each (0 duplicates, 0 lost)", len(ids), len(want), len(attempts))
	}
	for id := range want {
		if !ids[id] {
			t.Errorf("policy %s answered 201 but not listed", id)
		}
	}
}
