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

// New returns an API client for baseURL, the API's base URL including /v1
// ("https://api.example.com/v1", as openapi.yaml's servers, the stack's
// ApiUrl output and the README write it; one without /v1 gets it added),
// authenticating with key.
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

// ServerURL is the base URL the generated client's paths (/policies/...)
// are relative to: baseURL ending in /v1.
func ServerURL(baseURL string) (string, error) {
	u := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return "", fmt.Errorf("client: base URL %q must start with https:// (or http:// for a local server)", baseURL)
	}
	if !strings.HasSuffix(u, "/v1") {
		u += "/v1"
	}
	return u, nil
}
