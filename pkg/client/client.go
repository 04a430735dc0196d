// Package client is the Go client of the Policygen API: client.gen.go is
// generated from openapi.yaml by oapi-codegen (go generate, make generate),
// and New wires it with the API key and base URL.
package client

//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../../openapi.yaml

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// DefaultTimeout bounds one API call.
const DefaultTimeout = 60 * time.Second

// New returns an API client for baseURL, which may be given with or without
// the /v1 path prefix ("https://api.example.com/v1" as in the README, or
// "https://api.example.com"), authenticating with key.
func New(baseURL, key string, httpClient *http.Client) (*ClientWithResponses, error) {
	if key == "" {
		return nil, fmt.Errorf("client: no API key")
	}
	server, err := ServerURL(baseURL)
	if err != nil {
		return nil, err
	}
	if httpClient == nil {
		httpClient = &http.Client{Timeout: DefaultTimeout}
	}
	return NewClientWithResponses(server,
		WithHTTPClient(httpClient),
		WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			r.Header.Set("User-Agent", "policygen-go")
			return nil
		}))
}

// ServerURL is the server the generated client's paths (/v1/...) are
// relative to: baseURL without a trailing /v1.
func ServerURL(baseURL string) (string, error) {
	u := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return "", fmt.Errorf("client: base URL %q must start with https:// (or http:// for a local server)", baseURL)
	}
	return strings.TrimSuffix(u, "/v1"), nil
}
