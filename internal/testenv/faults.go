package testenv

import (
	"hash/crc32"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// SilentEndpoint returns the URL of a server on 127.0.0.1 that accepts
// connections, reads what is sent and never answers: a dependency that has
// stopped responding without refusing.
func SilentEndpoint(t testing.TB) string {
	return faultyEndpoint(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
}

// ResettingEndpoint returns the URL of a server on 127.0.0.1 that accepts
// each connection and resets it at once (TCP RST).
func ResettingEndpoint(t testing.TB) string {
	return faultyEndpoint(t, func(c net.Conn) {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // close sends RST, not FIN
		}
	})
}

func faultyEndpoint(t testing.TB, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				serve(c)
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String()
}

// AWSErrorEndpoint returns the URL of a server on 127.0.0.1 that answers
// every request with an AWS JSON-protocol error of type code (for example
// ThrottlingException) and HTTP status, and a counter of requests served.
func AWSErrorEndpoint(t testing.TB, status int, code string) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		body := []byte(`{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"injected by the test"}`)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-ErrorType", code)
		// DynamoDB signs its bodies with a CRC32 that the SDK checks.
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}
