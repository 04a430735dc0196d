package awsjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// TestSignatureHoldsAsReceived: the request AWS receives still carries
// the signature it was sent with. The server rebuilds the canonical
// request from what arrived (the headers the signature names, the body,
// the date) and signs it again with the same credentials: a header the
// transport added or changed after signing, or a body hash that is not
// the body's, would give another signature. DynamoDB Local and the fakes
// do not check signatures, so this is the check.
func TestSignatureHoldsAsReceived(t *testing.T) {
	creds := aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret", SessionToken: "token-1"}
	var checked int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		_, params, ok := strings.Cut(auth, " ")
		if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") || !ok {
			t.Errorf("Authorization %q", auth)
			return
		}
		var signed, sig, scope string
		for _, p := range strings.Split(params, ", ") {
			k, v, _ := strings.Cut(p, "=")
			switch k {
			case "SignedHeaders":
				signed = v
			case "Signature":
				sig = v
			case "Credential":
				scope = v
			}
		}
		if !strings.HasSuffix(scope, "/eu-west-1/dynamodb/aws4_request") {
			t.Errorf("credential scope %q", scope)
		}
		at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
		if err != nil {
			t.Errorf("X-Amz-Date: %v", err)
			return
		}
		again, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
		again.ContentLength = r.ContentLength
		for _, h := range strings.Split(signed, ";") {
			if h == "host" || h == "content-length" {
				continue
			}
			for _, v := range r.Header.Values(h) {
				again.Header.Add(h, v)
			}
		}
		sum := sha256.Sum256(body)
		if err := v4.NewSigner().SignHTTP(r.Context(), creds, again, hex.EncodeToString(sum[:]), "dynamodb", "eu-west-1", at); err != nil {
			t.Error(err)
			return
		}
		if !strings.Contains(again.Header.Get("Authorization"), "Signature="+sig) {
			t.Errorf("signature does not hold as received\nsent:   %s\nresign: %s", auth, again.Header.Get("Authorization"))
		}
		for _, h := range []string{"x-amz-target", "content-type", "x-amz-security-token", "host"} {
			if !strings.Contains(";"+signed+";", ";"+h+";") {
				t.Errorf("%s is not signed (SignedHeaders %s)", h, signed)
			}
		}
		checked++
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	c := &Client{Service: "dynamodb", TargetPrefix: "DynamoDB_20120810", Version: "1.0", Region: "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider(creds.AccessKeyID, creds.SecretAccessKey, creds.SessionToken), Endpoint: srv.URL}
	for _, body := range []string{`{"TableName":"t","Key":{"pk":{"S":"a b/ü"}}}`, `{}`} {
		if _, err := c.Call(t.Context(), "GetItem", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if checked != 2 {
		t.Fatalf("%d requests checked, want 2", checked)
	}
}
