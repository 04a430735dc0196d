// Package secretstest serves the part of the Secrets Manager JSON 1.1
// protocol that GetSecretValue uses, so a test runs pkg/secrets/awssecrets
// (pointed here with AWS_ENDPOINT_URL_SECRETS_MANAGER) against known secrets
// and counts what it read. Only tests import it.
package secretstest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Server is a Secrets Manager endpoint holding fixed string secrets.
type Server struct {
	URL string

	secrets map[string]string
	mu      sync.Mutex
	calls   map[string]int
	total   int
}

// New starts a Server holding secrets (secret id → SecretString); it stops
// when the test ends.
func New(t testing.TB, secrets map[string]string) *Server {
	s := &Server{secrets: secrets, calls: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var in struct{ SecretId string }
	json.NewDecoder(r.Body).Decode(&in)
	s.mu.Lock()
	s.total++
	s.calls[in.SecretId]++
	value, ok := s.secrets[in.SecretId]
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	fail := func(typ, msg string) {
		w.Header().Set("X-Amzn-ErrorType", typ)
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
	}
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/" || r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue":
		fail("UnknownOperationException", r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Amz-Target"))
	case !ok:
		fail("ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
	default:
		arn := in.SecretId
		if !strings.HasPrefix(arn, "arn:") {
			arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:" + arn + "-AbCdEf"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"ARN":           arn,
			"Name":          in.SecretId,
			"SecretString":  value,
			"VersionId":     "11111111-2222-4333-8444-555555555555",
			"VersionStages": []string{"AWSCURRENT"},
		})
	}
}

// Calls returns how many requests named secret id, found or not.
func (s *Server) Calls(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[id]
}

// TotalCalls returns how many requests the server has answered.
func (s *Server) TotalCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}
