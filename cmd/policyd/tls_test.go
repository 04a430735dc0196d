package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 and localhost and its key,
// and returns their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "policyd test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestTLSAndRedirect: with --tls-cert/--tls-key policyd serves HTTPS (TLS
// 1.2 at least), and --http-redirect-addr answers plain HTTP, any method,
// with 308 to the same path and query on the HTTPS address.
func TestTLSAndRedirect(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	spec := "bolt:" + filepath.Join(t.TempDir(), "policygen.db")
	inst := start(t, spec, regexp.MustCompile(`^curl `), "--tls-cert", certFile, "--tls-key", keyFile, "--http-redirect-addr", "127.0.0.1:0")
	defer inst.stop()
	if !strings.HasPrefix(inst.base, "https://127.0.0.1:") {
		t.Fatalf("base %q, want https", inst.base)
	}
	var redirectFrom string
	for _, l := range inst.lines {
		if m := regexp.MustCompile(`redirecting (http://\S+) to `).FindStringSubmatch(l); m != nil {
			redirectFrom = m[1]
		}
	}
	if redirectFrom == "" {
		t.Fatalf("no redirect line in %q", inst.lines)
	}

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(inst.base + "/v1/auth/profile")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.TLS == nil {
		t.Errorf("HTTPS request without a key: %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}}}
	if _, err := old.Get(inst.base + "/v1/auth/profile"); err == nil {
		t.Error("TLS 1.1 accepted")
	}

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, httpsPort, _ := net.SplitHostPort(strings.TrimPrefix(inst.base, "https://"))
	for _, method := range []string{"GET", "POST", "DELETE"} {
		req, _ := http.NewRequest(method, redirectFrom+"/v1/policies?limit=5&cursor=a%2Fb", strings.NewReader("{}"))
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		want := "https://127.0.0.1:" + httpsPort + "/v1/policies?limit=5&cursor=a%2Fb"
		if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != want {
			t.Errorf("%s over plain HTTP: %d Location %q, want 308 %q", method, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
	// Following the redirect reaches the API over HTTPS with the method kept.
	follow := &http.Client{Transport: client.Transport}
	req, _ := http.NewRequest("POST", redirectFrom+"/v1/policies/generate", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	resp, err = follow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Request.Method != "POST" || resp.Request.URL.Scheme != "https" {
		t.Errorf("followed redirect: %d %s %s", resp.StatusCode, resp.Request.Method, resp.Request.URL)
	}
}

func TestTransportRules(t *testing.T) {
	certFile, keyFile, _ := selfSigned(t)
	for _, tt := range []struct {
		addr, cert, key, redirect string
		insecure                  bool
		err                       string // "" for allowed
	}{
		{addr: "127.0.0.1:8080"},
		{addr: "localhost:8080"},
		{addr: "[::1]:8080"},
		{addr: "0.0.0.0:8080", err: "refusing to serve plain HTTP on 0.0.0.0:8080"},
		{addr: ":8080", err: "refusing to serve plain HTTP on :8080"},
		{addr: "192.0.2.10:8080", err: "not a loopback address"},
		{addr: "0.0.0.0:8080", insecure: true},
		{addr: "0.0.0.0:8443", cert: certFile, key: keyFile},
		{addr: "0.0.0.0:8443", cert: certFile, err: "give both --tls-cert and --tls-key"},
		{addr: "127.0.0.1:8080", redirect: ":8081", err: "needs --tls-cert"},
		{addr: "0.0.0.0:8443", cert: certFile, key: certFile, err: "load TLS certificate"},
	} {
		cfg, err := transport(tt.addr, tt.cert, tt.key, tt.redirect, tt.insecure)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%+v: %v", tt, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%+v: err %v, want %q", tt, err, tt.err)
		case tt.err == "" && (cfg != nil) != (tt.cert != ""):
			t.Errorf("%+v: TLS config %v", tt, cfg)
		case cfg != nil && cfg.MinVersion != tls.VersionTLS12:
			t.Errorf("MinVersion %x", cfg.MinVersion)
		}
	}
	// run refuses before it listens or opens anything.
	err := run(context.Background(), []string{"--addr", "0.0.0.0:0", "--store", "bolt:" + filepath.Join(t.TempDir(), "db")}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "refusing to serve plain HTTP") {
		t.Errorf("run on 0.0.0.0 without TLS = %v", err)
	}
}

// The demo key is printed on loopback only: on any other address policyd
// creates no account and says how to make one.
func TestNoDemoKeyOffLoopback(t *testing.T) {
	certFile, keyFile, _ := selfSigned(t)
	spec := "bolt:" + filepath.Join(t.TempDir(), "policygen.db")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "0.0.0.0:0", "--store", spec, "--tls-cert", certFile, "--tls-key", keyFile},
			func(string) string { return "" }, pw, io.Discard)
		pw.Close()
	}()
	var out []string
	buf := make([]byte, 4096)
	for !strings.Contains(strings.Join(out, ""), "account create") {
		n, err := pr.Read(buf)
		if err != nil {
			break
		}
		out = append(out, string(buf[:n]))
	}
	cancel()
	go io.Copy(io.Discard, pr)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	text := strings.Join(out, "")
	if strings.Contains(text, "pol_live_") || strings.Contains(text, "Created demo") || !strings.Contains(text, "no demo account") {
		t.Errorf("output off loopback:\n%s", text)
	}
}
